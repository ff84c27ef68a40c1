/**
 * Plan simulation: the verdict of docs/protocol.md ("Verdicts") for one proposal's plan against
 * the formal model. Pure, deterministic and bounded; it never throws.
 *
 * Where docs/protocol.md is silent, the simulator decides:
 * - "unverifiable" when the model has no runnable formal action, no formal constraint and no
 *   formal goal; when a step names an action kept out of simulation (free text, ambiguous);
 *   when a step names an unknown action and the model has no runnable action at all; and
 *   when a bound (steps, objects, quantifier instances) is hit.
 * - "invalid" for a malformed step, an unknown action or object, a wrong number or type of
 *   arguments, a false precondition, a broken constraint, a goal not reached, a fluent read
 *   or increased (decreased, scaled) before it has a value, and a division by zero (a
 *   `scale-down` by zero included).
 * - Preconditions are checked in the order written; the first false one is reported. A
 *   false `or` or `exists` is itself the smallest false part; `imply` blames its consequent.
 * - Effects: all computed in the state before the step (`when` conditions and numeric values
 *   included), then deletes, then adds, then numeric updates in written order.
 * - With no formal goal, a plan can still be valid; its reason says the model states none.
 */
import { formatCondition } from "./format.js";
import type { FormalAction, FormalModel, FormalStatement } from "./model.js";
import { parsePlanStep } from "./plan-step.js";
import { SimulationStop, applyChanges, collectChanges, evaluate, hasType, initialWorld } from "./state.js";
import type { Changes, Evaluation, WorldState } from "./state.js";

export type Verdict = "valid" | "invalid" | "unverifiable";

/** The `verification` docs/protocol.md adds to a solution. */
export interface Verification {
  verdict: Verdict;
  /** One readable sentence. */
  reason: string;
  /** 1-based failing step; 0 for the initial state, plan length + 1 for a goal not reached. */
  step?: number;
  /** The smallest false formal sub-expression, arguments filled in. */
  failed?: string;
  /** One short line per state visited. */
  trace?: string[];
  /** Where the proposal's own claims (success, goals satisfied) contradict the check. */
  refutedClaim?: string;
}

export interface SimulationLimits {
  maxSteps: number;
  maxObjects: number;
  /** Quantifier instances over the whole plan. */
  maxExpansions: number;
}

export const DEFAULT_SIMULATION_LIMITS: SimulationLimits = { maxSteps: 1_000, maxObjects: 5_000, maxExpansions: 1_000_000 };

/** A trace line is cut here: the trace is an overview, the verdict carries the detail. */
const TRACE_LINE = 160;

/**
 * Simulates `plan` on `model`: every step applicable in turn, every formal constraint true in
 * every state (the initial one included), every formal goal true at the end.
 */
export function simulatePlan(model: FormalModel, plan: readonly string[], limits: Partial<SimulationLimits> = {}): Verification {
  const bounds = { ...DEFAULT_SIMULATION_LIMITS, ...limits };
  const runnable = model.actions.filter((a) => a.informal.length === 0);
  if (runnable.length === 0 && model.constraints.length === 0 && model.goals.length === 0) {
    return {
      verdict: "unverifiable",
      reason: `The model has no formal action, constraint or goal to check the plan against${informalNote(model)}.`,
    };
  }
  if (plan.length > bounds.maxSteps) {
    return { verdict: "unverifiable", reason: `The plan has ${plan.length} steps, more than the ${bounds.maxSteps} the check simulates.` };
  }
  if (model.objects.length > bounds.maxObjects) {
    return { verdict: "unverifiable", reason: `The model has ${model.objects.length} objects, more than the ${bounds.maxObjects} the check handles.` };
  }
  // Plans come from agents' JSON: a step that is not text is shown as JSON and reported malformed.
  const steps = plan.map((s: unknown) => (typeof s === "string" ? s : String(JSON.stringify(s))));
  const trace: string[] = [];
  const budget = { left: bounds.maxExpansions };
  let state = initialWorld(model.initialState);
  let at = 0;
  try {
    trace.push(`0 initial state: ${count(state.facts.size, "fact")}, ${count(state.fluents.size, "fluent")}`);
    const broken = violatedConstraint(model, state, budget);
    if (broken !== undefined) return constraintVerdict(broken, 0, "in the initial state", trace);
    for (const [index, text] of steps.entries()) {
      at = index + 1;
      const outcome = runStep(model, runnable, state, text, at, budget);
      if ("verdict" in outcome) {
        trace.push(line(`${at} ${text}: ${outcome.failed ?? outcome.verdict}`));
        return { ...outcome, trace };
      }
      state = outcome.state;
      trace.push(line(`${at} ${text}: ${outcome.summary}`));
      const violated = violatedConstraint(model, state, budget);
      if (violated !== undefined) return constraintVerdict(violated, at, `after step ${at} (${text.trim()})`, trace);
    }
    at = plan.length + 1;
    const ev: Evaluation = { state, objects: model.objects, budget };
    for (const goal of model.goals) {
      const outcome = evaluate(goal.condition, new Map(), ev);
      if (!outcome.holds) {
        return {
          verdict: "invalid",
          reason: `After the last step the goal ${goal.text} is not reached: ${outcome.failed} is false${detail(outcome.detail)}.`,
          step: at,
          failed: outcome.failed,
          trace,
        };
      }
    }
    return { verdict: "valid", reason: validReason(model, plan.length), trace };
  } catch (e) {
    if (e instanceof SimulationStop && e.kind === "invalid") {
      return { verdict: "invalid", reason: `${where(at, plan.length)}, ${e.message}.`, step: at, failed: e.failed, trace };
    }
    if (e instanceof SimulationStop) {
      return { verdict: "unverifiable", reason: `The check stopped ${where(at, plan.length).toLowerCase()}: ${e.message}.`, step: at, trace };
    }
    return { verdict: "unverifiable", reason: `The check failed ${where(at, plan.length).toLowerCase()} (${String(e)}).`, step: at, trace };
  }
}

type StepOutcome = Verification | { state: WorldState; summary: string };

function runStep(model: FormalModel, runnable: FormalAction[], state: WorldState, text: string, at: number, budget: { left: number }): StepOutcome {
  const step = parsePlanStep(text);
  if (step === undefined) {
    return invalid(at, `Step ${at} "${text.trim()}" is not of the form name(arg, …) or (name arg …).`);
  }
  const named = model.actions.filter((a) => a.name === step.action);
  if (named.length === 0) {
    // With no action to simulate at all, an unknown name says nothing about the plan.
    if (runnable.length === 0) return { verdict: "unverifiable", reason: `Step ${at} names ${step.action}, and the model has no formal action to simulate it with.`, step: at };
    return invalid(at, `Step ${at} names ${step.action}, which is no action of the model.`);
  }
  const action = named[0] as FormalAction;
  if (named.length > 1 || action.informal.length > 0) {
    return { verdict: "unverifiable", reason: `Step ${at} uses ${step.action}, which cannot be simulated: ${action.informal.join("; ")}.`, step: at };
  }
  if (step.args.length !== action.parameters.length) {
    return invalid(at, `Step ${at} gives ${step.action} ${step.args.length} argument${step.args.length === 1 ? "" : "s"}; it takes ${action.parameters.length}.`);
  }
  const bindings = new Map<string, string>();
  for (const [i, parameter] of action.parameters.entries()) {
    const symbol = step.args[i] as string;
    const object = model.objects.find((o) => o.symbol === symbol);
    if (object === undefined) return invalid(at, `Step ${at} names ${symbol}, which is no object of the model.`);
    if (!hasType(object, parameter.type)) {
      return invalid(at, `Step ${at} passes ${symbol} as ${parameter.name}, which must be of type ${parameter.type ?? "object"}; ${symbol} is ${object.types.length === 0 ? "untyped" : `of type ${object.types.join(" and ")}`}.`);
    }
    bindings.set(parameter.name, symbol);
  }
  const ev: Evaluation = { state, objects: model.objects, budget };
  for (const pre of action.preconditions) {
    const outcome = evaluate(pre, bindings, ev);
    if (!outcome.holds) {
      return { ...invalid(at, `Step ${at} (${text.trim()}) is not applicable: its precondition ${outcome.failed} is false${detail(outcome.detail)}.`), failed: outcome.failed };
    }
  }
  const changes: Changes = { adds: new Set(), deletes: new Set(), updates: [] };
  for (const eff of action.effects) collectChanges(eff, bindings, ev, changes);
  const next = applyChanges(state, changes);
  const summary = [
    ...[...changes.adds].filter((a) => !state.facts.has(a)).map((a) => `+(${a})`),
    ...[...changes.deletes].filter((d) => state.facts.has(d) && !changes.adds.has(d)).map((d) => `-(${d})`),
    ...changes.updates.map((u) => `${u.text}=${next.fluents.get(u.key) ?? "?"}`),
  ].join(" ");
  return { state: next, summary: summary === "" ? "no change" : summary };
}

function violatedConstraint(model: FormalModel, state: WorldState, budget: { left: number }): { constraint: FormalStatement; failed: string; detail?: string } | undefined {
  const ev: Evaluation = { state, objects: model.objects, budget };
  for (const constraint of model.constraints) {
    const outcome = evaluate(constraint.condition, new Map(), ev);
    if (!outcome.holds) return { constraint, failed: outcome.failed, ...(outcome.detail === undefined ? {} : { detail: outcome.detail }) };
  }
  return undefined;
}

function constraintVerdict(v: { constraint: FormalStatement; failed: string; detail?: string }, step: number, when: string, trace: string[]): Verification {
  const whole = formatCondition(v.constraint.condition);
  const part = whole === v.failed ? "" : `: ${v.failed} is false`;
  return {
    verdict: "invalid",
    reason: `The constraint ${whole} does not hold ${when}${part}${detail(v.detail)}.`,
    step,
    failed: v.failed,
    trace,
  };
}

function invalid(step: number, reason: string): Verification {
  return { verdict: "invalid", reason, step };
}

function detail(text: string | undefined): string {
  return text === undefined ? "" : ` (${text})`;
}

function where(at: number, length: number): string {
  if (at === 0) return "In the initial state";
  if (at > length) return "At the goal check";
  return `At step ${at}`;
}

function line(text: string): string {
  return text.length <= TRACE_LINE ? text : `${text.slice(0, TRACE_LINE - 1)}…`;
}

function informalNote(model: FormalModel): string {
  const n = model.notMachineCheckable.length;
  return n === 0 ? "" : ` (${n} free-text part${n === 1 ? " is" : "s are"} not machine-checkable)`;
}

function validReason(model: FormalModel, steps: number): string {
  const parts = [`all ${steps} step${steps === 1 ? " is" : "s are"} applicable`];
  if (model.constraints.length > 0) parts.push(`${model.constraints.length} constraint${model.constraints.length === 1 ? " holds" : "s hold"} in every state`);
  parts.push(model.goals.length > 0 ? `${model.goals.length} goal${model.goals.length === 1 ? " holds" : "s hold"} at the end` : "the model states no formal goal");
  const last = parts.pop() as string;
  const text = parts.length === 0 ? last : `${parts.join(", ")} and ${last}`;
  return `${text[0]?.toUpperCase() ?? ""}${text.slice(1)}.`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
