/**
 * `importPddl`: what a domain and problem become in the formal model (types flattened, either
 * types, constants, actions per conjunct, initial state, goals, constraints, notes), that the
 * Turtle reads back to the same model, parses, and passes the project's SHACL validation.
 */
import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import { readFormalModel } from "../../../src/formal/model.js";
import { simulatePlan } from "../../../src/formal/simulate.js";
import { analyseModel } from "../../../src/analysis/analysis.js";
import { Mfr } from "../../../src/base/vocab.js";
import { quadsOf } from "../../formal/helpers.js";
import { contribution, job, shapes } from "../../rdf/helpers.js";
import { RICH_DOMAIN, RICH_PROBLEM, imported, withoutNodes } from "./fixtures.js";
import { ipcFolders, ipcProblems } from "./ipc.js";

describe("importPddl on a domain that uses every supported construct", () => {
  const result = imported(RICH_DOMAIN, RICH_PROBLEM);
  const { model } = result;

  it("names the domain and problem, lower-cased", () => {
    expect(result.domainName).toBe("courier");
    expect(result.problemName).toBe("deliver-2");
  });

  it("gives each object its declared types and their ancestors (not object), either types, and the union of two declarations", () => {
    const types = Object.fromEntries(model.objects.map((o) => [o.symbol, [...o.types].sort()]));
    expect(types).toEqual({
      // (either vehicle parcel) in a predicate declaration names no type; (either truck parcel) in a parameter does.
      t1: ["either-parcel-truck", "thing", "truck", "vehicle"],
      p1: ["either-parcel-truck", "parcel", "thing"],
      p2: ["either-parcel-truck", "parcel", "thing"],
      depot: ["place"],
      shop: ["place"],
      hq: ["place"],
      spare: ["thing"],
    });
    expect(model.objects.map((o) => o.symbol)).toEqual(["depot", "hq", "p1", "p2", "shop", "spare", "t1"]);
  });

  it("writes actions with one parameter list, a precondition per conjunct and an effect per conjunct, in order", () => {
    const drive = model.actions.find((a) => a.name === "drive");
    expect(drive?.parameters).toEqual([
      { name: "?v", type: "vehicle" },
      { name: "?from", type: "place" },
      { name: "?to", type: "place" },
    ]);
    expect(drive?.preconditions.map((p) => p.kind)).toEqual(["atom", "atom", "not", "not", "or"]);
    expect(drive?.effects.map((e) => e.kind)).toEqual(["delete", "add", "numeric", "numeric"]);
    expect(model.actions.find((a) => a.name === "count-things")?.parameters).toEqual([{ name: "?x", type: "either-parcel-truck" }]);
    expect(model.actions.find((a) => a.name === "unload-all")?.effects.map((e) => e.kind)).toEqual(["forall"]);
    expect(model.actions.map((a) => a.informal)).toEqual(model.actions.map(() => []));
  });

  it("keeps an action with neither precondition nor effect runnable, and says so in a note", () => {
    const wait = model.actions.find((a) => a.name === "wait");
    expect(wait).toMatchObject({ parameters: [], preconditions: [{ kind: "and", parts: [] }], effects: [], informal: [] });
    expect(result.notes.some((n) => n.includes("wait"))).toBe(true);
    // Applicable (the goal, not the step, is what fails).
    expect(simulatePlan(model, ["wait()"])).toMatchObject({ verdict: "invalid", step: 2 });
  });

  it("reads the initial state, the goal per conjunct and both files' always-constraints", () => {
    expect(model.initialState).toContainEqual({ kind: "fluent", name: "fuel", args: ["t1"], value: 3 });
    expect(model.initialState).toContainEqual({ kind: "atom", predicate: "road", args: ["shop", "hq"] });
    expect(model.goals.map((g) => g.text)).toEqual(["(at p1 shop)", "(at t1 depot)"]);
    expect(model.constraints.map((c) => c.text)).toEqual(["(forall (?v - vehicle) (>= (fuel ?v) 0))", "(not (broken t1))"]);
  });

  it("keeps the metric as a note and as a comment of the problem node", () => {
    expect(result.notes).toContain("metric: minimize (total-cost) (it ranks plans; it does not change which plans are valid)");
    expect(result.turtle).toContain('rdfs:comment "metric: minimize (total-cost)');
  });

  it("gives exactly what readFormalModel reads from the Turtle, alone or as one contribution of a session", () => {
    expect(readFormalModel(new Parser().parse(result.turtle))).toEqual(model);
    expect(withoutNodes(readFormalModel(quadsOf(result.turtle)))).toEqual(withoutNodes(model));
  });

  it("writes one RDF list of parameters, rdf:nil for none, and state variables whose expressions parse", () => {
    const quads = new Parser().parse(result.turtle);
    const parameterLists = quads.filter((q) => q.predicate.value === Mfr.hasParameter);
    expect(parameterLists).toHaveLength(model.actions.length);
    const wait = quads.find((q) => q.predicate.value === Mfr.actionName && q.object.value === "wait")?.subject;
    expect(parameterLists.find((q) => wait !== undefined && q.subject.equals(wait))?.object.value).toBe("http://www.w3.org/1999/02/22-rdf-syntax-ns#nil");
    const stateVariables = quads.filter((q) => q.predicate.value === Mfr.expression && quads.some((t) => t.subject.equals(q.subject) && t.object.value === Mfr.StateVariable));
    expect(stateVariables.map((q) => q.object.value).sort()).toEqual(["(at ?x ?p)", "(broken ?v)", "(fuel ?v)", "(in ?p ?v)", "(road ?a ?b)", "(total-cost)"]);
  });

  it("simulates plans as PDDL means them", () => {
    expect(simulatePlan(model, ["load(p1, t1, depot)", "drive(t1, depot, shop)", "unload-all(t1, shop)", "drive(t1, shop, depot)"]).verdict).toBe("valid");
    // Typed parameters: a place is no vehicle.
    expect(simulatePlan(model, ["drive(depot, depot, shop)"])).toMatchObject({ verdict: "invalid", step: 1 });
    // Fuel runs out on the fourth drive: (or (>= (fuel ?v) 1) (= ?to hq)) fails.
    const fourDrives = ["drive(t1, depot, shop)", "drive(t1, shop, depot)", "drive(t1, depot, shop)", "drive(t1, shop, depot)"];
    expect(simulatePlan(model, fourDrives)).toMatchObject({ verdict: "invalid", step: 4 });
  });

  it("mints its nodes under the base it is given, or a urn of the domain and problem names", () => {
    expect(model.objects.find((o) => o.symbol === "t1")?.nodes).toEqual(["urn:mfr:pddl:courier:deliver-2:object-t1"]);
    const based = imported(RICH_DOMAIN, RICH_PROBLEM, { base: "http://example.org/models/x#" });
    expect(based.model.actions.map((a) => a.node)).toContain("http://example.org/models/x#action-drive");
    expect(withoutNodes(based.model)).toEqual(withoutNodes(model));
  });

  it("passes the project's SHACL validation with no Violation", async () => {
    const analysis = await analyseModel(job([contribution("importer", result.turtle)]), shapes);
    expect(analysis.parseErrors).toEqual([]);
    expect(analysis.validation.results.filter((r) => r.severity === "Violation")).toEqual([]);
    expect(withoutNodes(analysis.formal)).toEqual(withoutNodes(model));
  });
});

describe("importPddl on types", () => {
  const domain = `(define (domain shapes) (:requirements :typing)
    (:types circle square - shape dot)
    (:predicates (red ?x) (marked))
    (:action mark :parameters ()
      :precondition (exists (?s - (either circle dot)) (red ?s))
      :effect (marked)))`;
  const problem = `(define (problem p) (:domain shapes)
    (:objects c1 - circle s1 - square d1 - dot x1 - (either square dot) loose)
    (:init (red x1)) (:goal (marked)))`;

  it("turns (either …) of a quantified variable into a type every member's object has, and an object declared with either into both types", () => {
    const { model } = imported(domain, problem);
    const types = Object.fromEntries(model.objects.map((o) => [o.symbol, [...o.types].sort()]));
    expect(types).toEqual({
      c1: ["circle", "either-circle-dot", "shape"],
      d1: ["dot", "either-circle-dot"],
      s1: ["shape", "square"],
      x1: ["dot", "either-circle-dot", "shape", "square"],
      // An untyped object has the root type, which every entity needs to pass the shapes.
      loose: ["object"],
    });
    expect(model.actions[0]?.preconditions[0]).toMatchObject({ kind: "exists", variables: [{ name: "?s", type: "either-circle-dot" }] });
    // x1 is a dot, hence in (either circle dot): the precondition holds.
    expect(simulatePlan(model, ["mark()"]).verdict).toBe("valid");
  });

  it("does not give the either type to an object of neither member", () => {
    const { model } = imported(domain, problem.replace("(red x1)", "(red s1)"));
    expect(simulatePlan(model, ["mark()"])).toMatchObject({ verdict: "invalid", step: 1 });
  });
});

describe("importPddl on IPC benchmarks", () => {
  const firsts = ipcFolders().flatMap((folder) => ipcProblems(folder, 1));

  it("finds the shared benchmarks beside the repository", () => {
    expect(firsts.length).toBe(16);
  });

  it("writes contributions that pass SHACL with no Violation, read back the same, and stay small", async () => {
    for (const p of firsts) {
      const result = imported(p.domain, p.problem);
      const analysis = await analyseModel(job([contribution("importer", result.turtle)]), shapes);
      expect(analysis.parseErrors, p.folder).toEqual([]);
      expect(analysis.validation.violations, `${p.folder}: ${analysis.validation.summary}`).toBe(0);
      expect(withoutNodes(analysis.formal), p.folder).toEqual(withoutNodes(result.model));
      // A handful of bytes per object, fact and action part; nothing repeated per fact.
      const parts = result.model.objects.length + result.model.initialState.length + result.model.goals.length;
      expect(result.turtle.length, p.folder).toBeLessThan(4_000 + 160 * parts + 2_000 * result.model.actions.length);
    }
  });
});
