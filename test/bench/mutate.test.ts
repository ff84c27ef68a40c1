import { describe, expect, it } from "vitest";
import { MUTATION_KINDS, mutatePlan, mutatePlans } from "../../bench/verification/mutate.js";
import { seededRandom } from "../../bench/verification/prng.js";

const PLAN = ["unstack(c, a)", "put-down(c)", "pick-up(a)", "stack(a, b)"];
const OTHER = ["book(ann, s0900, lee)", "book(bob, s1000, kim)"];
const OBJECTS = ["a", "b", "c", "table", "ann", "bob", "lee", "kim", "s0900", "s1000"];

describe("the mutation generator", () => {
  it("is deterministic: one seed, one list of mutated plans", () => {
    const first = mutatePlans([PLAN, OTHER], OBJECTS, { seed: 42, count: 100 });
    expect(mutatePlans([PLAN, OTHER], OBJECTS, { seed: 42, count: 100 })).toEqual(first);
    expect(first).toHaveLength(100);
    expect(mutatePlans([PLAN, OTHER], OBJECTS, { seed: 43, count: 100 })).not.toEqual(first);
  });

  it("makes every kind, never giving back the source plan", () => {
    const mutants = mutatePlans([PLAN, OTHER], OBJECTS, { seed: 1, count: 120 });
    expect(new Set(mutants.map((m) => m.kind))).toEqual(new Set(MUTATION_KINDS));
    for (const m of mutants) expect(m.plan).not.toEqual([PLAN, OTHER][m.source]);
  });

  it.each(MUTATION_KINDS)("%s changes the plan as its name says", (kind) => {
    const random = seededRandom(5);
    for (let i = 0; i < 50; i += 1) {
      const plan = mutatePlan(PLAN, kind, OBJECTS, random) as string[];
      expect(plan).toBeDefined();
      switch (kind) {
        case "drop":
          expect(plan).toHaveLength(PLAN.length - 1);
          expect(PLAN.some((_, k) => PLAN.filter((__, j) => j !== k).join("|") === plan.join("|"))).toBe(true);
          break;
        case "swap-adjacent":
        case "swap-any":
          expect([...plan].sort()).toEqual([...PLAN].sort());
          expect(plan.filter((s, k) => s !== PLAN[k]).length).toBe(2);
          if (kind === "swap-adjacent") {
            const changed = plan.flatMap((s, k) => (s !== PLAN[k] ? [k] : []));
            expect((changed[1] as number) - (changed[0] as number)).toBe(1);
          }
          break;
        case "duplicate":
          expect(plan).toHaveLength(PLAN.length + 1);
          expect(plan.some((s, k) => s === plan[k + 1])).toBe(true);
          break;
        case "replace-argument":
          expect(plan).toHaveLength(PLAN.length);
          expect(plan.filter((s, k) => s !== PLAN[k]).length).toBeLessThanOrEqual(1);
          break;
        case "truncate":
          expect(plan.length).toBeLessThan(PLAN.length);
          expect(plan).toEqual(PLAN.slice(0, plan.length));
          break;
      }
    }
  });

  it("leaves what it cannot mutate alone", () => {
    const random = seededRandom(1);
    expect(mutatePlan([], "drop", OBJECTS, random)).toBeUndefined();
    expect(mutatePlan(["act()"], "swap-any", OBJECTS, random)).toBeUndefined();
    expect(mutatePlan(["act()", "act()"], "replace-argument", OBJECTS, random)).toBeUndefined();
    expect(mutatePlans([], OBJECTS, { seed: 1, count: 10 })).toEqual([]);
  });
});
