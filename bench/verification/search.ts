/**
 * A plain breadth-first planner over a formal model, with the simulator's own state semantics
 * (src/formal/state.ts): every ground action from every reached state, states that break a
 * formal constraint pruned, the first state where every formal goal holds ends the search.
 * It is how the known valid plans of the hand-written benchmark problems were found (they were
 * then checked by reasoning, see the `why` notes in bench/problems); it is not the coordinator's.
 */
import type { FormalAction, FormalModel } from "../../src/formal/model.js";
import { applyChanges, collectChanges, evaluate, initialWorld, objectsOfType } from "../../src/formal/state.js";
import type { Changes, Evaluation, WorldState } from "../../src/formal/state.js";

export interface SearchOutcome {
  /** A shortest plan, when one was found within the bound. */
  plan?: string[];
  /** States taken off the queue. */
  expanded: number;
}

interface GroundStep {
  action: FormalAction;
  bindings: Map<string, string>;
  text: string;
}

/** Every ground step of the model's runnable actions, arguments ranging over their types. */
export function groundSteps(model: FormalModel): GroundStep[] {
  const steps: GroundStep[] = [];
  for (const action of model.actions) {
    if (action.informal.length > 0) continue;
    const go = (i: number, args: string[]): void => {
      const p = action.parameters[i];
      if (p === undefined) {
        const bindings = new Map(action.parameters.map((q, k) => [q.name, args[k] as string]));
        steps.push({ action, bindings, text: `${action.name}(${args.join(", ")})` });
        return;
      }
      for (const o of objectsOfType(model.objects, p.type)) go(i + 1, [...args, o.symbol]);
    };
    go(0, []);
  }
  return steps;
}

function stateKey(state: WorldState): string {
  const facts = [...state.facts].sort().join("|");
  const fluents = [...state.fluents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join("|");
  return `${facts}#${fluents}`;
}

/** The state after `step`, or undefined when it is not applicable (or cannot be computed). */
function successor(model: FormalModel, state: WorldState, step: GroundStep): WorldState | undefined {
  const ev: Evaluation = { state, objects: model.objects, budget: { left: Number.POSITIVE_INFINITY } };
  try {
    for (const pre of step.action.preconditions) if (!evaluate(pre, step.bindings, ev).holds) return undefined;
    const changes: Changes = { adds: new Set(), deletes: new Set(), updates: [] };
    for (const eff of step.action.effects) collectChanges(eff, step.bindings, ev, changes);
    return applyChanges(state, changes);
  } catch {
    return undefined;
  }
}

function allHold(model: FormalModel, state: WorldState, statements: FormalModel["goals"]): boolean {
  const ev: Evaluation = { state, objects: model.objects, budget: { left: Number.POSITIVE_INFINITY } };
  try {
    return statements.every((s) => evaluate(s.condition, new Map(), ev).holds);
  } catch {
    return false;
  }
}

/** A shortest plan reaching every formal goal with every formal constraint kept, within `maxStates` expansions. */
export function breadthFirstPlan(model: FormalModel, maxStates = 2_000_000): SearchOutcome {
  const steps = groundSteps(model);
  const start = initialWorld(model.initialState);
  if (!allHold(model, start, model.constraints)) return { expanded: 0 };
  const parent = new Map<string, { from: string; step: string } | null>([[stateKey(start), null]]);
  let frontier: { key: string; state: WorldState }[] = [{ key: stateKey(start), state: start }];
  let expanded = 0;
  const planTo = (key: string): string[] => {
    const plan: string[] = [];
    for (let link = parent.get(key); link; link = parent.get(link.from)) plan.unshift(link.step);
    return plan;
  };
  if (allHold(model, start, model.goals)) return { plan: [], expanded };
  while (frontier.length > 0 && expanded < maxStates) {
    const next: typeof frontier = [];
    for (const { key, state } of frontier) {
      expanded += 1;
      for (const step of steps) {
        const after = successor(model, state, step);
        if (after === undefined) continue;
        const afterKey = stateKey(after);
        if (parent.has(afterKey) || !allHold(model, after, model.constraints)) continue;
        parent.set(afterKey, { from: key, step: step.text });
        if (allHold(model, after, model.goals)) return { plan: planTo(afterKey), expanded };
        next.push({ key: afterKey, state: after });
      }
    }
    frontier = next;
  }
  return { expanded };
}
