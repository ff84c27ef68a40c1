/**
 * Plans checked in the model worker, where the formal model lives: the main thread gets a
 * summary of the model, never the model, and a `verify` job answers what the shared pure
 * check answers, whichever thread runs it (one that analysed the session, one that did not,
 * a fresh one after a restart), with or without a store. Runs the compiled worker script
 * (`npm run build` first when running these alone).
 */
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FormalSummary } from "../../src/formal/index.js";
import { analyseModel } from "../../src/analysis/analysis.js";
import { ModelWorker, type AnalysedModel, type ModelWorkerOptions } from "../../src/model-workers/model-worker.js";
import { defaultShapesPath } from "../../src/rdf/shapes.js";
import { syntheticContribution } from "../../src/rdf/synthetic.js";
import { checkPlan, type ClaimedPlan } from "../../src/session/plan-check.js";
import { SessionStore } from "../../src/store/session-store.js";
import { contribution, job, shapes, SESSION_ID } from "../rdf/helpers.js";

const BLOCKS = readFileSync(new URL("../fixtures/formal/blocksworld.ttl", import.meta.url), "utf8");
const BLOCKS_JOB = job([contribution("alice", BLOCKS)]);

/** A valid plan, a cheat (success claimed for a broken plan), a plan too long to simulate, no plan. */
const CLAIMS: ClaimedPlan[] = [
  { success: true, plan: ["unstack(C, A)", "(put-down c)", "pick-up(a)", "stack(a, b)"] },
  { success: true, plan: ["unstack(C, A)", "pick-up(a)", "stack(a, b)"], satisfiesGoals: [{ goal: "tower", satisfied: true }] },
  { success: false, plan: Array.from({ length: 1_001 }, () => "pick-up(a)") },
  { success: true },
];

const pools: ModelWorker[] = [];
function pool(more: Partial<ModelWorkerOptions> = {}): ModelWorker {
  const worker = new ModelWorker({ shapesPath: defaultShapesPath(), timeoutMs: 20_000, ...more });
  pools.push(worker);
  return worker;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

async function analysed(worker: ModelWorker): Promise<AnalysedModel> {
  const answer = await worker.analyse(BLOCKS_JOB, { key: SESSION_ID });
  if (!answer.ok) throw new Error(answer.error);
  return answer.analysis;
}

/** What the pure check answers for each claim, on the formal model the analysis reads in-process. */
async function expectedVerdicts(): Promise<ReturnType<typeof checkPlan>[]> {
  const { formal } = await analyseModel(BLOCKS_JOB, shapes);
  return CLAIMS.map((claim) => checkPlan(formal, claim));
}

describe("plan checks in the model worker", () => {
  it("sends the main thread a summary of the formal model, never the model", async () => {
    expectTypeOf<AnalysedModel["formal"]>().toEqualTypeOf<FormalSummary>();
    const analysis = await analysed(pool());
    expect(Object.keys(analysis.formal).sort()).toEqual(["digest", "hasFormalPart", "notMachineCheckable"]);
    expect(analysis.formal).toMatchObject({ hasFormalPart: true, notMachineCheckable: [] });
    // Without a store, the model's JSON comes as text, for the plan checks of other threads.
    expect(typeof analysis.formalJson).toBe("string");
  });

  it("answers a verify job as the pure check does: valid, invalid with the refuted claim, unverifiable", async () => {
    const worker = pool();
    const { formal } = await analysed(worker);
    const answers = await Promise.all(CLAIMS.map((claim) => worker.verify({ sessionId: SESSION_ID, digest: formal.digest, claim }, { key: SESSION_ID })));
    const expected = await expectedVerdicts();
    expect(answers).toEqual(expected.map((verification) => ({ ok: true, verification })));
    expect(expected.map((v) => v.verdict)).toEqual(["valid", "invalid", "unverifiable", "unverifiable"]);
    expect(expected[1]?.refutedClaim).toBeDefined();
  });

  it("with two threads, one that never analysed the session checks the plan from the JSON it is sent (no store)", async () => {
    const worker = pool({ workers: 2 });
    // Threads start as work arrives: the first analyses the session, then takes a long validation...
    const { formal, formalJson } = await analysed(worker);
    const long = worker.analyse(job([contribution("bob", syntheticContribution("bob", 60_000))], 1_000_000), { key: "s-long" });
    let longDone = false;
    void long.then(() => (longDone = true));
    // ...so the plan check starts a second thread, which has no copy of the model.
    const answer = await worker.verify({ sessionId: SESSION_ID, digest: formal.digest, claim: CLAIMS[0] as ClaimedPlan, ...(formalJson ? { formalJson } : {}) }, { key: SESSION_ID });
    expect(longDone).toBe(false);
    expect(answer).toEqual({ ok: true, verification: (await expectedVerdicts())[0] });
    await long;
  });

  it("a fresh pool (a restarted worker or coordinator) reads the formal model from the store", async () => {
    const store = SessionStore.open(mkdtempSync(join(tmpdir(), "mfr-plan-checks-")));
    try {
      const first = pool({ storePath: store.path });
      const { formal, formalJson } = await analysed(first);
      // Stored by the worker, so not sent to the main thread.
      expect(formalJson).toBeUndefined();
      await first.close();
      const fresh = pool({ storePath: store.path });
      const answers = await Promise.all(CLAIMS.map((claim) => fresh.verify({ sessionId: SESSION_ID, digest: formal.digest, claim })));
      expect(answers).toEqual((await expectedVerdicts()).map((verification) => ({ ok: true, verification })));
    } finally {
      store.close();
    }
  });

  it("a thread with no way to the model answers a failure, not a verdict", async () => {
    const answer = await pool().verify({ sessionId: SESSION_ID, digest: "f".repeat(64), claim: CLAIMS[0] as ClaimedPlan });
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error).toMatch(/is neither held by the model worker nor in the store/);
  });
});
