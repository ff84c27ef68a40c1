import { describe, expect, it } from "vitest";
import { mergeContributions, problemModelIriFor } from "../../src/rdf/merge.js";
import { parseContribution } from "../../src/rdf/parse.js";
import { parseShapes } from "../../src/rdf/shapes.js";
import { describeFindings, validateModel } from "../../src/rdf/validate.js";
import { analyseModel } from "../../src/analysis/analysis.js";
import { BASE_IRI, COORDINATOR_GRAPH, contribution, fixture, graphOf, job, shapes } from "./helpers.js";

const PREFIXES = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix schema: <http://schema.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
`;

async function validate(...contributions: [agent: string, turtle: string][]) {
  return (await analyseModel(job(contributions.map(([agent, turtle]) => contribution(agent, turtle))), shapes)).validation;
}

describe("validateModel: attribution", () => {
  it("attributes a violation to the agent whose contribution holds the node", async () => {
    const outcome = await validate(
      ["alice", fixture("valid-complete.ttl")],
      ["bob", `${PREFIXES}<#bike> a mfr:Entity ; schema:name "Bike" .`],
    );
    expect(outcome.violations).toBe(1);
    expect(outcome.results[0]).toMatchObject({
      severity: "Violation",
      focusNode: `${BASE_IRI}#bike`,
      path: "mfr:entityType",
      agents: ["bob"],
    });
  });

  it("attributes a node two agents describe to both", async () => {
    const outcome = await validate(
      ["alice", `${PREFIXES}<#truck> a mfr:Entity ; schema:name "Truck" .`],
      ["bob", `${PREFIXES}<#truck> rdfs:comment "has a capacity of 3" .`],
      ["carol", `${PREFIXES}<#c> a mfr:Constraint ; mfr:constraintType "cap" ; mfr:appliesTo <#truck> ; rdfs:comment "x" .`],
    );
    const onTruck = outcome.results.filter((r) => r.focusNode === `${BASE_IRI}#truck`);
    expect(onTruck).toHaveLength(1);
    // carol only refers to the truck; alice and bob describe it.
    expect(onTruck[0]?.agents).toEqual(["alice", "bob"]);
  });

  it("attributes whole-model findings to no agent", async () => {
    const outcome = await validate(["alice", `${PREFIXES}<#g> a mfr:Goal ; rdfs:label "g" .`]);
    const noEntity = outcome.results.find((r) => r.path === "mfr:hasEntity");
    expect(noEntity).toMatchObject({ severity: "Violation", focusNode: `${BASE_IRI}problem-model`, agents: [] });
  });

  it("falls back to the agents that refer to a node nobody describes", async () => {
    const refShapes = parseShapes(`@prefix sh: <http://www.w3.org/ns/shacl#> .
<urn:test:RefShape> a sh:NodeShape ; sh:targetNode <${BASE_IRI}#elsewhere> ;
  sh:property [ sh:path <http://www.w3.org/2000/01/rdf-schema#label> ; sh:minCount 1 ] .`);
    const outcome = parseContribution(`${PREFIXES}<#c> mfr:appliesTo <#elsewhere> .`, {
      baseIri: BASE_IRI,
      graphIri: graphOf("dave"),
      maxTriples: 100,
    });
    if (!outcome.ok) throw new Error(outcome.error.message);
    const model = mergeContributions(
      { sessionId: "s", problemDescription: "p", problemModelIri: problemModelIriFor(BASE_IRI), coordinatorGraphIri: COORDINATOR_GRAPH },
      [{ agent: "dave", graphIri: graphOf("dave"), quads: outcome.quads }],
    );
    const result = await validateModel(model, refShapes);
    expect(result.results).toHaveLength(1);
    expect(result.results[0]?.agents).toEqual(["dave"]);
    // That shape has no sh:message: a message is phrased anyway.
    expect(result.results[0]?.message).toBe("rdfs:label is missing (Less than 1 values)");
  });
});

describe("validation outcome for people", () => {
  it("summarises counts and who has violations", async () => {
    const outcome = await validate(
      ["alice", fixture("valid-complete.ttl")],
      ["bob", `${PREFIXES}<#bike> a mfr:Entity . <#g> a mfr:Goal .`],
    );
    expect(outcome).toMatchObject({ conforms: false, violations: 3, warnings: 0 });
    expect(outcome.summary).toBe(
      "The model does not conform: 3 violations and no warnings.\nViolations by contributor: bob: 3.",
    );
    expect(outcome.summary.split("\n").length).toBeLessThanOrEqual(2);
  });

  it("describes each finding on one line, with the shape's message and the agents", async () => {
    const outcome = await validate(
      ["alice", `${PREFIXES}<#truck> a mfr:Entity ; mfr:entityType "Vehicle" .`],
      ["bob", `${PREFIXES}<#truck> rdfs:comment "big" .`],
    );
    const lines = describeFindings(outcome);
    expect(lines[0]).toBe(
      `Violation on <${BASE_IRI}#truck> (schema:name | rdfs:label): Every Entity needs a name: schema:name or rdfs:label as a plain or language-tagged string — from alice, bob`,
    );
    expect(lines).toContain(`Warning on <${BASE_IRI}problem-model> (mfr:hasGoal): The model has no mfr:Goal: solvers will not know what to achieve`);
    expect(lines).toHaveLength(outcome.results.length);
  });

  it("shows a nameless blank node by its type, not by the coordinator's link to it", async () => {
    const outcome = await validate(["alice", `${PREFIXES}<#e> a mfr:Entity ; mfr:entityType "T" ; rdfs:label "e" . [] a mfr:Goal .`]);
    expect(outcome.results[0]?.focusNode).toMatch(/^_:c0a_0 \(a mfr:Goal\)$/);
  });

  it("orders violations before warnings", async () => {
    const outcome = await validate(["alice", `${PREFIXES}<#a> a mfr:Action .`]);
    const severities = outcome.results.map((r) => r.severity);
    expect(severities).toEqual([...severities].sort((a, b) => (a === b ? 0 : a === "Violation" ? -1 : 1)));
    expect(severities[0]).toBe("Violation");
  });
});
