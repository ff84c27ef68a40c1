/**
 * The two-literal invariants the encoding adds must hold in every state a valid execution
 * reaches, or the planner would miss plans: checked on random executions replayed with the
 * simulator's own state functions.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { FormalModel } from "../../../src/formal/model.js";
import { parsePlanStep } from "../../../src/formal/plan-step.js";
import { simulatePlan } from "../../../src/formal/simulate.js";
import { applyChanges, collectChanges, initialWorld } from "../../../src/formal/state.js";
import type { Changes } from "../../../src/formal/state.js";
import { groundModel } from "../../../src/planning/solver/grounding.js";
import { atomOf, isNegated } from "../../../src/planning/solver/invariants.js";
import { fixture, modelOf } from "../../formal/helpers.js";
import { LAMPS, ROOMS, TANKS, modelFrom } from "./models.js";

/** Every ground step of the model, as `(name a b)`. */
function allSteps(model: FormalModel): string[] {
  return model.actions.flatMap((a) => {
    let combos: string[][] = [[]];
    for (let i = 0; i < a.parameters.length; i += 1) combos = combos.flatMap((c) => model.objects.map((o) => [...c, o.symbol]));
    return combos.map((args) => `(${[a.name, ...args].join(" ")})`);
  });
}

/** The facts of each state an applicable plan goes through, by the simulator's state functions. */
function factsAlong(model: FormalModel, plan: readonly string[]): ReadonlySet<string>[] {
  let state = initialWorld(model.initialState);
  const all = [state.facts];
  for (const text of plan) {
    const step = parsePlanStep(text);
    const action = model.actions.find((a) => a.name === step?.action);
    if (step === undefined || action === undefined) throw new Error(`not a step: ${text}`);
    const bindings = new Map(action.parameters.map((p, i) => [p.name, step.args[i] as string]));
    const changes: Changes = { adds: new Set(), deletes: new Set(), updates: [] };
    for (const eff of action.effects) collectChanges(eff, bindings, { state, objects: model.objects, budget: { left: 1_000_000 } }, changes);
    state = applyChanges(state, changes);
    all.push(state.facts);
  }
  return all;
}

describe("two-literal invariants", () => {
  it.each([
    ["Blocksworld", () => modelOf(fixture("blocksworld.ttl")), 40],
    ["Tanks", () => modelFrom(TANKS), 0],
    ["Rooms", () => modelFrom(ROOMS), 1],
    ["Lamps", () => modelFrom(LAMPS), 0],
  ])("hold along random executions of %s", (_name, make, atLeast) => {
    const model = make();
    const grounded = groundModel(model);
    if (!grounded.ok) throw new Error(grounded.reason);
    const { atoms, invariants } = grounded.problem;
    expect(invariants.length).toBeGreaterThanOrEqual(atLeast);
    const steps = allSteps(model);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 10 }), (picks) => {
        // Each pick chooses, from its index on, the first step that runs (constraints kept).
        const plan: string[] = [];
        for (const pick of picks) {
          for (let k = 0; k < steps.length; k += 1) {
            const step = steps[(pick + k) % steps.length] as string;
            const v = simulatePlan(model, [...plan, step]);
            if (v.verdict === "valid" || v.step === plan.length + 2) {
              plan.push(step);
              break;
            }
          }
        }
        for (const facts of factsAlong(model, plan)) {
          for (const [l1, l2] of invariants) {
            const holds = (l: number): boolean => facts.has(atoms[atomOf(l)] as string) !== isNegated(l);
            expect(holds(l1) || holds(l2), `${plan.join(" ")}: invariant ${l1} ${l2}`).toBe(true);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
