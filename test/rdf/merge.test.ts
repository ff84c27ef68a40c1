import { describe, expect, it } from "vitest";
import { DataFactory } from "n3";
import { countItemsByAgent, mergeContributions, problemModelIriFor } from "../../src/rdf/merge.js";
import type { ContributionGraph } from "../../src/rdf/merge.js";
import { parseContribution } from "../../src/rdf/parse.js";
import { BASE_IRI, COORDINATOR_GRAPH, MFR, SESSION_ID, fixture, graphOf } from "./helpers.js";

const { namedNode } = DataFactory;
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const PREFIX = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n";
const problemModelIri = problemModelIriFor(BASE_IRI);

function graphFor(agent: string, turtle: string, index: number): ContributionGraph {
  const outcome = parseContribution(turtle, {
    baseIri: BASE_IRI,
    graphIri: graphOf(agent),
    maxTriples: 10_000,
    blankNodePrefix: `c${index}_`,
  });
  if (!outcome.ok) throw new Error(outcome.error.message);
  return { agent, graphIri: graphOf(agent), quads: outcome.quads };
}

function merge(...contributions: [agent: string, turtle: string][]) {
  return mergeContributions(
    { sessionId: SESSION_ID, problemDescription: "Deliver the goods.", problemModelIri, coordinatorGraphIri: COORDINATOR_GRAPH },
    contributions.map(([agent, turtle], i) => graphFor(agent, turtle, i)),
  );
}

const linked = (model: ReturnType<typeof merge>, link: string) =>
  model.store
    .getObjects(namedNode(problemModelIri), namedNode(`${MFR}${link}`), namedNode(COORDINATOR_GRAPH))
    .map((o) => o.value)
    .sort();

describe("mergeContributions", () => {
  it("keeps one named graph per contribution, plus the coordinator's", () => {
    const model = merge(["alice", `${PREFIX}<#a> a mfr:Entity .`], ["bob", `${PREFIX}<#b> a mfr:Goal .`]);
    expect(model.store.getGraphs(null, null, null).map((g) => g.value).sort()).toEqual(
      [COORDINATOR_GRAPH, graphOf("alice"), graphOf("bob")].sort(),
    );
    expect(model.store.getSubjects(null, null, namedNode(graphOf("alice"))).map((s) => s.value)).toEqual([`${BASE_IRI}#a`]);
    expect(model.store.getSubjects(null, null, namedNode(graphOf("bob"))).map((s) => s.value)).toEqual([`${BASE_IRI}#b`]);
    expect(model.agentByGraph.get(graphOf("bob"))).toBe("bob");
  });

  it("asserts the session's ProblemModel node in the coordinator's graph", () => {
    const model = merge(["alice", `${PREFIX}<#a> a mfr:Entity .`]);
    const node = namedNode(problemModelIri);
    const graph = namedNode(COORDINATOR_GRAPH);
    expect(problemModelIri).toBe(`${BASE_IRI}problem-model`);
    expect(model.store.countQuads(node, namedNode(RDF_TYPE), namedNode(`${MFR}ProblemModel`), graph)).toBe(1);
    expect(model.store.getObjects(node, namedNode(`${MFR}sessionId`), graph).map((o) => o.value)).toEqual([SESSION_ID]);
    expect(model.store.getObjects(node, namedNode(`${MFR}problemDescription`), graph).map((o) => o.value)).toEqual([
      "Deliver the goods.",
    ]);
  });

  it("links every typed item of every contribution to the ProblemModel", () => {
    const model = merge(
      ["alice", fixture("valid-complete.ttl")],
      ["bob", `${PREFIX}<#truck> a mfr:Entity . <#bike> a mfr:Entity . _:g a mfr:Goal .`],
    );
    expect(linked(model, "hasEntity")).toEqual([`${BASE_IRI}#bike`, `${BASE_IRI}#depot`, `${BASE_IRI}#truck`, `${BASE_IRI}#warehouse`]);
    expect(linked(model, "hasStateVariable")).toEqual([`${BASE_IRI}#truckLocation`]);
    expect(linked(model, "hasAction")).toEqual([`${BASE_IRI}#drive`]);
    expect(linked(model, "hasConstraint")).toEqual([`${BASE_IRI}#capacity`, `${BASE_IRI}#oneTruck`]);
    expect(linked(model, "hasGoal")).toEqual(["c1_g", `${BASE_IRI}#delivered`]);
  });

  it("merges two agents' <#x> into one node but keeps their _:b0 apart", () => {
    const text = `${PREFIX}<#x> a mfr:Entity . _:b0 a mfr:Entity .`;
    const model = merge(["alice", text], ["bob", text]);
    expect(linked(model, "hasEntity")).toEqual(["c0_b0", "c1_b0", `${BASE_IRI}#x`]);
  });

  it("counts per agent what it added", () => {
    const model = merge(
      ["alice", fixture("valid-complete.ttl")],
      ["bob", `${PREFIX}<#truck> a mfr:Entity . [] a mfr:Goal . <#g2> a mfr:Goal .`],
    );
    const counts = countItemsByAgent(model);
    expect(counts.alice).toEqual({
      entities: 3,
      stateVariables: 1,
      actions: 1,
      constraints: 2,
      goals: 1,
      triples: model.store.countQuads(null, null, null, namedNode(graphOf("alice"))),
    });
    expect(counts.bob).toEqual({ entities: 1, stateVariables: 0, actions: 0, constraints: 0, goals: 2, triples: 3 });
    expect(Object.keys(counts).sort()).toEqual(["alice", "bob"]);
  });
});
