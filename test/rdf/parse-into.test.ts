/**
 * parseInto: a contribution parsed straight into the merged store, as analyseModel does.
 * It must agree with parseContribution (the one-contribution check) on every outcome, and
 * the analysis built on it must count and write the same model as before.
 */
import { Parser, Store } from "n3";
import { describe, expect, it } from "vitest";
import { realisticModel } from "../../bench/pipeline/realistic-model.js";
import { analyseModel, type AnalysisJob } from "../../src/analysis/analysis.js";
import { mergeContributions, problemModelIriFor, type MergedModel } from "../../src/rdf/merge.js";
import { parseContribution, parseInto } from "../../src/rdf/parse.js";
import { modelToTurtle, sessionPrefixes } from "../../src/rdf/serialize.js";
import { distinctTriples } from "../../src/rdf/triples.js";
import { BASE_IRI, contribution, graphOf, job, shapes } from "./helpers.js";

const PREFIX = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n";
const opts = (agent: string, maxTriples = 100) => ({ baseIri: BASE_IRI, graphIri: graphOf(agent), maxTriples, blankNodePrefix: `${agent}_` });

describe("parseInto", () => {
  it("adds the contribution to its graph, counting each triple once and returning the quads in text order", () => {
    const store = new Store();
    const outcome = parseInto(store, `${PREFIX}<#a> a mfr:Entity . <#b> a mfr:Goal . <#a> a mfr:Entity .`, opts("alice"));
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.tripleCount).toBe(2);
    expect(outcome.quads.map((q) => q.subject.value.slice(-2))).toEqual(["#a", "#b", "#a"]);
    expect(outcome.quads.every((q) => q.graph.value === graphOf("alice"))).toBe(true);
    expect(store.countQuads(null, null, null, graphOf("alice"))).toBe(2);
  });

  it.each([
    ["an empty text", PREFIX],
    ["a syntax error", `${PREFIX}<#a> a mfr:Entity\n<#b> a mfr:Entity .`],
    ["too many triples", `${PREFIX}<#a> a mfr:Entity . <#b> a mfr:Entity . <#c> a mfr:Entity .`],
    ["too deep a nesting", `${PREFIX}<#a> mfr:x ${"[ mfr:y ".repeat(40)}1${" ]".repeat(40)} .`],
    ["a syntax error before too deep a nesting", `${PREFIX}<#a> a .\n<#a> mfr:x ${"[ mfr:y ".repeat(40)}1${" ]".repeat(40)} .`],
  ])("refuses %s as parseContribution does, leaving the store as it was", (_what, turtle) => {
    const store = new Store();
    parseInto(store, `${PREFIX}<#kept> a mfr:Entity .`, opts("bob"));
    const outcome = parseInto(store, turtle, opts("alice", 2));
    expect(outcome).toEqual(parseContribution(turtle, opts("alice", 2)));
    expect(outcome.ok).toBe(false);
    expect(store.size).toBe(1);
  });

  it("accepts more quads than the limit when they are few enough distinct triples", () => {
    const outcome = parseInto(new Store(), `${PREFIX}<#a> a mfr:Entity . <#a> a mfr:Entity . <#a> a mfr:Entity .`, opts("alice", 2));
    expect(outcome).toMatchObject({ ok: true, tripleCount: 1 });
  });

  it("counts its own triples when its graph already holds some", () => {
    const store = new Store();
    parseInto(store, `${PREFIX}<#a> a mfr:Entity .`, opts("alice"));
    expect(parseInto(store, `${PREFIX}<#a> a mfr:Entity . <#b> a mfr:Entity .`, opts("alice"))).toMatchObject({ ok: true, tripleCount: 2 });
  });

  it("keeps triple terms as they are, and puts the quads in the graph", () => {
    const turtle = `${PREFIX}<#a> mfr:believes <<( <#b> a mfr:Entity )>> .`;
    const outcome = parseInto(new Store(), turtle, opts("alice"));
    if (!outcome.ok) throw new Error(outcome.error.message);
    const [q] = outcome.quads;
    expect(q?.graph.value).toBe(graphOf("alice"));
    expect(q?.object.termType).toBe("Quad");
    expect((q?.object as unknown as { graph: { termType: string } }).graph.termType).toBe("DefaultGraph");
  });
});

/** The job's model merged from parseContribution's quads, the coordinator's graph included: what analyseModel made before parseInto. */
function mergedFromParseContribution(theJob: AnalysisJob): MergedModel {
  return mergeContributions(
    { sessionId: theJob.sessionId, problemDescription: theJob.problemDescription, problemModelIri: problemModelIriFor(BASE_IRI), coordinatorGraphIri: theJob.coordinatorGraphIri },
    theJob.contributions.map((c, index) => {
      const outcome = parseContribution(c.turtle, { baseIri: BASE_IRI, graphIri: c.graphIri, maxTriples: 10_000, blankNodePrefix: `c${index}_` });
      if (!outcome.ok) throw new Error(outcome.error.message);
      return { agent: c.agent, graphIri: c.graphIri, quads: outcome.quads };
    }),
  );
}

describe("analyseModel on parseInto", () => {
  it("counts the distinct triples of the union and writes them all once in the Turtle", async () => {
    const model = realisticModel(2_000);
    const theJob = job(model.contributions.map((c) => contribution(c.agent, c.turtle)));
    const analysis = await analyseModel(theJob, shapes);
    const written = new Parser({ format: "text/turtle" }).parse(analysis.modelTurtle);
    const merged = mergedFromParseContribution(theJob);
    expect(analysis.tripleCount).toBe(distinctTriples(merged.store.getQuads(null, null, null, null)).length);
    expect(written.length).toBe(analysis.tripleCount);
    expect(distinctTriples(written).length).toBe(analysis.tripleCount);
  });

  it("writes the same Turtle, byte for byte, as merging parseContribution's quads did", async () => {
    const model = realisticModel(2_000);
    const theJob = job(model.contributions.map((c) => contribution(c.agent, c.turtle)));
    const analysis = await analyseModel(theJob, shapes);
    const merged = mergedFromParseContribution(theJob);
    expect(analysis.modelTurtle).toBe(modelToTurtle(merged.store, sessionPrefixes(BASE_IRI)));
  });
});
