import { describe, expect, it } from "vitest";
import { Parser } from "n3";
import type { Quad } from "n3";
import { mergeContributions, problemModelIriFor } from "../../src/model/merge.js";
import { parseContribution } from "../../src/model/parse.js";
import { modelForSolvers, modelToTrig, modelToTurtle } from "../../src/model/serialize.js";
import { tripleKey } from "../../src/model/triples.js";
import { BASE_IRI, COORDINATOR_GRAPH, fixture, graphOf } from "./helpers.js";

const PREFIX = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n";

function mergedModel() {
  const parts = [
    ["alice", fixture("valid-complete.ttl")],
    ["bob", `${PREFIX}<#truck> a mfr:Entity ; mfr:entityType "Vehicle" ; mfr:note "say \\"hi\\"\\nthen go"@en . _:b0 a mfr:Goal .`],
  ] as const;
  return mergeContributions(
    { sessionId: "s", problemDescription: "Deliver.", problemModelIri: problemModelIriFor(BASE_IRI), coordinatorGraphIri: COORDINATOR_GRAPH },
    parts.map(([agent, turtle], i) => {
      const outcome = parseContribution(turtle, { baseIri: BASE_IRI, graphIri: graphOf(agent), maxTriples: 1000, blankNodePrefix: `c${i}_` });
      if (!outcome.ok) throw new Error(outcome.error.message);
      return { agent, graphIri: graphOf(agent), quads: outcome.quads };
    }),
  );
}

const quadKey = (q: Quad) => `${tripleKey(q)} ${q.graph.termType}:${q.graph.value}`;

describe("modelToTurtle", () => {
  it("writes the union of all graphs once each, with our prefixes", () => {
    const model = mergedModel();
    const turtle = modelToTurtle(model.store);
    expect(turtle).toMatch(/^@prefix mfr: <http:\/\/purl\.org\/stuff\/mfr\/>\./m);
    const reparsed = new Parser({ format: "text/turtle", blankNodePrefix: "" }).parse(turtle);
    const union = new Set(model.store.getQuads(null, null, null, null).map(tripleKey));
    expect(new Set(reparsed.map(tripleKey))).toEqual(union);
    // <#truck> a mfr:Entity is stated by alice and bob: one triple in the union.
    expect(reparsed).toHaveLength(union.size);
    expect(union.size).toBeLessThan(model.store.size);
  });
});

describe("modelToTrig", () => {
  it("keeps the named graphs and round-trips through n3's parser to the same quads", () => {
    const model = mergedModel();
    const trig = modelToTrig(model.store);
    expect(trig).toContain(`<${graphOf("alice")}> {`);
    const reparsed = new Parser({ format: "application/trig", blankNodePrefix: "" }).parse(trig);
    const original = model.store.getQuads(null, null, null, null).map(quadKey).sort();
    expect(reparsed.map(quadKey).sort()).toEqual(original);
  });
});

describe("modelForSolvers", () => {
  it("writes exactly what modelToTurtle writes, and counts the union's triples", () => {
    const model = mergedModel();
    const written = modelForSolvers(model.store);
    expect(written.turtle).toBe(modelToTurtle(model.store));
    expect(written.triples).toBe(new Set(model.store.getQuads(null, null, null, null).map(tripleKey)).size);
  });
});
