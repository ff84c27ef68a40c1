import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { formatCondition, formatEffect } from "../../src/formal/format.js";
import { parseCondition, parseEffect, parseInitialState, parseParameters } from "../../src/formal/expression.js";
import type { Condition, Effect } from "../../src/formal/expression.js";

function cond(text: string): Condition {
  const r = parseCondition(text);
  if (r.kind !== "formal") throw new Error(`not formal: ${JSON.stringify(r)}`);
  return r.value;
}
function eff(text: string): Effect {
  const r = parseEffect(text);
  if (r.kind !== "formal") throw new Error(`not formal: ${JSON.stringify(r)}`);
  return r.value;
}

describe("parseCondition", () => {
  it("reads an atom, lower-casing symbols", () => {
    expect(cond("(At Truck1 ?L)")).toEqual({
      kind: "atom",
      predicate: "at",
      args: [
        { kind: "constant", name: "truck1" },
        { kind: "variable", name: "?l" },
      ],
    });
  });

  it.each([
    ["(and (a) (b x))", "and"],
    ["(or (a) (b))", "or"],
    ["(not (a))", "not"],
    ["(imply (a) (b))", "imply"],
    ["(forall (?s - Slot) (free ?s))", "forall"],
    ["(exists (?s) (free ?s))", "exists"],
    ["(= ?a b)", "equal"],
    ["(<= (load truck1) 10)", "compare"],
    ["(= (load truck1) (+ 1 (* 2 (- 3 (/ 4 2)))))", "compare"],
  ])("reads %s as %s", (text, kind) => {
    expect(cond(text).kind).toBe(kind);
  });

  it("round-trips through the formatter", () => {
    for (const text of [
      "(and (at t depot) (not (busy t)))",
      "(forall (?s - slot ?p) (imply (booked ?p ?s) (free ?s)))",
      "(exists (?a - block ?b - block) (on ?a ?b))",
      "(>= (- (load t)) (/ (capacity t) 2))",
      "(or (= ?x y) (< 1 2) (> 2 1))",
    ]) {
      expect(formatCondition(cond(text))).toBe(text);
    }
  });

  it("types a group of variables together, as PDDL does", () => {
    const c = cond("(forall (?a ?b - Block ?c) (on ?a ?b))");
    expect(c.kind === "forall" && c.variables).toEqual([
      { name: "?a", type: "block" },
      { name: "?b", type: "block" },
      { name: "?c" },
    ]);
  });

  it("reports free text as not formal, never guessed at", () => {
    expect(parseCondition("at(truck, depot)")).toEqual({ kind: "free-text" });
    expect(parseCondition("load(truck) <= 10")).toEqual({ kind: "free-text" });
    expect(parseCondition("")).toEqual({ kind: "free-text" });
  });

  it.each([
    ["(and (a)", 1, 1, "never closed"],
    ["(a))", 1, 4, "no opening"],
    ["(not (a) (b))", 1, 1, "takes 1 argument"],
    ["(a)\n  (b)", 2, 3, "after the expression"],
    ["(and\n   ())", 2, 4, "empty"],
    ["(forall ?s (a))", 1, 9, "variable list"],
    ["(forall (?s -) (a))", 1, 13, "type name"],
    ["(< (load t) x)", 1, 13, "not a number"],
    ["(at (f) b)", 1, 5, "parenthesised"],
    ["((a) b)", 1, 2, "must start with a name"],
    ["(and (or ?x))", 1, 10, "expected a parenthesised"],
    ["(+ 1 2)", 1, 1, "cannot be used"],
  ])("rejects %j at line %i column %i", (text, line, column, message) => {
    const r = parseCondition(text);
    expect(r.kind).toBe("error");
    if (r.kind !== "error") return;
    expect(r.error).toMatchObject({ line, column });
    expect(r.error.message).toContain(message);
  });

  it("bounds nesting and length", () => {
    const deep = "(not ".repeat(100) + "(a)" + ")".repeat(100);
    const r = parseCondition(deep);
    expect(r.kind === "error" && r.error.message).toContain("nests deeper");
    const long = `(a ${"x ".repeat(20_000)})`;
    const r2 = parseCondition(long);
    expect(r2.kind === "error" && r2.error.message).toContain("longer than");
  });

  it("never throws, whatever the text", () => {
    const pddlish = fc.stringMatching(/^[()?a-z =<>+*/\-0-9;\n]{0,80}$/);
    fc.assert(
      fc.property(fc.oneof(fc.string(), pddlish, pddlish.map((s) => `(${s}`)), (text) => {
        for (const parse of [parseCondition, parseEffect, parseInitialState, parseParameters]) {
          const r = parse(text);
          expect(["formal", "free-text", "error"]).toContain(r.kind);
          if (r.kind === "error") {
            expect(r.error.line).toBeGreaterThanOrEqual(1);
            expect(r.error.column).toBeGreaterThanOrEqual(1);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("parseEffect", () => {
  it.each([
    ["(and (at t b) (not (at t a)))", "and"],
    ["(not (free ?s))", "delete"],
    ["(free ?s)", "add"],
    ["(forall (?b - block) (not (clear ?b)))", "forall"],
    ["(when (busy ?t) (late ?t))", "when"],
    ["(increase (load ?t) 2)", "numeric"],
    ["(decrease (load ?t) (weight ?p))", "numeric"],
    ["(assign (load ?t) 0)", "numeric"],
    ["(scale-up (load ?t) 2)", "numeric"],
    ["(scale-down (load ?t) (+ (weight ?p) 1))", "numeric"],
  ])("reads %s as %s and writes it back", (text, kind) => {
    const e = eff(text);
    expect(e.kind).toBe(kind);
    expect(formatEffect(e)).toBe(text);
  });

  it("rejects what is not an effect", () => {
    for (const text of ["(or (a) (b))", "(not (and (a)))", "(increase 3 4)", "(exists (?x) (a ?x))", "(imply (a) (b))", "(scale-up 3 4)", "(scale-down (f))"]) {
      expect(parseEffect(text).kind).toBe("error");
    }
  });

  it("reads scale-up and scale-down as numeric effects with their operator", () => {
    expect(eff("(scale-up (load ?t) 2)")).toEqual({
      kind: "numeric",
      op: "scale-up",
      fluent: { kind: "fluent", name: "load", args: [{ kind: "variable", name: "?t" }] },
      value: { kind: "number", value: 2 },
    });
    expect(eff("(SCALE-DOWN (load t1) 4)")).toMatchObject({ kind: "numeric", op: "scale-down" });
  });

  it("keeps scale-up and scale-down out of conditions, where they are no predicate", () => {
    for (const text of ["(scale-up (f) 2)", "(and (p) (scale-down (f) 2))"]) expect(parseCondition(text).kind).toBe("error");
  });
});

describe("parseInitialState", () => {
  it("reads several atoms and fluent values, side by side or in (and …)", () => {
    const r = parseInitialState("(at T1 Depot) (and (free s0900) (= (load t1) 3.5)) (not (busy t1))");
    expect(r).toEqual({
      kind: "formal",
      value: [
        { kind: "atom", predicate: "at", args: ["t1", "depot"] },
        { kind: "atom", predicate: "free", args: ["s0900"] },
        { kind: "fluent", name: "load", args: ["t1"], value: 3.5 },
      ],
    });
  });

  it("rejects variables and non-numeric fluent values", () => {
    expect(parseInitialState("(at ?t depot)").kind).toBe("error");
    expect(parseInitialState("(= (load t1) x)").kind).toBe("error");
    expect(parseInitialState("(or (a) (b))").kind).toBe("error");
  });
});

describe("parseParameters", () => {
  it("reads ?p - Patient, ?p, and several at once", () => {
    expect(parseParameters("?p - Patient")).toEqual({ kind: "formal", value: [{ name: "?p", type: "patient" }] });
    expect(parseParameters(" ?p ")).toEqual({ kind: "formal", value: [{ name: "?p" }] });
    expect(parseParameters("(?a ?b - block ?c)")).toEqual({
      kind: "formal",
      value: [{ name: "?a", type: "block" }, { name: "?b", type: "block" }, { name: "?c" }],
    });
  });

  it("reports a plain word as not formal and a broken list with its column", () => {
    expect(parseParameters("truck")).toEqual({ kind: "free-text" });
    const r = parseParameters("?p - ");
    expect(r.kind).toBe("error");
    if (r.kind === "error") expect(r.error.column).toBe(4);
  });
});
