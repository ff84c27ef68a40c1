import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Store } from "n3";
import { readFormalModel } from "../../src/formal/model.js";
import { simulatePlan } from "../../src/formal/simulate.js";
import { BASE, modelOf, quadsOf } from "./helpers.js";

const MFR = "http://purl.org/stuff/mfr/";

describe("objects", () => {
  it("names an entity by mfr:symbol, else by its IRI's local name, case-insensitively", () => {
    const m = modelOf(`
      <#alice> a mfr:Entity ; mfr:symbol "Ann" ; mfr:entityType "Patient" .
      <http://example.org/clinic/Slot0900> a mfr:Entity ; mfr:entityType <http://example.org/types#Slot> .
      [] a mfr:Entity ; mfr:entityType "Nameless" .`);
    expect(m.objects).toEqual([
      { symbol: "ann", types: ["patient"], nodes: [`${BASE}#alice`] },
      { symbol: "slot0900", types: ["slot"], nodes: ["http://example.org/clinic/Slot0900"] },
    ]);
  });

  it("makes one object of two entity nodes with one symbol, their types added up", () => {
    const m = modelOf(`
      <#t1> a mfr:Entity ; mfr:entityType "Truck" .
      <http://example.org/T1> a mfr:Entity ; mfr:entityType "Vehicle" .`);
    expect(m.objects).toEqual([{ symbol: "t1", types: ["truck", "vehicle"], nodes: [`${BASE}#t1`, "http://example.org/T1"] }]);
  });
});

describe("actions", () => {
  it("reads parameters from an RDF list or repeated literals, in their written order", () => {
    const m = modelOf(`
      <#a> mfr:actionName "Listed" ; mfr:hasParameter ( "?p - Patient" "?s - Slot" ) ; mfr:hasEffect [ mfr:expression "(booked ?p ?s)" ] .
      <#b> mfr:actionName "repeated" ; mfr:hasParameter "?z - Slot" , "?a" ; mfr:hasEffect [ mfr:expression "(x ?z ?a)" ] .`);
    expect(m.actions.map((a) => [a.name, a.parameters, a.informal])).toEqual([
      ["listed", [{ name: "?p", type: "patient" }, { name: "?s", type: "slot" }], []],
      ["repeated", [{ name: "?z", type: "slot" }, { name: "?a" }], []],
    ]);
  });

  it("keeps an action with free-text parts or entity parameters out of simulation, and says why", () => {
    const m = modelOf(`
      <#drive> a mfr:Action ; mfr:actionName "drive" ; mfr:hasParameter <#truck> ;
        mfr:hasPrecondition [ mfr:expression "at(truck, depot)" ] ;
        mfr:hasEffect [ mfr:expression "(at truck warehouse)" ] .
      <#wait> a mfr:Action ; mfr:actionName "wait" .`);
    const [drive, wait] = m.actions;
    expect(drive?.informal).toEqual([`its parameter "${BASE}#truck" is not a ?variable`, "1 of its 2 preconditions and effects are free text or do not parse"]);
    expect(wait?.informal).toEqual(["it states no precondition or effect"]);
    expect(m.notMachineCheckable.map((p) => p.text)).toEqual([`${BASE}#truck`, "at(truck, depot)"]);
  });

  it("does not guess between two actions with one name", () => {
    const m = modelOf(`
      <#s1> a mfr:Entity .
      <#a1> mfr:actionName "go" ; mfr:hasEffect [ mfr:expression "(at s1)" ] .
      <#a2> mfr:actionName "GO" ; mfr:hasEffect [ mfr:expression "(gone s1)" ] .
      <#g> a mfr:Goal ; mfr:expression "(at s1)" .`);
    expect(m.actions.every((a) => a.informal.some((r) => r.includes("defined by 2 actions")))).toBe(true);
    expect(simulatePlan(m, ["go"])).toMatchObject({ verdict: "unverifiable", step: 1 });
  });
});

describe("findings", () => {
  it("reports every literal that fails to parse with node, predicate, graph, line and column", () => {
    const m = modelOf(`
      <#act> mfr:actionName "act" ; mfr:hasParameter "?s - " ;
        mfr:hasPrecondition [ mfr:expression "(and (free ?s)" ] ;
        mfr:hasEffect <#eff> .
      <#eff> mfr:expression "(and\\n  (taken ?s ?t))" .
      <#c> a mfr:Constraint ; mfr:constraintExpression "(<= (load) x)" .
      <#g> a mfr:Goal ; mfr:expression "(done) (done)" .
      <#p> mfr:initialState "(at ?t depot)" .`);
    const findings = m.findings.map(({ node, predicate, line, column, message, graph }) => ({ node, predicate, line, column, message, graph }));
    const graph = `${BASE}contribution/alice`;
    expect(findings).toEqual(
      expect.arrayContaining([
        { node: `${BASE}#p`, predicate: `${MFR}initialState`, line: 1, column: 5, message: "the initial state names objects, not variables (?t)", graph },
        { node: `${BASE}#c`, predicate: `${MFR}constraintExpression`, line: 1, column: 12, message: '"x" is not a number or a fluent such as (load truck1)', graph },
        { node: `${BASE}#g`, predicate: `${MFR}expression`, line: 1, column: 8, message: "unexpected text after the expression; join several with (and …)", graph },
        { node: `${BASE}#act`, predicate: `${MFR}hasParameter`, line: 1, column: 4, message: "expected a type name after -", graph },
        { node: `${BASE}#eff`, predicate: `${MFR}expression`, line: 2, column: 10, message: "?s, ?t are neither parameters nor bound by forall/exists", graph },
      ]),
    );
    expect(findings.find((f) => f.message.includes("never closed"))).toMatchObject({ line: 1, column: 1, predicate: `${MFR}expression` });
    expect(findings).toHaveLength(6);
  });

  it("reports a constraint or goal with a free variable", () => {
    const m = modelOf(`<#g> a mfr:Goal ; mfr:expression "(at ?x depot)" .`);
    expect(m.findings).toMatchObject([{ message: "?x is neither a parameter nor bound by forall/exists", line: 1, column: 5 }]);
    expect(m.goals).toEqual([]);
  });
});

describe("input forms", () => {
  it("reads an N3 Store like an array of quads, and a quad repeated across graphs once", () => {
    const ttl = `<#s> a mfr:Entity . <#p> mfr:initialState "(free s)" . <#g> a mfr:Goal ; mfr:expression "(free s)" .`;
    const quads = [...quadsOf(ttl), ...quadsOf(ttl, `${BASE}contribution/bob`)];
    const fromStore = readFormalModel(new Store(quads));
    expect(fromStore).toEqual(readFormalModel(quads));
    expect(fromStore.initialState).toHaveLength(1);
    expect(fromStore.goals).toHaveLength(1);
  });

  it("counts a statement stated again in another graph once, however many values its subject has", () => {
    // Past a handful of values per predicate, repeats are found by key rather than by scan.
    const effects = Array.from({ length: 40 }, (_, i) => `"(at t${i})"`).join(", ");
    const ttl = `<#go> mfr:actionName "go" ; mfr:hasEffect ${effects} .`;
    const once = readFormalModel(quadsOf(ttl));
    const twice = readFormalModel([...quadsOf(ttl), ...quadsOf(ttl, `${BASE}contribution/bob`)]);
    expect(once.actions[0]?.effects).toHaveLength(40);
    expect(twice).toEqual(once);
  });

  it("lists goals and constraints in the order their subjects first appear, even when a subject is typed later", () => {
    const ttl = `<#g2> mfr:expression "(done b)" . <#g1> a mfr:Goal ; mfr:expression "(done a)" . <#g2> a mfr:Goal .
      <#c2> mfr:expression "x" . <#c1> mfr:constraintExpression "(not (done a))" . <#c2> mfr:constraintExpression "(not (done b))" .`;
    const m = modelOf(ttl);
    expect(m.goals.map((g) => g.node)).toEqual([`${BASE}#g2`, `${BASE}#g1`]);
    expect(m.constraints.map((c) => c.node)).toEqual([`${BASE}#c2`, `${BASE}#c1`]);
  });

  it("finds nothing formal in the existing complete fixture, which real peers write in free text", () => {
    const ttl = readFileSync(new URL("../fixtures/models/valid-complete.ttl", import.meta.url), "utf8");
    const m = modelOf(ttl);
    expect(m.findings).toEqual([]);
    expect(m.constraints).toEqual([]);
    expect(m.goals).toEqual([]);
    expect(m.notMachineCheckable.map((p) => p.text)).toEqual(
      expect.arrayContaining(["at(truck, depot)", "at(truck, warehouse)", "load(truck) <= 10"]),
    );
    expect(simulatePlan(m, ["drive(truck, depot, warehouse)"]).verdict).toBe("unverifiable");
  });
});
