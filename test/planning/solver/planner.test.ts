import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePlanStep } from "../../../src/formal/plan-step.js";
import { simulatePlan } from "../../../src/formal/simulate.js";
import type { FormalModel } from "../../../src/formal/model.js";
import { createPlanner } from "../../../src/planning/solver/index.js";
import type { PlanSearchOutcome, Planner } from "../../../src/planning/solver/index.js";
import { fixture, modelOf } from "../../formal/helpers.js";
import { LAMPS, ROOMS, SCALES, TANKS, modelFrom, turtleOf } from "./models.js";
import type { ModelSpec } from "./models.js";

let planner: Planner;
beforeAll(async () => {
  planner = await createPlanner();
});
afterAll(async () => {
  await planner.close();
});

const BLOCKS = fixture("blocksworld.ttl");

/** The plan of an outcome that must be one, after checking it is valid and reported as such. */
function planOf(outcome: PlanSearchOutcome, model: FormalModel): string[] {
  if (outcome.kind !== "plan") throw new Error(`expected a plan, got ${JSON.stringify(outcome)}`);
  expect(outcome.verification.verdict).toBe("valid");
  expect(simulatePlan(model, outcome.plan).verdict).toBe("valid");
  expect(outcome.horizonTried).toBe(outcome.plan.length);
  for (const step of outcome.plan) {
    expect(step).toMatch(/^\([a-z][a-z0-9_-]*( [^ ()]+)*\)$/);
    expect(parsePlanStep(step)).toBeDefined();
  }
  return outcome.plan;
}

function withSpec(spec: ModelSpec, change: Partial<ModelSpec>): FormalModel {
  return modelFrom({ ...spec, ...change });
}

describe("the Blocksworld fixture", () => {
  const model = modelOf(BLOCKS);

  it("gets a shortest plan, checked valid by the simulator", async () => {
    const outcome = await planner.solve(model);
    // The fixture's known valid plan has 4 steps, and no shorter one exists.
    expect(planOf(outcome, model)).toEqual(["(unstack c a)", "(put-down c)", "(pick-up a)", "(stack a b)"]);
    expect(outcome).toMatchObject({ kind: "plan", horizonTried: 4 });
  });

  it("finds no plan when the steps allowed are too few", async () => {
    const outcome = await planner.solve(model, { maxSteps: 3, method: "smt" });
    expect(outcome).toMatchObject({ kind: "no-plan", maxSteps: 3, reason: "no plan within 3 steps" });
  });

  it("finds no plan when an invariant forbids the goal", async () => {
    const forbidden = modelOf(`${BLOCKS}\n<#never> a mfr:Constraint ; mfr:constraintExpression "(not (on a b))" .`);
    const outcome = await planner.solve(forbidden, { maxSteps: 12, method: "smt" });
    expect(outcome.kind).toBe("no-plan");
    if (outcome.kind !== "no-plan") return;
    expect(outcome.reason).toMatch(/^no plan within 12 steps/);
    expect(outcome.maxSteps).toBe(12);
  });

  it("stops deepening once no longer execution exists (at most four lifts)", async () => {
    const forbidden = modelOf(`${BLOCKS}\n<#never> a mfr:Constraint ; mfr:constraintExpression "(not (on a b))" .`);
    const outcome = await planner.solve(forbidden, { maxSteps: 500, method: "smt" });
    expect(outcome.kind).toBe("no-plan");
    if (outcome.kind !== "no-plan") return;
    // Four lifts and four put-downs at most: no execution has 9 steps, which the search
    // notices at the next horizon where it asks (a power of two), long before 500.
    expect(outcome.reason).toBe("no plan within 500 steps (no sequence of 16 applicable steps keeps every constraint, so no longer plan exists either)");
  });

  it("gives up when the time is up", async () => {
    const outcome = await planner.solve(model, { timeoutMs: 1, method: "smt" });
    expect(outcome.kind).toBe("gave-up");
    if (outcome.kind === "gave-up") expect(outcome.reason).toMatch(/time limit/);
  });

  it("answers the empty plan when the goal already holds", async () => {
    const done = modelOf(BLOCKS.replace('mfr:expression "(and (on a b) (ontable c))"', 'mfr:expression "(on c a)"'));
    const outcome = await planner.solve(done);
    expect(planOf(outcome, done)).toEqual([]);
  });
});

describe("numbers", () => {
  const counter = (init: string, goal: string, eff: string[] = ["(increase (n) 2)"]): FormalModel =>
    modelFrom({
      objects: ["x: Thing"],
      init,
      actions: [
        { name: "up", eff },
        { name: "down", eff: ["(decrease (n) 1)"] },
        { name: "set", eff: ["(assign (n) (* (n) 3))"] },
      ],
      goals: [goal],
    });

  it.each([
    ["(= (n) 0)", "(= (n) 5)", 3],
    ["(= (n) 1)", "(= (n) 9)", 2],
    ["(= (n) 2)", "(< (n) 0)", 3],
    ["(= (n) 0)", "(and (>= (n) 4) (<= (n) 4))", 2],
  ])("from %s reaches %s in %i steps", async (init, goal, length) => {
    const model = counter(init, goal);
    expect(planOf(await planner.solve(model), model)).toHaveLength(length);
  });

  it("reads numeric effects in the state before the step (a swap)", async () => {
    const model = modelFrom({
      objects: ["x"],
      init: "(= (a) 1) (= (b) 10)",
      actions: [{ name: "swap", eff: ["(and (assign (a) (b)) (assign (b) (a)))"] }, { name: "double", eff: ["(assign (a) (* 2 (a)))"] }],
      goals: ["(and (= (a) 20) (= (b) 1))"],
    });
    expect(planOf(await planner.solve(model), model)).toEqual(["(swap)", "(double)"]);
  });

  it("applies updates of one step in written order", async () => {
    const model = modelFrom({
      objects: ["x"],
      init: "(= (n) 1)",
      actions: [{ name: "step", eff: ["(and (increase (n) 1) (assign (n) 7) (increase (n) 1))"] }],
      goals: ["(= (n) 8)"],
    });
    expect(planOf(await planner.solve(model), model)).toEqual(["(step)"]);
  });

  it("uses exact division, and treats a division by zero as failing", async () => {
    const model = modelFrom({
      objects: ["x"],
      init: "(= (d) 0)",
      actions: [{ name: "inc", eff: ["(increase (d) 1)"] }],
      // 10/0 fails in the simulator; Z3's x/0 is unconstrained, so the encoding must rule it out.
      goals: ["(> (/ 10 (d)) 4)"],
    });
    expect(planOf(await planner.solve(model), model)).toEqual(["(inc)"]);
    const half = modelFrom({ objects: ["x"], init: "(= (d) 1)", actions: [{ name: "inc", eff: ["(increase (d) 1)"] }], goals: ["(= (/ 5 (d)) 2.5)"] });
    expect(planOf(await planner.solve(half), half)).toEqual(["(inc)"]);
  });

  it("starts from the simulator's floating-point values (0.2 + 0.1 is not 0.3)", async () => {
    const spec: ModelSpec = {
      objects: ["x"],
      init: "(= (x) 0)",
      actions: [{ name: "set", eff: ["(assign (x) 0.2)"] }, { name: "tiny", eff: ["(assign (x) (/ 1 10000000))"] }],
      goals: ["(= (+ (x) 0.1) 0.3)"],
    };
    expect(await planner.solve(modelFrom(spec), { maxSteps: 3 })).toMatchObject({ kind: "no-plan" });
    const quarter = withSpec(spec, { actions: [{ name: "set", eff: ["(assign (x) 0.25)"] }], goals: ["(= (+ (x) 0.5) 0.75)"] });
    expect(planOf(await planner.solve(quarter), quarter)).toEqual(["(set)"]);
    const tiny = withSpec(spec, { goals: ["(and (> (x) 0) (< (x) 0.001))"] });
    expect(planOf(await planner.solve(tiny), tiny)).toEqual(["(tiny)"]);
  });

  it("gives a fluent with no initial value a value only by assign, as the simulator does", async () => {
    const spec: ModelSpec = {
      objects: ["x"],
      actions: [
        { name: "raise", eff: ["(increase (level) 3)"] },
        { name: "start", eff: ["(assign (level) 1)"] },
      ],
      goals: ["(>= (level) 6)"],
    };
    const model = modelFrom(spec);
    // raise alone fails on the unset fluent; start must come first.
    expect(planOf(await planner.solve(model), model)).toEqual(["(start)", "(raise)", "(raise)"]);
    const never = withSpec(spec, { actions: [{ name: "raise", eff: ["(increase (level) 3)"] }] });
    expect(await planner.solve(never, { maxSteps: 4, method: "smt" })).toMatchObject({ kind: "no-plan", reason: expect.stringMatching(/^no plan within 4 steps/) as unknown });
  });

  it("finds a plan that needs scale-up, shorter than counting up", async () => {
    const model = modelFrom({
      objects: ["x"],
      init: "(= (n) 3)",
      actions: [
        { name: "up", eff: ["(increase (n) 1)"] },
        { name: "double", eff: ["(scale-up (n) 2)"] },
      ],
      goals: ["(= (n) 24)"],
    });
    // 21 steps of (up) would do too; no 3-step plan with an (up) in it reaches 24.
    expect(planOf(await planner.solve(model), model)).toEqual(["(double)", "(double)", "(double)"]);
  });

  it("scales down exactly in Real arithmetic", async () => {
    const model = modelFrom({ objects: ["x"], init: "(= (n) 12)", actions: [{ name: "halve", eff: ["(scale-down (n) 2)"] }], goals: ["(= (n) 1.5)"] });
    expect(planOf(await planner.solve(model), model)).toEqual(["(halve)", "(halve)", "(halve)"]);
  });

  it("treats a scale-down by zero and a scaling of a fluent without value as failing", async () => {
    const model = modelFrom(SCALES);
    // (split) at once would divide 6 by 0, which Z3 leaves unconstrained: the encoding must
    // rule it out. The shortest valid plan makes (d) 2 first, and starts (m) before tripling it.
    const plan = planOf(await planner.solve(model), model);
    expect(plan).toHaveLength(5);
    expect(plan.filter((s) => s === "(bump)")).toHaveLength(2);
    expect(plan.indexOf("(split)")).toBeGreaterThan(plan.lastIndexOf("(bump)"));
    expect(plan.indexOf("(triple)")).toBeGreaterThan(plan.indexOf("(start)"));
    expect(await planner.solve(withSpec(SCALES, { actions: SCALES.actions.filter((a) => a.name !== "start") }), { maxSteps: 6 })).toMatchObject({
      kind: "no-plan",
    });
  });

  it("fails a `not` whose inner comparison reads a fluent without value", async () => {
    const model = modelFrom({
      objects: ["x"],
      actions: [{ name: "start", eff: ["(assign (t) 5)"] }, { name: "noop", eff: ["(mark x)"] }],
      // Without a value, (< (t) 0) fails rather than being false: the goal is not met at once.
      goals: ["(not (< (t) 0))"],
    });
    expect(planOf(await planner.solve(model), model)).toEqual(["(start)"]);
  });
});

describe("conditions and effects", () => {
  it("plans with `when` effects and a fluent read only behind a short-circuit", async () => {
    const model = modelFrom(TANKS);
    const plan = planOf(await planner.solve(model), model);
    expect(plan.length).toBeGreaterThan(0);
  });

  it("plans with exists/forall preconditions, forall effects and division", async () => {
    const model = modelFrom(ROOMS);
    const plan = planOf(await planner.solve(model), model);
    // Cleaning r3 with 1 energy left scores 1/2, not more than 0.5: a recharge comes first.
    // Shortest plans differ only in where the recharge goes (Z3 may return either under load).
    expect(plan).toHaveLength(6);
    expect(plan.filter((step) => step !== "(recharge)")).toEqual(["(move r1 r2)", "(clean r2)", "(move r2 r3)", "(clean r3)", "(seal)"]);
    expect(plan.indexOf("(recharge)")).toBeLessThan(plan.indexOf("(clean r3)"));
  });

  it("respects `=` on objects", async () => {
    const model = modelFrom({
      objects: ["a: Place", "b: Place"],
      init: "(at a)",
      actions: [{ name: "go", params: ["?f - Place", "?t - Place"], pre: ["(and (at ?f) (not (= ?f ?t)))"], eff: ["(and (not (at ?f)) (at ?t) (visited ?t))"] }],
      goals: ["(and (visited a) (at a))"],
    });
    expect(planOf(await planner.solve(model), model)).toEqual(["(go a b)", "(go b a)"]);
  });

  it("applies deletes before adds: an action may delete and re-add a fact", async () => {
    const model = modelFrom({
      objects: ["s: Slot"],
      init: "(free s)",
      actions: [{ name: "touch", params: ["?s - Slot"], pre: ["(free ?s)"], eff: ["(and (not (free ?s)) (free ?s) (touched ?s))"] }],
      goals: ["(and (free s) (touched s))"],
    });
    expect(planOf(await planner.solve(model), model)).toEqual(["(touch s)"]);
  });

  it("expands forall effects over typed objects only", async () => {
    const model = modelFrom({
      objects: ["s1: Slot", "s2: Slot", "ann: Patient"],
      actions: [{ name: "open", eff: ["(forall (?s - Slot) (free ?s))"] }, { name: "admit", params: ["?p - Patient"], eff: ["(free ?p)"] }],
      goals: ["(and (free s1) (free s2) (not (free ann)))"],
    });
    expect(planOf(await planner.solve(model), model)).toEqual(["(open)"]);
  });

  it("avoids a shorter route through a state a constraint forbids", async () => {
    const spec: ModelSpec = {
      objects: ["a: Room", "b: Room", "c: Room", "d: Room", "x: Room"],
      init: "(at a) (door a x) (door x d) (door a b) (door b c) (door c d)",
      actions: [{ name: "go", params: ["?f - Room", "?t - Room"], pre: ["(and (at ?f) (door ?f ?t))"], eff: ["(and (not (at ?f)) (at ?t))"] }],
      goals: ["(at d)"],
    };
    const open = modelFrom(spec);
    expect(planOf(await planner.solve(open), open)).toEqual(["(go a x)", "(go x d)"]);
    const guarded = withSpec(spec, { constraints: ["(not (at x))"] });
    expect(planOf(await planner.solve(guarded), guarded)).toEqual(["(go a b)", "(go b c)", "(go c d)"]);
  });

  it("checks constraints in the initial state", async () => {
    const model = modelFrom({ objects: ["s"], init: "(bad)", actions: [{ name: "fix", eff: ["(not (bad))"] }], constraints: ["(not (bad))"], goals: ["(fixed)"] });
    expect(await planner.solve(model, { method: "smt" })).toMatchObject({ kind: "no-plan", reason: "no plan within 30 steps (the initial state already breaks a constraint)" });
    // The heuristic search knows no plan of any length exists.
    expect(await planner.solve(model)).toMatchObject({ kind: "no-plan", proven: true, reason: "the initial state already breaks a constraint" });
    const fine = modelFrom({ objects: ["s"], actions: [{ name: "fix", eff: ["(not (bad))"] }], constraints: ["(not (bad))"], goals: ["(fixed)"] });
    expect(await planner.solve(fine, { method: "smt" })).toMatchObject({ kind: "no-plan", reason: "no plan within 30 steps (no action can ever make the goal true)" });
    expect(await planner.solve(fine)).toMatchObject({ kind: "no-plan", proven: true, reason: "the goal cannot be reached even when deletes are ignored" });
  });
});

/** The length of a shortest valid plan, by trying every applicable sequence with the simulator. */
function shortestBySimulation(model: FormalModel, maxLength: number): number | undefined {
  const steps = model.actions.flatMap((a) => {
    let combos: string[][] = [[]];
    for (let i = 0; i < a.parameters.length; i += 1) combos = combos.flatMap((c) => model.objects.map((o) => [...c, o.symbol]));
    return combos.map((args) => `(${[a.name, ...args].join(" ")})`);
  });
  let frontier: string[][] = [[]];
  for (let length = 0; length <= maxLength; length += 1) {
    const next: string[][] = [];
    for (const plan of frontier) {
      const v = simulatePlan(model, plan);
      if (v.verdict === "valid") return length;
      // Only prefixes that ran through (failing at the goal check at most) are extended.
      if (v.step === plan.length + 1) for (const step of steps) next.push([...plan, step]);
    }
    frontier = next;
  }
  return undefined;
}

describe("shortest plans", () => {
  it.each([
    ["Blocksworld", () => modelOf(BLOCKS)],
    ["Tanks", () => modelFrom(TANKS)],
    ["Rooms", () => modelFrom(ROOMS)],
    ["Lamps", () => modelFrom(LAMPS)],
  ])("%s: no applicable sequence shorter than the plan found reaches the goal", async (_name, make) => {
    const model = make();
    const plan = planOf(await planner.solve(model), model);
    expect(shortestBySimulation(model, plan.length)).toBe(plan.length);
  });
});

describe("what the planner does not attempt", () => {
  it("says a model too large to ground is too large", async () => {
    const objects = Array.from({ length: 12 }, (_, i) => `o${i}`);
    const model = modelFrom({
      objects,
      actions: [{ name: "mix", params: ["?a", "?b", "?c", "?d", "?e"], eff: ["(mixed ?a ?b ?c ?d ?e)"] }],
      goals: ["(mixed o1 o2 o3 o4 o5)"],
    });
    const outcome = await planner.solve(model, { method: "smt" });
    expect(outcome).toEqual({ kind: "cannot-help", reason: "the model is too large to plan with: grounding the actions gives 248832 ground actions, more than the 20000 the planner handles" });
  });

  it("says a model without a formal goal gives a plan nothing to reach", async () => {
    const model = modelFrom({ objects: ["s"], actions: [{ name: "go", eff: ["(done)"] }] });
    expect(await planner.solve(model)).toEqual({ kind: "cannot-help", reason: "the model states no formal goal, so a plan would have nothing to reach" });
  });

  it("says a model with only informal actions has nothing to plan with", async () => {
    const model = modelOf(turtleOf({ objects: ["s"], actions: [{ name: "go", informal: "the robot is ready", eff: ["(done)"] }], goals: ["(done)"] }));
    const outcome = await planner.solve(model);
    expect(outcome.kind).toBe("cannot-help");
    if (outcome.kind === "cannot-help") expect(outcome.reason).toMatch(/^no action can be used in a plan: none of its 1 actions is fully formal \(go: 1 of its 2/);
  });

  it("uses the formal actions of a model that also has informal ones", async () => {
    const model = modelOf(turtleOf({ objects: ["s"], actions: [{ name: "go", informal: "the robot is ready", eff: ["(done)"] }, { name: "walk", eff: ["(done)"] }], goals: ["(done)"] }));
    expect(planOf(await planner.solve(model), model)).toEqual(["(walk)"]);
  });
});
