import { describe, expect, it } from "vitest";
import { simulatePlan } from "../../src/formal/simulate.js";
import { modelOf } from "./helpers.js";

interface Spec {
  init?: string;
  params?: string[];
  pre?: string;
  eff?: string;
  constraint?: string;
  goal?: string;
}

const ENTITIES = `
<#s0900> a mfr:Entity ; mfr:entityType "Slot" .
<#s1000> a mfr:Entity ; mfr:entityType "Slot" .
<#ann> a mfr:Entity ; mfr:entityType "Patient" .
<#bob> a mfr:Entity ; mfr:entityType "Patient" .
<#t1> a mfr:Entity ; mfr:entityType "Truck" .
`;

const lit = (text: string): string => JSON.stringify(text);

/** A clinic-ish model with one action `act` built from the spec. */
function model(spec: Spec) {
  const params = (spec.params ?? []).map(lit).join(" , ");
  const ttl = [
    ENTITIES,
    spec.init === undefined ? "" : `<#problem> mfr:initialState ${lit(spec.init)} .`,
    `<#act> a mfr:Action ; mfr:actionName "act"${params === "" ? "" : ` ; mfr:hasParameter ${params}`}`,
    spec.pre === undefined ? "" : ` ; mfr:hasPrecondition [ mfr:expression ${lit(spec.pre)} ]`,
    ` ; mfr:hasEffect [ mfr:expression ${lit(spec.eff ?? "(and)")} ] .`,
    spec.constraint === undefined ? "" : `<#c> a mfr:Constraint ; mfr:constraintExpression ${lit(spec.constraint)} .`,
    spec.goal === undefined ? "" : `<#g> a mfr:Goal ; mfr:expression ${lit(spec.goal)} .`,
  ].join("\n");
  const m = modelOf(ttl);
  expect(m.findings).toEqual([]);
  return m;
}

describe("conditions", () => {
  it.each([
    ["(and (free s0900) (free s1000))", "(free s0900) (free s1000)", true, undefined],
    ["(and (free s0900) (free s1000))", "(free s0900)", false, "(free s1000)"],
    ["(or (free s0900) (free s1000))", "(free s1000)", true, undefined],
    ["(or (free s0900) (free s1000))", "(ill ann)", false, "(or (free s0900) (free s1000))"],
    ["(not (free s0900))", "(ill ann)", true, undefined],
    ["(not (free s0900))", "(free s0900)", false, "(not (free s0900))"],
    ["(imply (ill ann) (free s0900))", "(free s1000)", true, undefined],
    ["(imply (ill ann) (free s0900))", "(ill ann) (free s1000)", false, "(free s0900)"],
    ["(forall (?s - Slot) (free ?s))", "(free s0900) (free s1000)", true, undefined],
    ["(forall (?s - Slot) (free ?s))", "(free s0900)", false, "(free s1000)"],
    ["(forall (?s) (free ?s))", "(free s0900) (free s1000)", false, "(free ann)"],
    ["(exists (?p - Patient) (ill ?p))", "(ill bob)", true, undefined],
    ["(exists (?p - Patient) (ill ?p))", "(free s0900)", false, "(exists (?p - patient) (ill ?p))"],
    ["(forall (?p - Patient) (exists (?s - Slot) (booked ?p ?s)))", "(booked ann s0900) (booked bob s1000)", true, undefined],
    ["(forall (?p - Patient) (exists (?s - Slot) (booked ?p ?s)))", "(booked ann s0900)", false, "(exists (?s - slot) (booked bob ?s))"],
    ["(= ann ann)", "", true, undefined],
    ["(not (= ann bob))", "", true, undefined],
    ["(= ann bob)", "", false, "(= ann bob)"],
  ])("goal %s in state %j: %s", (goal, init, holds, failed) => {
    const v = simulatePlan(model({ init, goal }), []);
    expect(v.verdict).toBe(holds ? "valid" : "invalid");
    if (!holds) expect(v).toMatchObject({ step: 1, failed });
  });

  it.each([
    ["<", 2, 3, true],
    ["<", 3, 3, false],
    ["<=", 3, 3, true],
    ["<=", 4, 3, false],
    ["=", 3, 3, true],
    ["=", 2, 3, false],
    [">=", 3, 3, true],
    [">=", 2, 3, false],
    [">", 4, 3, true],
    [">", 3, 3, false],
  ])("(%s load %i to %i)", (op, load, bound, holds) => {
    const v = simulatePlan(model({ init: `(= (load t1) ${load})`, goal: `(${op} (load t1) ${bound})` }), []);
    expect(v.verdict).toBe(holds ? "valid" : "invalid");
    if (!holds) expect(v.reason).toContain(`(load t1) is ${load}`);
  });

  it("computes + - * / and unary minus", () => {
    const init = "(= (load t1) 6) (= (cap t1) 10)";
    expect(simulatePlan(model({ init, goal: "(= (+ (load t1) (* 2 2)) (cap t1))" }), []).verdict).toBe("valid");
    expect(simulatePlan(model({ init, goal: "(= (/ (cap t1) 2) (- (load t1) 1))" }), []).verdict).toBe("valid");
    expect(simulatePlan(model({ init, goal: "(< (- (load t1)) 0)" }), []).verdict).toBe("valid");
  });

  it("calls a fluent without value, and a division by zero, invalid", () => {
    const unset = simulatePlan(model({ goal: "(< (load t1) 3)" }), []);
    expect(unset).toMatchObject({ verdict: "invalid", step: 1, failed: "(load t1)" });
    expect(unset.reason).toContain("has no value");
    const zero = simulatePlan(model({ init: "(= (load t1) 0)", goal: "(< (/ 1 (load t1)) 3)" }), []);
    expect(zero).toMatchObject({ verdict: "invalid", failed: "(/ 1 (load t1))" });
  });
});

describe("steps and effects", () => {
  const book = {
    init: "(free s0900) (free s1000) (= (booked) 0)",
    params: ["?p - Patient", "?s - Slot"],
    pre: "(free ?s)",
    eff: "(and (not (free ?s)) (booked ?p ?s) (increase (booked) 1))",
  };

  it("fills the step's arguments into the failing precondition", () => {
    const v = simulatePlan(model(book), ["act(ann, s0900)", "act(bob, S0900)"]);
    expect(v).toMatchObject({ verdict: "invalid", step: 2, failed: "(free s0900)" });
    expect(v.reason).toBe("Step 2 (act(bob, S0900)) is not applicable: its precondition (free s0900) is false.");
  });

  it("applies deletes before adds, so an action can delete and re-add a fact", () => {
    const m = model({ init: "(free s0900)", params: ["?s - Slot"], pre: "(free ?s)", eff: "(and (not (free ?s)) (free ?s))", goal: "(free s0900)" });
    expect(simulatePlan(m, ["act(s0900)", "act(s0900)"]).verdict).toBe("valid");
  });

  it.each([
    ["(increase (booked) 2)", 3],
    ["(decrease (booked) 2)", -1],
    ["(assign (booked) (* 2 7))", 14],
    ["(and (increase (booked) 1) (increase (booked) 1))", 3],
    ["(scale-up (booked) 3)", 3],
    ["(scale-down (booked) 4)", 0.25],
    ["(and (increase (booked) 1) (scale-up (booked) 5))", 10],
    ["(and (scale-up (booked) 5) (increase (booked) 1))", 6],
    ["(scale-up (booked) (+ (booked) 1))", 2],
  ])("updates fluents: %s", (eff, value) => {
    const m = model({ init: "(= (booked) 1)", eff, goal: `(= (booked) ${value})` });
    expect(simulatePlan(m, ["act()"]).verdict).toBe("valid");
  });

  it("reads numeric updates in the state before the step", () => {
    const m = model({ init: "(= (a) 1) (= (b) 10)", eff: "(and (assign (a) (b)) (assign (b) (a)))", goal: "(and (= (a) 10) (= (b) 1))" });
    expect(simulatePlan(m, ["act"]).verdict).toBe("valid");
  });

  it("refuses to increase a fluent that has no value", () => {
    const v = simulatePlan(model({ eff: "(increase (booked) 1)" }), ["act"]);
    expect(v).toMatchObject({ verdict: "invalid", step: 1, failed: "(booked)" });
  });

  it.each(["scale-up", "scale-down"])("refuses to %s a fluent that has no value", (op) => {
    const v = simulatePlan(model({ eff: `(${op} (booked) 2)` }), ["act"]);
    expect(v).toMatchObject({ verdict: "invalid", step: 1, failed: "(booked)" });
    expect(v.reason).toContain(`has no value to ${op}`);
  });

  it("calls a scale-down by zero a division by zero, the value read before the step", () => {
    // (n) is 0 before the step: the assign in the same step comes too late to rescue the division.
    const m = model({ init: "(= (booked) 6) (= (n) 0)", eff: "(and (assign (n) 2) (scale-down (booked) (n)))", goal: "(= (booked) 3)" });
    const v = simulatePlan(m, ["act"]);
    expect(v).toMatchObject({ verdict: "invalid", step: 1, failed: "(scale-down (booked) (n))" });
    expect(v.reason).toContain("divides by zero");
    const fine = model({ init: "(= (booked) 6) (= (n) 2)", eff: "(scale-down (booked) (n))", goal: "(= (booked) 3)" });
    expect(simulatePlan(fine, ["act"]).verdict).toBe("valid");
  });

  it("evaluates a when condition in the state before the step", () => {
    // The effect deletes (ill ann) and, since ann was ill before the step, adds (treated ann).
    const m = model({ init: "(ill ann)", eff: "(and (not (ill ann)) (when (ill ann) (treated ann)) (when (ill bob) (treated bob)))", goal: "(and (treated ann) (not (treated bob)))" });
    expect(simulatePlan(m, ["act"]).verdict).toBe("valid");
  });

  it("expands forall effects over the typed objects", () => {
    const m = model({ eff: "(forall (?s - Slot) (free ?s))", goal: "(and (free s0900) (free s1000) (not (free ann)))" });
    expect(simulatePlan(m, ["(act)"]).verdict).toBe("valid");
  });

  it("checks constraints in the initial state (step 0) and after each step", () => {
    const atStart = simulatePlan(model({ init: "(free s0900)", constraint: "(not (free s0900))" }), ["act"]);
    expect(atStart).toMatchObject({ verdict: "invalid", step: 0, failed: "(not (free s0900))" });
    expect(atStart.reason).toContain("in the initial state");
    const later = simulatePlan(model({ ...book, constraint: "(<= (booked) 1)" }), ["act(ann, s0900)", "act(bob, s1000)"]);
    expect(later).toMatchObject({ verdict: "invalid", step: 2, failed: "(<= (booked) 1)" });
    expect(later.trace).toEqual(["0 initial state: 2 facts, 1 fluent", "1 act(ann, s0900): +(booked ann s0900) -(free s0900) (booked)=1", "2 act(bob, s1000): +(booked bob s1000) -(free s1000) (booked)=2"]);
  });

  it("reports a goal not reached at plan length + 1", () => {
    const v = simulatePlan(model({ ...book, goal: "(and (booked ann s0900) (booked bob s1000))" }), ["act(ann, s0900)"]);
    expect(v).toMatchObject({ verdict: "invalid", step: 2, failed: "(booked bob s1000)" });
  });
});

describe("unverifiable plans and bounds", () => {
  it("says a model without any formal part cannot check a plan", () => {
    const m = modelOf(`
      <#truck> a mfr:Entity ; mfr:entityType "Vehicle" .
      <#drive> a mfr:Action ; mfr:actionName "drive" ; mfr:hasParameter <#truck> ;
        mfr:hasPrecondition [ mfr:expression "at(truck, depot)" ] ;
        mfr:hasEffect [ mfr:expression "at(truck, warehouse)" ] .
      <#cap> a mfr:Constraint ; mfr:constraintExpression "load(truck) <= 10" .
      <#g> a mfr:Goal ; mfr:expression "at(truck, warehouse)" .`);
    const v = simulatePlan(m, ["drive(truck, depot, warehouse)"]);
    expect(v.verdict).toBe("unverifiable");
    expect(v.reason).toBe("The model has no formal action, constraint or goal to check the plan against (5 free-text parts are not machine-checkable).");
  });

  it("stops at a step whose action is partly free text", () => {
    const m = modelOf(`
      <#s0900> a mfr:Entity ; mfr:entityType "Slot" .
      <#act> a mfr:Action ; mfr:actionName "act" ; mfr:hasParameter "?s - Slot" ;
        mfr:hasPrecondition [ mfr:expression "(free ?s)" ] ;
        mfr:hasEffect [ mfr:expression "the slot is taken" ] .
      <#g> a mfr:Goal ; mfr:expression "(taken s0900)" .
      <#p> mfr:initialState "(free s0900)" .`);
    const v = simulatePlan(m, ["act(s0900)"]);
    expect(v).toMatchObject({ verdict: "unverifiable", step: 1 });
    expect(v.reason).toContain("1 of its 2 preconditions and effects are free text");
  });

  it("bounds steps, objects and quantifier expansion with a clear verdict", () => {
    const m = model({ init: "(free s0900)", goal: "(forall (?a ?b ?c) (or (free ?a) (not (free ?a))))" });
    expect(simulatePlan(m, ["act", "act"], { maxSteps: 1 })).toMatchObject({ verdict: "unverifiable", reason: "The plan has 2 steps, more than the 1 the check simulates." });
    expect(simulatePlan(m, [], { maxObjects: 3 }).verdict).toBe("unverifiable");
    const bound = simulatePlan(m, ["act"], { maxExpansions: 50 });
    expect(bound).toMatchObject({ verdict: "unverifiable", step: 2 });
    expect(bound.reason).toContain("more instances than the bound allows");
    expect(simulatePlan(m, ["act"]).verdict).toBe("valid");
  });
});
