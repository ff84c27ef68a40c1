/**
 * The model worker through a real worker thread. It runs the compiled worker script
 * (dist/src/model-workers/analysis-worker.js): `npm test` builds first; run `npm run build` before
 * running these tests on their own.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobReader } from "../../src/store/blobs.js";
import { worthABlob } from "../../src/host/journal-records.js";
import { summariseFormalModel, type FormalModel } from "../../src/formal/index.js";
import { SessionStore } from "../../src/store/session-store.js";
import { ModelWorker, type ModelWorkerOptions } from "../../src/model-workers/model-worker.js";
import { defaultShapesPath, loadShapes } from "../../src/rdf/shapes.js";
import { analyseModel } from "../../src/analysis/analysis.js";
import { splitsAhead } from "../../src/protocol/model-parts.js";
import { syntheticContribution } from "../../src/rdf/synthetic.js";
import { BASE_IRI, contribution, fixture, graphOf, job } from "../rdf/helpers.js";

const workers: ModelWorker[] = [];
function modelWorker(timeoutMs: number, shapesPath = defaultShapesPath(), more: Partial<ModelWorkerOptions> = {}): ModelWorker {
  const worker = new ModelWorker({ shapesPath, timeoutMs, ...more });
  workers.push(worker);
  return worker;
}

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close()));
});

const check = (turtle: string) => ({ turtle, baseIri: BASE_IRI, graphIri: graphOf("alice"), maxTriples: 1000, maxStatementBytes: 200_000, skolemBase: "http://example.org/s/" });

describe("ModelWorker", () => {
  it("stores the texts in the coordinator's store itself when given it, and answers their digests", async () => {
    const store = SessionStore.open(mkdtempSync(join(tmpdir(), "mfr-worker-store-")));
    try {
      const worker = modelWorker(20_000, defaultShapesPath(), { storePath: store.path });
      const turtle = fixture("valid-complete.ttl");
      const checked = await worker.check({ ...check(turtle), keepFor: "s-test" });
      const unkept = await worker.check(check(turtle));
      // A refused text (here: more triples than allowed) is logged as well, so it is stored too.
      const refused = await worker.check({ ...check(turtle), maxTriples: 1, keepFor: "s-test" });
      if (!refused.ok || refused.check.ok) throw new Error("the check should have refused the text");
      expect(refused.stored).toBe(checked.ok ? checked.stored : "");
      const analysed = await worker.analyse(job([contribution("alice", turtle)]));
      // A model large enough to be a blob (store/blobs.ts, `worthABlob`).
      const large = await worker.analyse(job([contribution("alice", syntheticContribution("alice", 3000))], 10_000));
      if (!checked.ok || !analysed.ok || !unkept.ok || !large.ok) throw new Error("a job failed");
      expect(unkept.stored).toBeUndefined();
      const reader = new BlobReader(new Database(store.path, { readonly: true }));
      expect(reader.text("s-test", checked.stored ?? "")).toBe(turtle);
      const stored = analysed.stored;
      if (!stored) throw new Error(`nothing stored: ${analysed.storeError ?? ""}`);
      const sessionId = job([]).sessionId;
      // A small model is logged inline, so it is not written as a blob as well; a large one is.
      expect(worthABlob(analysed.analysis.modelTurtle)).toBe(false);
      expect(stored.modelTurtle).toBeUndefined();
      expect(worthABlob(large.analysis.modelTurtle)).toBe(true);
      expect(reader.text(sessionId, large.stored?.modelTurtle ?? "")).toBe(large.analysis.modelTurtle);
      // A formal model plans can be checked against is stored, and only its summary (naming the blob) comes back.
      const blocks = await worker.analyse(job([contribution("alice", readFileSync(new URL("../fixtures/formal/blocksworld.ttl", import.meta.url), "utf8"))]));
      if (!blocks.ok) throw new Error(blocks.error);
      expect(blocks.analysis.formal.hasFormalPart).toBe(true);
      expect(blocks.stored?.formal).toBe(blocks.analysis.formal.digest);
      expect(blocks.analysis.formalJson).toBeUndefined();
      const formal = JSON.parse(reader.text(sessionId, blocks.stored?.formal ?? "") ?? "null") as FormalModel;
      expect(summariseFormalModel(formal, blocks.analysis.formal.digest)).toEqual(blocks.analysis.formal);
      // One without a formal part never has a plan checked against it: neither stored nor sent.
      expect(analysed.analysis.formal.hasFormalPart).toBe(false);
      expect(stored.formal).toBeUndefined();
      expect(analysed.analysis.formalJson).toBeUndefined();
      expect(reader.text(sessionId, analysed.analysis.formal.digest)).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it("analyses a model on a worker thread", async () => {
    const answer = await modelWorker(20_000).analyse(job([contribution("alice", fixture("valid-complete.ttl"))]));
    if (!answer.ok) throw new Error(answer.error);
    expect(answer.analysis.validation).toMatchObject({ conforms: true, violations: 0, warnings: 0 });
    expect(answer.analysis.countsByAgent.alice?.entities).toBe(3);
  });

  it("returns a large analysis in pieces, asked for one at a time, put back together exactly", { timeout: 120_000 }, async () => {
    // Over 8 Mi characters of Turtle, so the reply crosses in pieces (reply-pieces.ts).
    const big = job([contribution("alice", syntheticContribution("alice", 350_000))], 400_000);
    const splits = [{ maxPartWireBytes: 200_000, skolemBase: `${BASE_IRI}.well-known/genid/` }];
    const answer = await modelWorker(120_000).analyse(big, { splits });
    if (!answer.ok) throw new Error(answer.error);
    const { modelTurtle, modelSplits } = answer.analysis;
    expect(modelTurtle.length).toBeGreaterThan(8 * 1024 * 1024);
    const here = await analyseModel(big, loadShapes(defaultShapesPath()));
    expect(modelTurtle === here.modelTurtle).toBe(true);
    expect(modelSplits).toEqual(splitsAhead(here.modelTurtle, splits));
    expect(modelSplits?.[0]?.parts.ok && modelSplits[0].parts.parts.length).toBeGreaterThan(10);
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
    const timeoutMs = 500;
    const worker = modelWorker(timeoutMs);
    // ~400k triples: parse + merge + validate take seconds, far past the budget.
    const big = job(["alice", "bob"].map((agent) => contribution(agent, syntheticContribution(agent, 200_000))), 1_000_000);
    const started = Date.now();
    const slow = await worker.analyse(big);
    expect(slow).toEqual({ ok: false, error: `validation took longer than ${timeoutMs} ms`, timedOut: true });
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

describe("ModelWorker as a pool", () => {
  // Long enough to outlast a thread's start (loading the shapes), so the order of starts is the pool's, not a race.
  const medium = (agent: string) => job([contribution(agent, syntheticContribution(agent, 60_000))], 100_000);
  const small = () => job([contribution("alice", fixture("valid-complete.ttl"))]);

  it("validates several sessions at once, one per thread", async () => {
    const pool = modelWorker(20_000, defaultShapesPath(), { workers: 2 });
    const events: string[] = [];
    const run = (name: string) =>
      pool.analyse(medium(name), { key: name, onStart: () => events.push(`start ${name}`) }).then((a) => {
        events.push(`end ${name}`);
        return a;
      });
    const answers = await Promise.all([run("alice"), run("bob")]);
    expect(answers.every((a) => a.ok)).toBe(true);
    // Both began before either ended: they ran side by side.
    expect(events.slice(0, 2).sort()).toEqual(["start alice", "start bob"]);
  });

  it("keeps the order of one session's jobs while other sessions' jobs run beside them", async () => {
    const pool = modelWorker(20_000, defaultShapesPath(), { workers: 2 });
    const events: string[] = [];
    const run = (name: string, key: string, work: ReturnType<typeof job>) =>
      pool.analyse(work, { key, onStart: () => events.push(`start ${name}`) }).then(() => events.push(`end ${name}`));
    await Promise.all([run("s1", "s", medium("alice")), run("s2", "s", small()), run("t1", "t", small())]);
    expect(events.slice().sort()).toEqual(["end s1", "end s2", "end t1", "start s1", "start s2", "start t1"]);
    // s2 waits for s1 (same session) even though a thread was free: it begins as s1 settles
    // (in the same turn, just before s1's caller hears of it), never earlier; t1 does not wait.
    expect(events.indexOf("start s2")).toBe(events.indexOf("end s1") - 1);
    expect(events.indexOf("end t1")).toBeLessThan(events.indexOf("end s1"));
  });

  it("runs small validations first, then checks, then larger validations, each kind oldest first", async () => {
    const pool = modelWorker(20_000, defaultShapesPath(), { workers: 1 });
    const started: string[] = [];
    const onStart = (name: string) => ({ key: name, onStart: () => started.push(name) });
    // All asked for before the one thread is ready, so the pool alone decides the order.
    await Promise.all([
      pool.analyse(medium("alice"), onStart("large 1")),
      pool.check(check("<#a> a <http://purl.org/stuff/mfr/Entity> ."), onStart("check 1")),
      pool.analyse(small(), onStart("small 1")),
      pool.verify({ sessionId: "v", digest: "0".repeat(64), claim: { success: true, plan: [] } }, onStart("plan check")),
      pool.analyse(medium("bob"), onStart("large 2")),
      pool.analyse(small(), onStart("small 2")),
    ]);
    expect(started).toEqual(["small 1", "small 2", "check 1", "plan check", "large 1", "large 2"]);
  });

  it("survives a crashed thread: only its job fails, the others and later jobs are answered", async () => {
    const pool = modelWorker(20_000, defaultShapesPath(), { workers: 2 });
    let crash: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (crash = resolve));
    const doomed = pool.analyse(medium("alice"), { key: "a", onStart: () => crash() });
    const other = pool.analyse(medium("bob"), { key: "b" });
    await started;
    // Kill the thread that runs the first job, as a fatal error in the worker would.
    const threads = (pool as unknown as { threads: Set<{ worker: Worker; job: { key?: string } | null }> }).threads;
    const victim = [...threads].find((t) => t.job?.key === "a");
    expect(victim).toBeDefined();
    await victim?.worker.terminate();
    expect(await doomed).toMatchObject({ ok: false, error: expect.stringMatching(/stopped unexpectedly/) });
    expect(await other).toMatchObject({ ok: true });
    expect(await pool.analyse(small(), { key: "a" })).toMatchObject({ ok: true, analysis: { validation: { conforms: true } } });
  });

  it("refuses a job at once, with a reason, when the queue is full", async () => {
    const pool = modelWorker(20_000, defaultShapesPath(), { workers: 1, maxQueued: 1 });
    // Before the thread is ready, jobs wait in line: the first fills it.
    const first = pool.analyse(small());
    const second = await pool.analyse(small());
    expect(second).toEqual({ ok: false, error: "the model workers are busy (1 jobs waiting, the most allowed); try again in a moment" });
    // A shared pool's user hears of its own refusals (the job's listener), not the pool's listener.
    let heard = 0;
    await pool.check({ sessionId: "s", agent: "a", content: "", mime: "text/turtle" } as never, { onQueueFull: () => (heard += 1) });
    expect(heard).toBe(1);
    expect(await first).toMatchObject({ ok: true });
  });
});
