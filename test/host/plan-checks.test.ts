/**
 * The host's side of plan checks: the core is given the analysis with a summary of the formal
 * model (never the model), and each proposal with the check a model worker made, in the order
 * the proposals arrived; a check that fails leaves the plan unverifiable and the proposal kept.
 * Then, with real workers and a store: a session resumed from its log by a new coordinator has
 * its plans checked against the model the first one stored.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FormalSummary, Verification } from "../../src/formal/index.js";
import { ModelWorker, type JobOptions, type VerifyAnswer, type VerifyRequest } from "../../src/model-workers/model-worker.js";
import { defaultShapesPath } from "../../src/rdf/shapes.js";
import type { ModelService, SessionHost, SessionStep } from "../../src/host/session-host.js";
import type { Participant, SolutionBody } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import { SessionStore } from "../../src/store/session-store.js";
import { testHost } from "../support/test-host.js";

const SUMMARY: FormalSummary = { digest: "a".repeat(64), hasFormalPart: true, notMachineCheckable: [] };
const FORMAL_JSON = '{"the":"formal model, as the worker could not store it"}';
const COUNTS = { entities: 1, stateVariables: 0, actions: 1, constraints: 0, goals: 1, triples: 3 };
const alice: Participant = { nick: "alice", jid: undefined, identity: "occupant:ALICE" };
const bob: Participant = { nick: "bob", jid: undefined, identity: "occupant:BOB" };
const human: Participant = { nick: "dana", jid: undefined, identity: "occupant:DANA" };
const PLAN = (extra = {}): SolutionBody => ({ success: true, message: "Done.", plan: ["pick-up(a)"], note: "kept, not sent to the worker", ...extra });

interface PendingCheck {
  request: VerifyRequest;
  options: JobOptions | undefined;
  answer: (a: VerifyAnswer) => void;
  /** The service breaks its promise instead of answering with a value. */
  fail: (error: Error) => void;
}

/** Model work whose plan checks wait until the test answers them. */
function fakeModels(): { models: ModelService; checks: PendingCheck[] } {
  const checks: PendingCheck[] = [];
  const models: ModelService = {
    check: async () => ({ ok: true, check: { ok: true, tripleCount: 3, counts: COUNTS } }),
    analyse: async (job) => ({
      ok: true,
      analysis: {
        validation: { conforms: true, violations: 0, warnings: 0, results: [], summary: "The model conforms." },
        modelTurtle: job.contributions.map((c) => c.turtle).join("\n"),
        problemModelIri: `${job.baseIri}problem-model`,
        tripleCount: 6,
        countsByAgent: {},
        parseErrors: [],
        formal: SUMMARY,
        formalJson: FORMAL_JSON,
      },
    }),
    verify: (request, options) => new Promise((answer, fail) => checks.push({ request, options, answer, fail })),
  };
  return { models, checks };
}

/** A session of alice and bob in its solution window. */
async function reasoning(host: SessionHost): Promise<string> {
  const started = host.start("Stack the blocks", human, { expectedAgents: ["alice", "bob"] });
  if (!started.ok) throw new Error(started.reason);
  const id = started.sessionId;
  await host.contribute(id, alice, "<#a> a <http://purl.org/stuff/mfr/Entity> .");
  await host.contribute(id, bob, "<#b> a <http://purl.org/stuff/mfr/Entity> .");
  await vi.waitFor(() => expect(host.session(id)?.phase).toBe("reasoning"));
  return id;
}

const proposalsOf = (steps: SessionStep[]): Array<Extract<Input, { kind: "proposal" }>> =>
  steps.flatMap((s) => (s.input.kind === "proposal" ? [s.input] : []));

describe("plan checks, as the host asks for them", () => {
  it("gives the core a summary of the formal model, never the model, and each proposal with its check, in arrival order", async () => {
    const { models, checks } = fakeModels();
    const host = testHost({ models });
    const steps: SessionStep[] = [];
    host.onStep((s) => steps.push(s));
    const id = await reasoning(host);

    const analysis = steps.find((s) => s.input.kind === "analysis")?.input;
    if (analysis?.kind !== "analysis" || !analysis.outcome.ok) throw new Error("no analysis");
    expect(analysis.outcome.analysis.formalSummary).toEqual(SUMMARY);
    expect(analysis.outcome.analysis).not.toHaveProperty("formal");

    const first = host.propose(id, alice, PLAN());
    const second = host.propose(id, bob, PLAN({ success: false }));
    expect(checks).toHaveLength(2);
    // Each check names the session's model, in the session's job order, with the JSON the host holds, and only what the check reads.
    expect(checks[0]?.request).toEqual({ sessionId: id, digest: SUMMARY.digest, claim: { success: true, plan: ["pick-up(a)"] }, formalJson: FORMAL_JSON });
    expect(checks[0]?.options).toEqual({ key: id });
    // The later proposal's check finishes first; the core still hears alice first.
    const valid: Verification = { verdict: "valid", reason: "Every step applies and every goal holds." };
    const invalid: Verification = { verdict: "invalid", reason: "Step 1 fails.", step: 1 };
    checks[1]?.answer({ ok: true, verification: valid });
    await Promise.resolve();
    expect(proposalsOf(steps)).toEqual([]);
    checks[0]?.answer({ ok: true, verification: invalid });
    await Promise.all([first, second]);
    expect(proposalsOf(steps).map((p) => [p.from.nick, p.verification])).toEqual([
      ["alice", invalid],
      ["bob", valid],
    ]);
    expect(host.session(id)?.completion?.status).toBe("solved");
    await host.close();
  });

  it("a check that fails or is lost leaves the plan unverifiable, saying why, and keeps the proposal", async () => {
    const { models, checks } = fakeModels();
    const host = testHost({ models });
    const id = await reasoning(host);
    const first = host.propose(id, alice, PLAN());
    const second = host.propose(id, bob, PLAN());
    checks[0]?.answer({ ok: false, error: "checking the plan took longer than 5000 ms", timedOut: true });
    checks[1]?.fail(new Error("the model worker crashed: out of memory"));
    await Promise.all([first, second]);
    const verdicts = host.session(id)?.proposals.map((p) => [p.agent, p.verification]);
    expect(verdicts).toEqual([
      ["alice", { verdict: "unverifiable", reason: "The plan check did not finish: checking the plan took longer than 5000 ms." }],
      ["bob", { verdict: "unverifiable", reason: "The plan check did not finish: the model worker crashed: out of memory." }],
    ]);
    await host.close();
  });

  it("needs no worker when there is nothing to simulate: a proposal without a plan is judged at once", async () => {
    const { models, checks } = fakeModels();
    const host = testHost({ models });
    const id = await reasoning(host);
    void host.propose(id, alice, { success: true, message: "Trust me." });
    expect(checks).toEqual([]);
    expect(host.session(id)?.proposals[0]?.verification).toEqual({ verdict: "unverifiable", reason: "The proposal has no plan to check." });
    await host.close();
  });
});

describe("plan checks of a session resumed from its log", () => {
  const dirs: string[] = [];
  const pools: ModelWorker[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("checks plans against the formal model the first coordinator's worker stored", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mfr-plan-restore-"));
    dirs.push(dir);
    const store = SessionStore.open(dir);
    const settings = { contributionTimeoutMs: 60_000, validationTimeoutMs: 20_000, reasoningTimeoutMs: 60_000, maxFixRounds: 1, maxTriplesPerContribution: 10_000, debateTimeoutMs: 60_000 };
    const workers = (): ModelWorker => {
      const pool = new ModelWorker({ shapesPath: defaultShapesPath(), timeoutMs: 20_000, storePath: store.path });
      pools.push(pool);
      return pool;
    };
    try {
      const before = testHost({ models: workers(), journal: store, settings });
      const started = before.start("Put A on B", human, { expectedAgents: ["alice"] });
      if (!started.ok) throw new Error(started.reason);
      const id = started.sessionId;
      await before.contribute(id, alice, readFileSync(new URL("../fixtures/formal/blocksworld.ttl", import.meta.url), "utf8"));
      await vi.waitFor(() => expect(before.session(id)?.phase).toBe("reasoning"), { timeout: 15_000 });
      await before.close();

      // The log keeps the summary only; the model is the worker's blob, named by its digest.
      const logged = store.liveEvents().find((e) => e.input.kind === "analysis")?.input;
      if (logged?.kind !== "analysis" || !logged.outcome.ok) throw new Error("no analysis logged");
      expect(logged.outcome.analysis).not.toHaveProperty("formal");
      expect(logged.outcome.analysis.formalSummary?.hasFormalPart).toBe(true);

      // A new coordinator: new threads, nothing held; the state comes from the log alone.
      const after = testHost({ models: workers(), journal: store, settings });
      after.restore(store.liveEvents());
      after.sendRestoredTail(new Set());
      await after.propose(id, alice, { success: true, message: "Four moves.", plan: ["unstack(C, A)", "(put-down c)", "pick-up(a)", "stack(a, b)"] });
      const session = after.session(id) ?? store.archivedSession(id);
      expect(session?.proposals[0]?.verification?.verdict).toBe("valid");
      expect(session?.completion?.status).toBe("solved");
      await after.close();
    } finally {
      store.close();
    }
  }, 30_000);
});
