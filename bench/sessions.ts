/**
 * Memory and time for many sessions through the session core and the durable store.
 * Each session: start, two contributions, a conforming validation, two proposals,
 * SessionComplete, archive. The model worker and the network are replaced by instant
 * fakes, so what is measured is the core, the host and SQLite.
 *
 * Prints figures only; not a test. Run: npm run build && node --expose-gc dist/bench/sessions.js [count]
 * The baseline in the same process is the same run without a store (sessions kept in memory,
 * capped at 200 completed), so the ratio shows what durability costs.
 */
import { NO_FORMAL_MODEL, summariseFormalModel } from "../src/formal/index.js";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { SessionHost, type ModelService, type SessionJournal } from "../src/host/session-host.js";
import { SessionStore } from "../src/store/index.js";

const COUNT = Number(process.argv[2] ?? 1000);
const TURTLE = `@prefix mfr: <http://purl.org/stuff/mfr/> .\n@prefix schema: <http://schema.org/> .\n${Array.from({ length: 20 }, (_, i) => `<#e${i}> a mfr:Entity ; mfr:entityType "Thing" ; schema:name "Entity ${i}" .`).join("\n")}\n`;
const counts = { entities: 20, stateVariables: 0, actions: 0, constraints: 0, goals: 0 };

const models: ModelService = {
  check: async () => ({ ok: true, check: { ok: true, tripleCount: 60, counts: { ...counts, triples: 60 } } }),
  // As a worker would: the host logs the start of the job (the validation clock), then the answer.
  analyse: async (job, options) => (options?.onStart?.(), await Promise.resolve(), {
    ok: true,
    analysis: {
      validation: { conforms: true, violations: 0, warnings: 0, results: [], summary: "The model conforms." },
      modelTurtle: job.contributions.map((c) => c.turtle).join("\n"),
      problemModelIri: `${job.baseIri}problem-model`,
      tripleCount: 120,
      countsByAgent: {},
      parseErrors: [],
      formal: summariseFormalModel(NO_FORMAL_MODEL, "0".repeat(64)),
    },
  }),
  // The models have no formal part: no plan is simulated, so no plan check is asked for.
  verify: () => Promise.reject(new Error("unused")),
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function memory(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

async function run(label: string, journal: SessionJournal | undefined, count: number): Promise<void> {
  const host = new SessionHost({
    render: { room: "bench@conference.localhost", logRoom: undefined, maxStanzaBytes: 200 * 1024 },
    settings: { contributionTimeoutMs: 60_000, validationTimeoutMs: 10_000, reasoningTimeoutMs: 60_000, maxFixRounds: 2, maxTriplesPerContribution: 20_000, debateTimeoutMs: 60_000, validationClockStartsInWorker: true },
    maxLiveSessions: 1_000_000,
    models,
    outlet: { send: async () => undefined },
    log: pino({ level: "silent" }),
    now: Date.now,
    ...(journal ? { journal } : {}),
  });
  const before = memory();
  const started = process.hrtime.bigint();
  const marks: Array<{ at: number; rss: number; heap: number }> = [];
  for (let i = 1; i <= count; i++) {
    const alice = { nick: "alice", jid: "alice@localhost" };
    const bob = { nick: "bob", jid: "bob@localhost" };
    const started1 = host.start(`Problem number ${i}: move the crates`, { nick: "dana", jid: "dana@localhost" }, { expectedAgents: ["alice", "bob"] });
    if (!started1.ok) throw new Error(started1.reason);
    const id = started1.sessionId;
    await host.contribute(id, alice, TURTLE);
    await host.contribute(id, bob, TURTLE);
    while (host.session(id)?.phase === "validating") await settle();
    host.propose(id, alice, { success: true, message: "plan A", plan: ["a", "b"], satisfiesGoals: [{ goal: "g", satisfied: true }] });
    host.propose(id, bob, { success: false, message: "no plan" });
    if (host.session(id) && host.session(id)?.phase !== "complete") throw new Error(`session ${id} did not complete`);
    // Real input arrives as separate network events, so the event loop turns between them and
    // the host's chain of outgoing messages drains; a loop that never yields would only
    // measure a growing backlog of queued sends.
    await settle();
    if (i % (count / 4) === 0) marks.push({ at: i, ...memory() });
  }
  await host.close();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const after = memory();
  console.log(`${label}: ${count} sessions in ${ms.toFixed(0)} ms (${(ms / count).toFixed(2)} ms per session); sessions left in memory: ${host.liveSessions().length + Object.keys(host.sessions.byId).length}`);
  console.log(`  RSS ${mib(before.rss)} -> ${mib(after.rss)} (${after.rss >= before.rss ? "+" : ""}${mib(after.rss - before.rss)}); heap ${mib(before.heap)} -> ${mib(after.heap)}`);
  console.log(`  heap after each quarter: ${marks.map((m) => `${m.at}: ${mib(m.heap)}`).join(", ")}`);
  return;
}

async function main(): Promise<void> {
  if (!(globalThis as { gc?: () => void }).gc) console.log("(run with node --expose-gc for steadier memory figures)");
  await run("in memory (baseline)", undefined, COUNT);
  const dir = mkdtempSync(join(tmpdir(), "mfr-bench-"));
  const store = SessionStore.open(dir);
  try {
    await run("with the SQLite store", store, COUNT);
    await run("again, same store (memory must stay flat)", store, COUNT);
    console.log(`  archived: ${store.countArchived()} sessions; database ${mib(statSync(join(dir, "mfr-coordinator.sqlite")).size)}`);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
