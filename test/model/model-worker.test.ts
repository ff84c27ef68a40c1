/**
 * The model worker through a real worker thread. It runs the compiled worker script
 * (dist/src/model/analysis-worker.js): `npm test` builds first; run `npm run build` before
 * running these tests on their own.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ModelWorker } from "../../src/model/model-worker.js";
import { defaultShapesPath } from "../../src/model/shapes.js";
import { syntheticContribution } from "../../src/model/synthetic.js";
import { BASE_IRI, contribution, fixture, graphOf, job } from "./helpers.js";

const workers: ModelWorker[] = [];
function modelWorker(timeoutMs: number, shapesPath = defaultShapesPath()): ModelWorker {
  const worker = new ModelWorker({ shapesPath, timeoutMs });
  workers.push(worker);
  return worker;
}

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close()));
});

const check = (turtle: string) => ({ turtle, baseIri: BASE_IRI, graphIri: graphOf("alice"), maxTriples: 1000, maxStatementBytes: 200_000, skolemBase: "http://example.org/s/" });

describe("ModelWorker", () => {
  it("analyses a model on a worker thread", async () => {
    const answer = await modelWorker(20_000).analyse(job([contribution("alice", fixture("valid-complete.ttl"))]));
    if (!answer.ok) throw new Error(answer.error);
    expect(answer.analysis.validation).toMatchObject({ conforms: true, violations: 0, warnings: 0 });
    expect(answer.analysis.countsByAgent.alice?.entities).toBe(3);
  });

  it("checks a single contribution: counts, or a located syntax error", async () => {
    const worker = modelWorker(20_000);
    const [good, bad] = await Promise.all([
      worker.check(check(fixture("valid-complete.ttl"))),
      worker.check(check('@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#a> mfr:expression "open .')),
    ]);
    expect(good).toMatchObject({ ok: true, check: { ok: true, counts: { entities: 3, goals: 1 } } });
    expect(bad).toMatchObject({ ok: true, check: { ok: false, error: { line: 2, column: 21 } } });
  });

  it("terminates a job over its time budget, answers with an error, and recovers", async () => {
    const timeoutMs = 2000;
    const worker = modelWorker(timeoutMs);
    // ~100k triples: parse + merge + validate take several seconds.
    const big = job(["alice", "bob"].map((agent) => contribution(agent, syntheticContribution(agent, 50_000))), 1_000_000);
    const started = Date.now();
    const slow = await worker.analyse(big);
    expect(slow).toEqual({ ok: false, error: `validation took longer than ${timeoutMs} ms` });
    expect(Date.now() - started).toBeLessThan(timeoutMs + 5_000);
    // A fresh worker answers the next jobs. Had the old one not been terminated, these would
    // wait behind the big job and time out too.
    expect(await worker.check(check(fixture("valid-complete.ttl")))).toMatchObject({ ok: true, check: { ok: true } });
    const small = await worker.analyse(job([contribution("alice", fixture("valid-complete.ttl"))]));
    expect(small).toMatchObject({ ok: true, analysis: { validation: { conforms: true } } });
  });

  it("turns a worker that cannot start into an error value", async () => {
    const worker = modelWorker(20_000, "/nonexistent/shapes.ttl");
    const answer = await worker.analyse(job([]));
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error).toMatch(/could not load the SHACL shapes/);
  });

  it("fails pending and later jobs clearly once closed", async () => {
    const worker = modelWorker(20_000);
    const pending = worker.analyse(job([contribution("alice", fixture("valid-complete.ttl"))]));
    await worker.close();
    expect(await pending).toEqual({ ok: false, error: "the model worker was closed" });
    expect(await worker.check(check("<#a> <#b> <#c> ."))).toEqual({ ok: false, error: "the model worker was closed" });
  });

  it("answers jobs in order when several are queued", async () => {
    const worker = modelWorker(20_000);
    const answers = await Promise.all(
      ["a", "b", "c"].map((name) => worker.check(check(`<#${name}> a <http://purl.org/stuff/mfr/Entity> .`))),
    );
    expect(answers.map((a) => (a.ok && a.check.ok ? a.check.counts.entities : -1))).toEqual([1, 1, 1]);
  });
});
