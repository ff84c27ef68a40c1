import { describe, expect, it } from "vitest";
import { exactRational } from "../../../src/planning/solver/encoding.js";
import { groundModel } from "../../../src/planning/solver/grounding.js";
import { fixture, modelOf } from "../../formal/helpers.js";
import { modelFrom } from "./models.js";

describe("grounding", () => {
  it("keeps only ground actions that may apply, over objects of their types", () => {
    const grounded = groundModel(modelOf(fixture("blocksworld.ttl")));
    if (!grounded.ok) throw new Error(grounded.reason);
    const steps = grounded.problem.actions.map((a) => a.step);
    // Three blocks: 3 + 3 + 9 + 9 = 24 instances; the table is no block.
    expect(grounded.stats.groundActions).toBe(24);
    expect(steps.some((s) => s.includes("table"))).toBe(false);
    // (not (= ?x ?y)) rules out stacking a block on itself; nothing is ever on itself to unstack.
    expect(steps).not.toContain("(stack a a)");
    expect(steps).not.toContain("(unstack a a)");
    // (fragile c) never changes: a constant, not a state atom.
    expect(grounded.problem.atoms).not.toContain("fragile c");
    expect(grounded.problem.fluents.map((f) => [f.key, f.initial, f.definedness])).toEqual([["moves", 0, "always"]]);
  });

  it("folds a fluent no action updates into its value, and tells which fluents may lack one", () => {
    const grounded = groundModel(
      modelFrom({
        objects: ["x"],
        init: "(= (cap) 4)",
        actions: [
          { name: "set", eff: ["(assign (level) 1)"] },
          { name: "raise", pre: ["(< (level) (cap))"], eff: ["(and (increase (level) 1) (increase (other) 1))"] },
        ],
        goals: ["(= (level) (cap))"],
      }),
    );
    if (!grounded.ok) throw new Error(grounded.reason);
    expect(grounded.problem.fluents.map((f) => [f.key, f.definedness])).toEqual([
      ["level", "maybe"],
      ["other", "never"],
    ]);
    expect(grounded.problem.goal).toEqual({ kind: "compare", op: "=", left: { kind: "fluent", id: 0 }, right: { kind: "number", value: 4 } });
    expect(grounded.problem.real).toBe(false);
  });

  it("drops atoms no condition reads, with the effects on them", () => {
    const grounded = groundModel(
      modelFrom({ objects: ["x"], actions: [{ name: "go", eff: ["(and (done) (log x))"] }], goals: ["(done)"] }),
    );
    if (!grounded.ok) throw new Error(grounded.reason);
    expect(grounded.problem.atoms).toEqual(["done"]);
  });

  it("bounds quantifier expansion with a reason", () => {
    const objects = Array.from({ length: 30 }, (_, i) => `o${i}`);
    const model = modelFrom({ objects, actions: [{ name: "go", eff: ["(done)"] }], goals: ["(forall (?a ?b ?c ?d ?e) (or (p ?a ?b) (q ?c ?d ?e)))"] });
    expect(groundModel(model)).toEqual({ ok: false, reason: "expanding parameters and quantifiers gives more than 500000 expression nodes, more than the planner handles" });
  });
});

describe("Int or Real for scale effects", () => {
  it.each([
    ["(scale-up (n) 3)", false],
    ["(scale-up (n) (n))", false],
    ["(scale-down (n) 1)", false],
    ["(scale-down (n) -1)", false],
    ["(scale-down (n) 2)", true],
    ["(scale-down (n) (n))", true],
    ["(scale-up (n) 0.5)", true],
  ])("%s needs Real: %s", (eff, real) => {
    const grounded = groundModel(modelFrom({ objects: ["x"], init: "(= (n) 2)", actions: [{ name: "go", eff: [eff] }], goals: ["(> (n) 5)"] }));
    if (!grounded.ok) throw new Error(grounded.reason);
    expect(grounded.problem.real).toBe(real);
  });

  it("keeps a fluent only scaled, never assigned, without value", () => {
    const grounded = groundModel(
      modelFrom({ objects: ["x"], actions: [{ name: "go", eff: ["(scale-up (m) 2)"] }, { name: "set", eff: ["(scale-down (k) 2)"] }, { name: "fix", eff: ["(assign (k) 1)"] }], goals: ["(and (> (m) 5) (> (k) 0))"] }),
    );
    if (!grounded.ok) throw new Error(grounded.reason);
    expect(Object.fromEntries(grounded.problem.fluents.map((f) => [f.key, f.definedness]))).toEqual({ m: "never", k: "maybe" });
  });
});

describe("numbers for Z3", () => {
  it.each([
    [3, "3"],
    [-2, "-2"],
    [0.5, "1/2"],
    [0.1, "3602879701896397/36028797018963968"],
    [-0.75, "-3/4"],
  ])("%d is exactly %s", (value, text) => {
    expect(exactRational(value)).toBe(text);
  });
});
