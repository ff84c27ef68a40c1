/**
 * The heuristic search (src/planning/solver/heuristic) on its own and inside the reference planner:
 * every plan it answers is valid by the simulator, reachability keeps grounding small on real
 * problems, it knows a goal out of reach, it stops at its deadline, and the planner proves
 * its plan shortest with the SMT search where the model is small.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FormalModel } from "../../../src/formal/model.js";
import { simulatePlan } from "../../../src/formal/simulate.js";
import { importPddl } from "../../../src/planning/pddl-import/index.js";
import { searchHeuristicPlan } from "../../../src/planning/solver/heuristic/index.js";
import type { HeuristicOutcome } from "../../../src/planning/solver/heuristic/index.js";
import { groundTask } from "../../../src/planning/solver/heuristic/ground-task.js";
import { createPlanner } from "../../../src/planning/solver/index.js";
import type { Planner } from "../../../src/planning/solver/index.js";
import { fixture, modelOf } from "../../formal/helpers.js";
import { ipcProblems } from "../pddl-import/ipc.js";
import { LAMPS, ROOMS, SCALES, TANKS, modelFrom } from "./models.js";

const SOON = (): number => Date.now() + 20_000;

function imported(folder: string, index: number): FormalModel {
  const problem = ipcProblems(folder, index + 1)[index];
  if (problem === undefined) throw new Error(`no problem ${index} in ${folder}`);
  const result = importPddl(problem.domain, problem.problem);
  if (!result.ok) throw new Error(result.refusal.message);
  return result.model;
}

function planOf(outcome: HeuristicOutcome, model: FormalModel): string[] {
  if (outcome.kind !== "plan") throw new Error(`expected a plan, got ${JSON.stringify(outcome)}`);
  // The search's own check and an independent run of the simulator agree.
  expect(outcome.verification.verdict).toBe("valid");
  expect(simulatePlan(model, outcome.plan).verdict).toBe("valid");
  return outcome.plan;
}

describe("the heuristic search on the project's formal models", () => {
  it.each([
    ["Blocksworld", () => modelOf(fixture("blocksworld.ttl"))],
    ["Tanks (when effects, a fluent read behind a short-circuit)", () => modelFrom(TANKS)],
    ["Rooms (exists/forall, forall effects, division)", () => modelFrom(ROOMS)],
    ["Lamps", () => modelFrom(LAMPS)],
    ["Scales (scale-up, scale-down)", () => modelFrom(SCALES)],
  ])("%s: a plan the simulator calls valid", async (_name, make) => {
    const model = make();
    expect(planOf(await searchHeuristicPlan(model, { deadline: SOON() }), model).length).toBeGreaterThan(0);
  });

  it("knows when the goal is out of reach, and when the initial state breaks a constraint", async () => {
    const never = modelFrom({ objects: ["s"], actions: [{ name: "fix", eff: ["(not (bad))"] }], goals: ["(fixed)"] });
    expect(await searchHeuristicPlan(never, { deadline: SOON() })).toMatchObject({ kind: "no-plan", reason: "the goal cannot be reached even when deletes are ignored" });
    const broken = modelFrom({ objects: ["s"], init: "(bad)", actions: [{ name: "fix", eff: ["(not (bad))"] }], constraints: ["(not (bad))"], goals: ["(fixed)"] });
    expect(await searchHeuristicPlan(broken, { deadline: SOON() })).toMatchObject({ kind: "no-plan", reason: "the initial state already breaks a constraint" });
  });

  it("searches every reachable state before it says no plan exists", async () => {
    // Relaxed, the goal is in reach (deletes ignored); really, the one token is used up.
    const model = modelFrom({
      objects: ["a: Room", "b: Room", "c: Room"],
      init: "(token) (at a)",
      actions: [{ name: "go", params: ["?f - Room", "?t - Room"], pre: ["(and (at ?f) (token))"], eff: ["(and (not (at ?f)) (at ?t) (not (token)))"] }],
      goals: ["(and (at b) (at c))"],
    });
    expect(await searchHeuristicPlan(model, { deadline: SOON() })).toMatchObject({ kind: "no-plan", reason: "every reachable state was searched" });
  });

  it("gives up at its deadline", async () => {
    const outcome = await searchHeuristicPlan(imported("ipc-2000-blocks-strips-typed", 101), { deadline: Date.now() + 300 });
    expect(outcome).toMatchObject({ kind: "gave-up", reason: "the time limit was reached" });
  });

  it("stops when asked to", async () => {
    let asked = 0;
    const outcome = await searchHeuristicPlan(imported("ipc-2000-blocks-strips-typed", 101), { deadline: SOON(), stopped: () => ++asked > 2 });
    expect(outcome).toMatchObject({ kind: "gave-up", reason: "the search was stopped" });
  });
});

describe("grounding by reachability", () => {
  it("builds only the action instances the initial state can lead to", () => {
    // Doors lead on from a to d, and among w…z; nobody can ever stand in w, x or y.
    const model = modelFrom({
      objects: ["a: Room", "b: Room", "c: Room", "d: Room", "w: Room", "x: Room", "y: Room", "z: Room"],
      init: "(at a) (door a b) (door b c) (door c d) (door w x) (door x y) (door y z)",
      actions: [{ name: "go", params: ["?f - Room", "?t - Room"], pre: ["(and (at ?f) (door ?f ?t))"], eff: ["(and (not (at ?f)) (at ?t))"] }],
      goals: ["(at d)"],
    });
    const grounded = groundTask(model);
    expect(grounded.ok).toBe(true);
    if (grounded.ok) expect(grounded.task.ops.map((op) => op.step)).toEqual(["(go a b)", "(go b c)", "(go c d)"]);
  });

  it("keeps grounding small on a real problem", () => {
    const model = imported("ipc-2002-depots-strips-automatic", 5);
    const grounded = groundTask(model);
    expect(grounded.ok).toBe(true);
    if (!grounded.ok) return;
    // Every combination of parameters over the objects of their types, as the SMT grounding counts them.
    const product = model.actions.reduce((sum, a) => sum + a.parameters.reduce((n, p) => n * model.objects.filter((o) => p.type === undefined || o.types.includes(p.type)).length, 1), 0);
    expect(grounded.task.ops.length * 2).toBeLessThan(product);
  });
});

describe("the heuristic search on competition problems (IPC, imported from PDDL)", () => {
  it.each([
    ["ipc-1998-gripper-round-1-strips", 4],
    ["ipc-2000-logistics-strips-typed", 5],
    ["ipc-2000-blocks-strips-typed", 10],
    ["ipc-2002-depots-strips-automatic", 1],
    ["ipc-2002-rovers-numeric-automatic", 2],
    ["ipc-2002-zenotravel-numeric-automatic", 3],
    ["ipc-2023-numeric-counters", 2],
    ["ipc-2023-numeric-sailing", 0],
  ])("%s, problem %i: a valid plan", async (folder, index) => {
    const model = imported(folder, index);
    planOf(await searchHeuristicPlan(model, { deadline: SOON() }), model);
  });

  it("never answers a plan the simulator rejects, on generated counter problems", async () => {
    // Counters: random start values and random orderings asked for; some have no plan within the maximum.
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 2, maxLength: 4 }), fc.integer({ min: 3, max: 8 }), async (values, max) => {
        const names = values.map((_, i) => `c${i}`);
        const domain = `(define (domain counters) (:types counter) (:functions (value ?c - counter) (max_int))
          (:action increment :parameters (?c - counter) :precondition (<= (+ (value ?c) 1) (max_int)) :effect (increase (value ?c) 1))
          (:action decrement :parameters (?c - counter) :precondition (>= (value ?c) 1) :effect (decrease (value ?c) 1)))`;
        const goal = names.slice(1).map((n, i) => `(<= (+ (value ${names[i] as string}) 1) (value ${n}))`).join(" ");
        const problem = `(define (problem p) (:domain counters) (:objects ${names.join(" ")} - counter)
          (:init (= (max_int) ${max}) ${values.map((v, i) => `(= (value c${i}) ${Math.min(v, max)})`).join(" ")}) (:goal (and ${goal})))`;
        const result = importPddl(domain, problem);
        if (!result.ok) throw new Error(result.refusal.message);
        const outcome = await searchHeuristicPlan(result.model, { deadline: SOON() });
        if (outcome.kind === "plan") expect(simulatePlan(result.model, outcome.plan).verdict).toBe("valid");
        // A strictly increasing row of n values from 0 needs max ≥ n − 1; without it, no plan.
        const solvable = max >= names.length - 1;
        expect(outcome.kind).toBe(solvable ? "plan" : "no-plan");
      }),
      { seed: 30, numRuns: 25 },
    );
  });
});

describe("the reference planner: heuristic search, then shorter horizons by SMT", () => {
  let planner: Planner;
  beforeAll(async () => {
    planner = await createPlanner();
  });
  afterAll(async () => {
    await planner.close();
  });

  it("proves the plan shortest on a small model, as the SMT search alone finds it", async () => {
    const model = modelOf(fixture("blocksworld.ttl"));
    const both = await planner.solve(model);
    const smt = await planner.solve(model, { method: "smt" });
    expect(both).toMatchObject({ kind: "plan", shortest: true });
    expect(smt).toMatchObject({ kind: "plan", method: "smt", shortest: true });
    if (both.kind !== "plan" || smt.kind !== "plan") return;
    expect(both.plan.length).toBe(smt.plan.length);
  });

  it("answers a long plan found by heuristic search, not known to be shortest, where SMT has no time", async () => {
    const model = imported("ipc-1998-gripper-round-1-strips", 6);
    const outcome = await planner.solve(model, { maxSteps: 3 });
    expect(outcome).toMatchObject({ kind: "plan", method: "heuristic", shortest: false });
    if (outcome.kind === "plan") expect(outcome.plan.length).toBeGreaterThan(30);
  });
});
