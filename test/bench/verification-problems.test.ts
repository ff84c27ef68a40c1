/**
 * The verification benchmark's problems (bench/problems/): each is a sound, wholly formal
 * model, and the simulator agrees with every known plan's label.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { simulatePlan } from "../../src/formal/simulate.js";
import type { ModelAnalysis } from "../../src/analysis/analysis.js";
import { directCheck } from "../../bench/verification/direct-checks.js";
import { BLOCKSWORLD_SIZES, generateBlocksworld, plansText } from "../../bench/verification/generate-blocksworld.js";
import { mutatePlans } from "../../bench/verification/mutate.js";
import { INVALID_KINDS, PROBLEM_NAMES, analyseProblem, loadBenchShapes, problemsDirectory, readPlans, readProblemText } from "../../bench/verification/problems.js";

const shapes = loadBenchShapes();
const analyses = new Map<string, Promise<ModelAnalysis>>();
function analysis(name: string): Promise<ModelAnalysis> {
  let a = analyses.get(name);
  if (a === undefined) {
    a = analyseProblem(name, readProblemText(name), shapes);
    analyses.set(name, a);
  }
  return a;
}

describe.each(PROBLEM_NAMES)("benchmark problem %s", (name) => {
  const plans = readPlans(name);

  it("conforms to the MFR shapes, without warnings, and is formal throughout", async () => {
    const a = await analysis(name);
    expect(a.parseErrors).toEqual([]);
    expect(a.validation.results).toEqual([]);
    expect(a.validation.conforms).toBe(true);
    expect(a.formal.findings).toEqual([]);
    expect(a.formal.notMachineCheckable).toEqual([]);
    expect(a.formal.actions.length).toBeGreaterThan(0);
    expect(a.formal.actions.filter((x) => x.informal.length > 0)).toEqual([]);
    expect(a.formal.constraints.length).toBeGreaterThan(0);
    expect(a.formal.goals.length).toBeGreaterThan(0);
  });

  it("has a valid plan and at least 8 labelled invalid plans covering every kind", () => {
    expect(plans.valid.length).toBeGreaterThan(0);
    expect(plans.invalid.length).toBeGreaterThanOrEqual(8);
    expect(new Set(plans.invalid.map((p) => p.kind))).toEqual(new Set(INVALID_KINDS));
    for (const p of plans.invalid) {
      expect(p.step).toBeGreaterThanOrEqual(1);
      expect(p.step).toBeLessThanOrEqual(p.plan.length + 1);
      expect(p.why.length).toBeGreaterThan(20);
      // A goal-kind plan fails at the goal check, any other before it.
      if (p.kind === "goal") expect(p.step).toBe(p.plan.length + 1);
    }
  });

  it.each(plans.valid.map((plan, i) => [i + 1, plan] as const))("valid plan %i is valid", async (_i, plan) => {
    const v = simulatePlan((await analysis(name)).formal, plan);
    expect(v.reason).toMatch(/^All \d+ steps are applicable/);
    expect(v.verdict).toBe("valid");
  });

  it.each(plans.invalid.map((p, i) => [i + 1, p.kind, p.step, p] as const))("invalid plan %i (%s) fails at step %i", async (_i, _kind, step, p) => {
    const v = simulatePlan((await analysis(name)).formal, p.plan);
    expect(v).toMatchObject({ verdict: "invalid", step });
  });
});

describe.each(PROBLEM_NAMES)("the direct check of %s", (name) => {
  const plans = readPlans(name);
  const direct = directCheck(name);

  it("agrees with every label (a second derivation, without the simulator)", () => {
    expect(direct).toBeDefined();
    const check = direct as NonNullable<typeof direct>;
    for (const plan of plans.valid) expect(check(plan)).toBeUndefined();
    for (const p of plans.invalid) expect(check(p.plan)?.step).toBe(p.step);
  });

  it("agrees with the simulator on mutated plans, verdict and step", async () => {
    const check = direct as NonNullable<typeof direct>;
    const formal = (await analysis(name)).formal;
    const mutants = mutatePlans(plans.valid, formal.objects.map((o) => o.symbol), { seed: 11, count: 300 });
    const disagreements = mutants.flatMap(({ plan }) => {
      const v = simulatePlan(formal, plan);
      const second = check(plan);
      const same = second === undefined ? v.verdict === "valid" : v.verdict === "invalid" && v.step === second.step;
      return same ? [] : [{ plan, simulator: [v.verdict, v.step, v.reason], direct: second }];
    });
    expect(disagreements).toEqual([]);
  });
});

describe("the Blocksworld generator", () => {
  it.each(BLOCKSWORLD_SIZES)("gives the committed blocksworld-%i files", (n) => {
    const { turtle, plans } = generateBlocksworld(n);
    expect(turtle).toBe(readFileSync(`${problemsDirectory()}blocksworld-${n}.ttl`, "utf8"));
    expect(plansText(plans)).toBe(readFileSync(`${problemsDirectory()}blocksworld-${n}.plans.json`, "utf8"));
  });
});
