/**
 * The compiled validator against rdf-validate-shacl, result for result (severity, focus
 * node, path, source shape, component, value, messages): on every model fixture and
 * benchmark problem, on the benchmark's realistic models, and on random models full of
 * the defects agents make.
 */
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { realisticModel } from "../../../bench/pipeline/realistic-model.js";
import { compiledShapes } from "../../../src/rdf/shacl/engine.js";
import { parseShapes } from "../../../src/rdf/shapes.js";
import { BASE_IRI, shapes } from "../helpers.js";
import { compareEngines, mergedModel } from "./support.js";

function modelFiles(relative: string): [name: string, turtle: string][] {
  const dir = fileURLToPath(new URL(relative, import.meta.url));
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ttl"))
    .map((f) => [`${relative}${f}`, readFileSync(`${dir}/${f}`, "utf8")]);
}

const FIXTURES = [
  ...modelFiles("../../fixtures/models/"),
  ...modelFiles("../../fixtures/formal/"),
  ...modelFiles("../../../bench/problems/"),
];

describe("the compiled MFR shapes", () => {
  it("compile (no fallback for the project's own shapes)", () => {
    const compiled = compiledShapes(shapes);
    expect(compiled.ok ? "compiled" : compiled.unsupported).toBe("compiled");
  });

  it.each(FIXTURES)("give rdf-validate-shacl's results on %s", async (_name, turtle) => {
    const { compiled, reference, compiledKeys, referenceKeys } = await compareEngines(shapes, mergedModel([["alice", turtle]]));
    expect(compiled.engine).toBe("compiled");
    expect(compiledKeys).toEqual(referenceKeys);
    expect(compiled.conforms).toBe(reference.conforms);
  });

  it("give rdf-validate-shacl's results on all the fixtures merged, from one agent each", async () => {
    const model = mergedModel(FIXTURES.map(([name, turtle]) => [name.replace(/\W/g, "_"), turtle]));
    const { compiledKeys, referenceKeys } = await compareEngines(shapes, model);
    expect(referenceKeys.length).toBeGreaterThan(5);
    expect(compiledKeys).toEqual(referenceKeys);
  });

  it.each([1_000, 5_000])("give rdf-validate-shacl's results on the benchmark's realistic model of %i triples", async (size) => {
    const model = mergedModel(realisticModel(size).contributions.map((c) => [c.agent, c.turtle] as const));
    const { compiled, reference, compiledKeys, referenceKeys } = await compareEngines(shapes, model);
    expect(reference.results.length).toBe(8);
    expect(compiledKeys).toEqual(referenceKeys);
    expect(compiled.conforms).toBe(reference.conforms);
  });
});

// --- Random models ------------------------------------------------------------------------

const PREFIXES = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix schema: <http://schema.org/> .
@prefix schemas: <https://schema.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
`;

/** Subjects: IRIs shared by every agent, and a blank node each contribution has its own of. */
const subject = fc.constantFrom("<#n0>", "<#n1>", "<#n2>", "<#n3>", "_:b0", "<#pm>");
const itemType = fc.constantFrom(
  "mfr:Entity", "mfr:StateVariable", "mfr:Action", "mfr:Precondition", "mfr:Effect",
  "mfr:Constraint", "mfr:Goal", "mfr:ProblemModel", "<#Truck>", "<#Van>", "<#Step>",
);
const predicate = fc.constantFrom(
  "schema:name", "schemas:name", "rdfs:label", "rdfs:comment", "mfr:entityType", "mfr:actionName", "mfr:expression",
  "mfr:appliesTo", "mfr:constraintType", "mfr:constraintExpression", "mfr:hasPrecondition", "mfr:hasEffect",
  "mfr:hasEntity", "mfr:hasGoal", "mfr:hasAction", "mfr:hasConstraint",
);
/** Good and bad values: plain, tagged, directional, empty, blank, typed, numbers, nodes where literals belong. */
const literalValue = fc.constantFrom(
  '"Truck"', '"Truck"@en', '"Camion"@fr-CA', '"ok"@en--ltr', '""', '"  "', '"\\t"', "5", '"5"^^xsd:integer', "true",
  '"x"^^xsd:token', '"x"^^xsd:string', '"(at ?t ?p)"', '"drive"', '"problem"', '"x"^^<#customType>',
);
const nodeValue = fc.constantFrom(
  "<#n0>", "<#n1>", "<#n3>", "_:b0", "[]", '[ a mfr:Precondition ; mfr:expression "(at ?t)" ]', "[ a mfr:Effect ]",
  '[ a mfr:Effect ; mfr:expression "" , "(not (at ?t))" ]', "[ a mfr:Entity ; schema:name 7 ]", '[ a <#Van> ; rdfs:label "v" ]',
);
const value = fc.oneof(literalValue, nodeValue);
/** Who states a triple: one, two or all three agents (so triples and items are often in several graphs). */
const agents = fc.subarray([0, 1, 2], { minLength: 1 });
/** Subclass axioms, and statements that random triples seldom make: one name under two properties. */
const special = fc.constantFrom(
  '<#n1> schema:name "Truck" ; rdfs:label "Truck" .',
  '<#n0> schemas:name "Truck"@en ; rdfs:label "Truck"@en ; schema:name "Truck" .',
  "<#Truck> rdfs:subClassOf mfr:Entity .",
  "<#Van> rdfs:subClassOf <#Truck> .",
  "<#Van> rdfs:subClassOf mfr:Action .",
  "<#Step> rdfs:subClassOf mfr:Precondition .",
  "_:c rdfs:subClassOf mfr:Goal . <#n2> a _:c .",
);
/** An item: a subject, its types and properties, each triple stated by some of the agents. */
const item = fc
  .tuple(subject, fc.array(fc.tuple(itemType, agents), { minLength: 1, maxLength: 2 }), fc.array(fc.tuple(predicate, value, agents), { maxLength: 6 }))
  .map(([s, types, properties]) => [
    ...types.map(([t, to]) => [`${s} a ${t} .`, to] as const),
    ...properties.map(([p, o, to]) => [`${s} ${p} ${o} .`, to] as const),
  ]);
const model = fc
  .tuple(fc.array(item, { minLength: 1, maxLength: 6 }), fc.array(fc.tuple(special, agents), { maxLength: 3 }))
  .map(([items, axioms]) => [...items.flat(), ...axioms]);

describe("the compiled MFR shapes on random models with defects", () => {
  it("give exactly rdf-validate-shacl's results", async () => {
    await fc.assert(
      fc.asyncProperty(model, async (statements: (readonly [string, number[]])[]) => {
        const agents = ["alice", "bob", "carol"].map((agent, index) => {
          const mine = statements.filter(([, to]) => to.includes(index)).map(([text]) => text);
          return [agent, `${PREFIXES}${mine.join("\n")}`] as const;
        });
        const { compiled, reference, compiledKeys, referenceKeys } = await compareEngines(shapes, mergedModel(agents));
        expect(compiledKeys).toEqual(referenceKeys);
        expect(compiled.conforms).toBe(reference.conforms);
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});

/**
 * Shapes of our own using what the MFR shapes do not: every supported component, path form
 * and target kind, messages with placeholders and languages, none at all, custom severities.
 */
const OTHER_SHAPES = parseShapes(`@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix schema: <http://schema.org/> .
@prefix ex: <urn:test:shapes#> .
@base <${BASE_IRI}> .
ex:NameCount a sh:NodeShape ; sh:targetClass mfr:Entity ;
  sh:property [ sh:path [ sh:alternativePath ( schema:name rdfs:label ) ] ; sh:maxCount 1 ] ;
  sh:property [ sh:path mfr:hasPrecondition ; sh:class mfr:Precondition ; sh:severity sh:Warning ] .
ex:Kinds a sh:NodeShape ; sh:targetSubjectsOf mfr:appliesTo ;
  sh:property [ sh:path mfr:appliesTo ; sh:nodeKind sh:IRI ; sh:message "appliesTo must be {$nodeKind}"@en , "mauvais {$nodeKind}"@fr ] .
ex:Referenced a sh:NodeShape ; sh:targetObjectsOf mfr:hasEffect ;
  sh:property [ sh:path ( [ sh:inversePath mfr:hasEffect ] mfr:actionName ) ; sh:minCount 1 ; sh:message "An effect's action needs a name" ] ;
  sh:property [ sh:path mfr:expression ; sh:or ( [ sh:datatype xsd:string ] [ sh:pattern "^\\\\(" ; sh:flags "i" ] ) ; sh:severity ex:Custom ] .
ex:TypeIn a sh:NodeShape ; sh:targetNode <#n0> , <#n1> , "lit" ;
  sh:property [ sh:path mfr:entityType ; sh:in ( "T" "Truck" <#n1> 5 ) ] ;
  sh:property [ sh:path schema:name ; sh:qualifiedValueShape [ sh:datatype rdf:langString ] ; sh:qualifiedMinCount 1 ; sh:qualifiedMaxCount 1 ] .
ex:Off a sh:NodeShape ; sh:targetClass mfr:Goal ; sh:deactivated true ; sh:property [ sh:path rdfs:label ; sh:minCount 5 ] .
ex:GoalInverse a sh:NodeShape ; sh:targetClass mfr:Goal ;
  sh:property [ sh:path [ sh:inversePath mfr:hasGoal ] ; sh:minCount 2 ; sh:maxCount 1 ; sh:severity sh:Info ] .
ex:NodeLevel a sh:NodeShape ; sh:targetClass mfr:Effect ; sh:nodeKind sh:BlankNode ; sh:class mfr:Effect ; sh:pattern "x" .
ex:OrProperty sh:targetClass <#Truck> ; sh:message "a truck needs a name" ;
  sh:or ( [ sh:path schema:name ; sh:minCount 1 ] [ sh:path rdfs:label ; sh:minCount 1 ; sh:deactivated false ] [ sh:class ex:Nothing ] ) .
ex:OffInOr sh:targetClass mfr:Goal ; sh:or ( [ sh:deactivated true ; sh:class ex:Nothing ] ) .
`);

describe("the compiled validator on other shapes", () => {
  it("compiles them", () => {
    const compiled = compiledShapes(OTHER_SHAPES);
    expect(compiled.ok ? "compiled" : compiled.unsupported).toBe("compiled");
  });

  it("gives exactly rdf-validate-shacl's results on random models", async () => {
    await fc.assert(
      fc.asyncProperty(model, async (statements: (readonly [string, number[]])[]) => {
        const agents = ["alice", "bob", "carol"].map((agent, index) => {
          const mine = statements.filter(([, to]) => to.includes(index)).map(([text]) => text);
          return [agent, `${PREFIXES}${mine.join("\n")}`] as const;
        });
        const { compiled, reference, compiledKeys, referenceKeys } = await compareEngines(OTHER_SHAPES, mergedModel(agents));
        expect(compiled.engine).toBe("compiled");
        expect(compiledKeys).toEqual(referenceKeys);
        expect(compiled.conforms).toBe(reference.conforms);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
