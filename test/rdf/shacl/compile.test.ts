/**
 * What the compiler refuses, and that refusing falls back to rdf-validate-shacl: a shapes
 * file of someone's own, using SHACL the compiler does not cover, still validates.
 */
import { describe, expect, it } from "vitest";
import { compiledShapes, validateShacl, validateWithEngine } from "../../../src/rdf/shacl/engine.js";
import { parseShapes } from "../../../src/rdf/shapes.js";
import { analyseModel } from "../../../src/analysis/analysis.js";
import { BASE_IRI, contribution, job, shapes } from "../helpers.js";
import { compareEngines, mergedModel, resultKey } from "./support.js";

const HEAD = `@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix ex: <urn:test:shapes#> .
`;
const MODEL = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#a> a mfr:Entity ; mfr:entityType "T" ; rdfs:label "a" , "ab" .
<#b> a mfr:Entity ; mfr:entityType 7 ; mfr:near <#a> .
`;

const UNSUPPORTED: [what: string, shapes: string, reason: RegExp][] = [
  ["sh:minLength", `ex:S sh:targetClass mfr:Entity ; sh:property [ sh:path rdfs:label ; sh:minLength 2 ] .`, /sh:minLength/],
  ["sh:node", `ex:S sh:targetClass mfr:Entity ; sh:property [ sh:path mfr:near ; sh:node ex:T ] . ex:T sh:property [ sh:path rdfs:label ; sh:minCount 1 ] .`, /sh:node/],
  ["sh:datatype with lexical checks", `ex:S sh:targetClass mfr:Entity ; sh:property [ sh:path mfr:entityType ; sh:datatype xsd:integer ] .`, /lexical/],
  ["a disjoint qualified shape", `ex:S sh:targetClass mfr:Entity ; sh:property [ sh:path rdfs:label ; sh:qualifiedValueShape [ sh:datatype xsd:string ] ; sh:qualifiedMinCount 1 ; sh:qualifiedValueShapesDisjoint true ] .`, /Disjoint/],
  ["a zero-or-more path", `ex:S sh:targetClass mfr:Entity ; sh:property [ sh:path [ sh:zeroOrMorePath mfr:near ] ; sh:minCount 1 ] .`, /zeroOrMorePath/],
  ["two severities", `ex:S sh:targetClass mfr:Entity ; sh:severity sh:Warning , sh:Info ; sh:property [ sh:path rdfs:label ; sh:minCount 1 ] .`, /several sh:severity/],
  ["sh:minCount on a node shape", `ex:S sh:targetClass mfr:Entity ; sh:minCount 1 .`, /node shape/],
  ["shapes that refer to themselves", `ex:S sh:targetClass mfr:Entity ; sh:or ( ex:S ) .`, /refer to themselves/],
  ["a nested property shape", `ex:S sh:targetClass mfr:Entity ; sh:property [ sh:path mfr:near ; sh:property [ sh:path rdfs:label ; sh:minCount 1 ] ] .`, /under a property shape/],
  ["a shape that is a class", `ex:S a rdfs:Class , sh:NodeShape ; sh:property [ sh:path rdfs:label ; sh:minCount 1 ] .`, /rdfs:Class/],
  ["an invalid pattern", `ex:S sh:targetClass mfr:Entity ; sh:property [ sh:path rdfs:label ; sh:pattern "(" ] .`, /regular expression/],
];

describe("shapes the compiler does not cover", () => {
  it.each(UNSUPPORTED)("%s: refused with the reason", (_what, turtle, reason) => {
    const compiled = compiledShapes(parseShapes(`${HEAD}${turtle}`));
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.unsupported).toMatch(reason);
  });

  it.each(UNSUPPORTED.filter(([what]) => what !== "an invalid pattern"))("%s: validated by rdf-validate-shacl instead", async (_what, turtle) => {
    const own = parseShapes(`${HEAD}${turtle}`);
    const model = mergedModel([["alice", MODEL]]);
    const reference = await validateWithEngine(own, model.store).catch((error: unknown) => error as Error);
    if (reference instanceof Error) {
      // Some of these make rdf-validate-shacl itself fail: the fallback fails the same way.
      await expect(validateShacl(own, model.store)).rejects.toThrow(reference.message);
      return;
    }
    const outcome = await validateShacl(own, model.store);
    expect(outcome.engine).toBe("rdf-validate-shacl");
    expect(outcome.results.map(resultKey)).toEqual(reference.results.map(resultKey));
  });

  it("gives findings through validateModel with a shapes file of one's own", async () => {
    const own = parseShapes(`${HEAD}ex:Long sh:targetClass mfr:Entity ; sh:property [ sh:path rdfs:label ; sh:minLength 2 ; sh:message "labels of two letters at least" ] .`);
    expect(compiledShapes(own).ok).toBe(false);
    const analysis = await analyseModel(job([contribution("alice", MODEL)]), own);
    expect(analysis.validation.results).toEqual([
      { severity: "Violation", focusNode: `${BASE_IRI}#a`, path: "rdfs:label", message: "labels of two letters at least", agents: ["alice"] },
    ]);
  });
});

describe("the compiled validator", () => {
  it("compiles the project's shapes once per shapes store", () => {
    expect(compiledShapes(shapes)).toBe(compiledShapes(shapes));
  });

  it("treats the per-run target as a sh:targetNode triple, without changing the shapes", async () => {
    const before = shapes.size;
    const model = mergedModel([["alice", MODEL]]);
    const { compiledKeys, referenceKeys } = await compareEngines(shapes, model);
    expect(compiledKeys.some((k) => k.includes("ProblemModelHasGoal"))).toBe(true);
    expect(compiledKeys).toEqual(referenceKeys);
    expect(shapes.size).toBe(before);
    const untargeted = await validateShacl(shapes, model.store);
    expect(untargeted.results.some((r) => r.sourceShape.value.endsWith("ProblemModelHasGoal"))).toBe(false);
  });

  it("ends on a cycle of subclass axioms in the data", async () => {
    const model = mergedModel([
      ["alice", `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#Truck> rdfs:subClassOf <#Vehicle> . <#Vehicle> rdfs:subClassOf <#Truck> , mfr:Entity . <#t> a <#Truck> .`],
    ]);
    const outcome = await validateShacl(shapes, model.store);
    expect(outcome.engine).toBe("compiled");
    expect(outcome.results.filter((r) => r.focusNode.value === `${BASE_IRI}#t`).map((r) => r.sourceShape.value.replace(/.*#/, "")).sort()).toEqual([
      "EntityName",
      "EntityType",
    ]);
  });
});
