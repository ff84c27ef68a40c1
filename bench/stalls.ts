/**
 * Main-thread stalls during one session with a large model, under the shipped limits.
 *
 * Starts a throw-away Prosody (src/localserver/) and the coordinator IN this process, built
 * as `mfr-coordinator start` builds it (src/cli.ts), so that the event-loop delay measured
 * here is the coordinator's own main thread. The room (five agents contributing a ~100k-triple
 * realistic model in parts and proposing plans, three people taking turns to send `mfr-help`
 * every ~200 ms) runs in a child process (bench/stalls/room.ts), so its work is not counted.
 *
 * Prints, per phase of the session (contributions, validation, SolutionRequest with the
 * model in parts, completion and archive): the longest and p99 event-loop delay; then the
 * longest over the whole session from `perf_hooks.monitorEventLoopDelay` (resolution 10 ms),
 * the `help` reply latency, and the peak RSS of this process (coordinator, its model workers;
 * not Prosody, not the room), each with its target.
 *
 * Timings on a shared machine are noisy: read them as orders of magnitude, run twice.
 *
 * Prints figures only; not a test. Run: npm run build && node dist/bench/stalls.js
 *   [--triples N] [--with-1m] [--log-level L] [--validation-timeout MS] [--no-direct-line] [--one-stanza]
 *   (--one-stanza: each agent's contribution in one stanza of megabytes, the server's stanza
 *   limit and mfr:maxInboundBytes raised to 16 MiB to take it.)
 *   (--no-direct-line: the coordinator takes 1:1 chat on its room connection, as before the
 *   direct line, src/xmpp/direct-line.ts; for comparing the `help` figures.)
 *   (--validation-timeout raises that one limit, for a machine too loaded to validate within
 *   the shipped 10 s: a session that times out never reaches the SolutionRequest.)
 *   Profile the main thread: node --cpu-prof --cpu-prof-dir DIR dist/bench/stalls.js
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { loadConfig } from "../src/config/load.js";
import { LaunchedCoordinator } from "../src/launch/launched-coordinator.js";
import { createLogger } from "../src/base/log.js";
import { ensureProsody, startLocalProsody, type LocalProsody } from "../src/localserver/index.js";
import { writeLocalAgentProfile } from "../src/localserver/agent-profile.js";
import { SessionStore } from "../src/store/index.js";
import { AGENTS } from "./pipeline/realistic-model.js";
import { PROBERS, STARTER, type RoomPlan, type RoomReport } from "./stalls/room.js";
import { percentile } from "./support/figures.js";

const TARGET_STALL_MS = 50;
const TARGET_HELP_MS = 100;
const TARGET_RSS_1M_MIB = 2048;
const COORDINATOR_NICK = "Coordinator";

interface Options {
  triples: number;
  with1m: boolean;
  logLevel: string;
  /** Replaces the shipped mfr:validationTimeout when set. */
  validationTimeoutMs: number | undefined;
  /** `xmpp:directLine`: whether 1:1 chat has a connection of its own. */
  directLine: boolean;
  /** Each agent's contribution as one stanza, the server's and the coordinator's inbound limits raised to take it. */
  oneStanza: boolean;
}

/** The stanza limits of `--one-stanza`: the server's and the coordinator's inbound, for a contribution of megabytes in one stanza. */
const ONE_STANZA_LIMIT = 16 * 1024 * 1024;

function optionsFrom(argv: string[]): Options {
  // Unknown options are an error (strict), as before.
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      triples: { type: "string", default: "100000" },
      "with-1m": { type: "boolean", default: false },
      "log-level": { type: "string", default: "warn" },
      "validation-timeout": { type: "string" },
      "no-direct-line": { type: "boolean", default: false },
      "one-stanza": { type: "boolean", default: false },
    },
  });
  const timeout = values["validation-timeout"];
  return {
    triples: Number(values.triples),
    with1m: values["with-1m"],
    logLevel: values["log-level"],
    validationTimeoutMs: timeout === undefined ? undefined : Number(timeout),
    directLine: !values["no-direct-line"],
    oneStanza: values["one-stanza"],
  };
}

/** The phases the figures are grouped by; a stall counts for the phase the session is in when the main thread is free again. */
const PHASES = ["idle", "contributions", "validation", "solution request", "completion and archive"] as const;
type BenchPhase = (typeof PHASES)[number];

/**
 * Samples the main thread every `everyMs`: how late each timer fired is the stall it waited
 * behind. The stall is put down to the phase current when the timer finally fires, so the
 * step that sends the SolutionRequest counts for "solution request".
 */
/**
 * The main thread's own scheduler figures (Linux, /proc/thread-self/schedstat): nanoseconds
 * it ran, and nanoseconds it was ready to run but waited for a CPU. Undefined elsewhere.
 */
function mainThreadSchedule(): { runNs: number; waitNs: number } | undefined {
  try {
    const [run, wait] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ");
    return { runNs: Number(run), waitNs: Number(wait) };
  } catch {
    return undefined;
  }
}

/** The longest stall of a phase, and how it was spent: running, or ready but waiting for a CPU. */
interface WorstStall {
  delayMs: number;
  runMs: number | undefined;
  waitMs: number | undefined;
}

class StallSampler {
  private readonly delays = new Map<BenchPhase, number[]>();
  private readonly worst = new Map<BenchPhase, WorstStall>();
  private timer: NodeJS.Timeout | undefined;
  phase: BenchPhase = "idle";

  constructor(private readonly everyMs: number) {}

  start(): void {
    const tick = (expected: number, before: ReturnType<typeof mainThreadSchedule>) => {
      this.timer = setTimeout(() => {
        const now = performance.now();
        const after = mainThreadSchedule();
        const delayMs = Math.max(0, now - expected);
        const list = this.delays.get(this.phase) ?? [];
        list.push(delayMs);
        this.delays.set(this.phase, list);
        if (delayMs > (this.worst.get(this.phase)?.delayMs ?? -1)) {
          const spent = (key: "runNs" | "waitNs") => (before && after ? (after[key] - before[key]) / 1e6 : undefined);
          this.worst.set(this.phase, { delayMs, runMs: spent("runNs"), waitMs: spent("waitNs") });
        }
        tick(now + this.everyMs, after);
      }, this.everyMs);
    };
    tick(performance.now() + this.everyMs, mainThreadSchedule());
  }

  /** How the phase's longest stall was spent, e.g. "ran 12 ms, waited for a CPU 190 ms" (Linux only). */
  worstOf(phase: BenchPhase): string {
    const w = this.worst.get(phase);
    if (w?.runMs === undefined || w.waitMs === undefined) return "";
    return `ran ${w.runMs.toFixed(0)} ms, waited for a CPU ${w.waitMs.toFixed(0)} ms`;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  of(phase: BenchPhase): number[] {
    return this.delays.get(phase) ?? [];
  }
}


const ms = (n: number): string => (Number.isNaN(n) ? "—" : `${n.toFixed(0)} ms`);
function line(label: string, value: string, target: string, met?: boolean): void {
  const mark = met === undefined ? "" : met ? "  ok" : "  MISSED";
  console.log(`  ${label.padEnd(46)} ${value.padStart(10)}   target ${target}${mark}`);
}

interface RunFigures {
  triples: number;
  status: string;
  reason: string | null;
  modelParts: number;
  contributionParts: number;
  seconds: number;
}

/** One session with a model of `triples` triples; prints its figures. */
async function runSession(server: LocalProsody, options: Options, triples: number, raisedLimits: boolean): Promise<RunFigures> {
  const dir = mkdtempSync(join(tmpdir(), "mfr-stalls-"));
  const room = `stalls-${process.pid}-${triples}@${server.mucDomain}`;
  const accounts: Record<string, { username: string; password: string }> = {};
  for (const name of ["coordinator", ...AGENTS, STARTER, ...PROBERS]) {
    const username = `${name}-${Math.random().toString(36).slice(2, 8)}`;
    accounts[name] = { username, password: `pw-${username}` };
    await server.register(username, `pw-${username}`);
  }
  const coordinatorAccount = accounts.coordinator as { username: string; password: string };
  // The shipped limits, except for the 1M-triple run, where the model is larger than they allow.
  const raised = raisedLimits
    ? `mfr:maxTriplesPerContribution ${Math.ceil(triples / AGENTS.length) * 2} ; mfr:validationTimeout 600000 ; mfr:contributionTimeout 600000 ; mfr:reasoningTimeout 120000 ;`
    : options.validationTimeoutMs !== undefined
      ? `mfr:validationTimeout ${options.validationTimeoutMs} ;`
      : "";
  const { profile, secrets } = writeLocalAgentProfile(dir, {
    node: "coordinator",
    nick: COORDINATOR_NICK,
    server,
    account: coordinatorAccount,
    passwordKey: "coordinator",
    resource: COORDINATOR_NICK,
    room,
    mfrConfig: `mfr:dataDir "${join(dir, "data")}" ; mfr:enableDebate false ; ${raised}${options.oneStanza ? ` mfr:maxInboundBytes ${ONE_STANZA_LIMIT} ;` : ""}`,
    xmppAccount: `; xmpp:directLine ${options.directLine}`,
  });
  const config = loadConfig({ profile, secrets, logLevel: options.logLevel }, {}, process.cwd());
  const log = createLogger({ level: config.logLevel, pretty: false, destination: join(dir, "coordinator.log") });
  const store = SessionStore.open(config.dataDir);
  const launched = new LaunchedCoordinator({ config, log, store });
  const { coordinator } = launched;

  const sampler = new StallSampler(10);
  const eld = monitorEventLoopDelay({ resolution: 10 });
  coordinator.sessions.onStep(({ after }) => {
    if (!after) return;
    sampler.phase =
      after.phase === "collecting" || after.phase === "selecting"
        ? "contributions"
        : after.phase === "validating"
          ? "validation"
          : after.phase === "reasoning"
            ? "solution request"
            : "completion and archive";
  });
  await launched.start();
  // The probers ask at the bare JID: with the direct line, only once it is up is the figure its own.
  for (const deadline = Date.now() + 10_000; coordinator.directLine && !coordinator.directLine.online && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 20));
  }

  const script = fileURLToPath(new URL("./stalls/room.js", import.meta.url));
  const roomProcess: ChildProcess = fork(script, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const proberProcess: ChildProcess = fork(script, ["--probers"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const helps: Array<{ latencyMs: number; phase: BenchPhase }> = [];
  const serverPings: Array<{ latencyMs: number; phase: BenchPhase }> = [];
  let modelParts = 0;
  const reports = (child: ChildProcess, name: string) => {
    const waiters = new Map<RoomReport["kind"], (r: RoomReport) => void>();
    let failed: (err: Error) => void = () => undefined;
    const failure = new Promise<never>((_, reject) => (failed = reject));
    failure.catch(() => undefined);
    child.on("message", (r: RoomReport) => {
      if (r.kind === "help") helps.push({ latencyMs: r.latencyMs, phase: sampler.phase });
      if (r.kind === "server-ping") serverPings.push({ latencyMs: r.latencyMs, phase: sampler.phase });
      else if (r.kind === "solution-request") modelParts = r.modelParts;
      else if (r.kind === "error") failed(new Error(`${name}: ${r.message}`));
      waiters.get(r.kind)?.(r);
    });
    child.on("exit", (code) => failed(new Error(`the ${name} process exited with ${code}`)));
    return <K extends RoomReport["kind"]>(kind: K): Promise<Extract<RoomReport, { kind: K }>> =>
      Promise.race([new Promise<Extract<RoomReport, { kind: K }>>((resolve) => waiters.set(kind, (r) => resolve(r as Extract<RoomReport, { kind: K }>))), failure]);
  };
  const fromRoom = reports(roomProcess, "room");
  const fromProbers = reports(proberProcess, "probers");
  const readyP = fromRoom("ready");
  const probersReadyP = fromProbers("ready");
  const completeP = fromRoom("complete");
  completeP.catch(() => undefined);
  const plan: RoomPlan = {
    service: server.service,
    domain: server.domain,
    room,
    coordinatorNick: COORDINATOR_NICK,
    coordinatorJid: `${coordinatorAccount.username}@${server.domain}`,
    triples,
    // Below the inbound limit (224 KiB) with room for the stanza around the payload.
    // --one-stanza: up to the raised inbound limit, so each contribution is one part, one stanza.
    partBytes: options.oneStanza ? ONE_STANZA_LIMIT - 8 * 1024 : Math.min(config.limits.maxInboundBytes, config.limits.maxStanzaBytes) - 8 * 1024,
    helpEveryMs: 200,
    accounts,
  };
  proberProcess.send(plan);
  roomProcess.send(plan);
  try {
    const roomReady = await readyP;
    await probersReadyP;
    // Let the joins and the announcements settle before measuring.
    await new Promise((r) => setTimeout(r, 1500));
    const rssBefore = process.memoryUsage().rss;
    sampler.start();
    eld.enable();
    const started = performance.now();
    roomProcess.send({ kind: "start", problem: `Stalls bench: deliver every parcel (${triples} triples)` });
    const done = await completeP;
    const seconds = (performance.now() - started) / 1000;
    // The archive is written in the completing step; leave a moment for what follows it.
    await new Promise((r) => setTimeout(r, 1000));
    eld.disable();
    sampler.stop();
    const peakMiB = process.resourceUsage().maxRSS / 1024;

    console.log(`\nsession of ~${triples} triples (${roomReady.contributedTriples} written by ${AGENTS.length} agents in ${roomReady.parts} parts; model sent in ${modelParts} parts): ${done.status}${done.reason ? ` (${done.reason})` : ""}, ${seconds.toFixed(1)} s`);
    console.log(`  ${"main-thread stalls by phase (10 ms timer)".padEnd(46)} ${"max".padStart(10)}   ${"p99".padStart(6)}   samples`);
    for (const phase of PHASES) {
      const d = sampler.of(phase);
      if (d.length === 0) continue;
      const max = Math.max(...d);
      const how = sampler.worstOf(phase);
      console.log(`  ${phase.padEnd(46)} ${ms(max).padStart(10)}   ${ms(percentile(d, 99)).padStart(6)}   ${String(d.length).padStart(5)}   target max ≤ ${TARGET_STALL_MS} ms${max <= TARGET_STALL_MS ? "  ok" : "  MISSED"}${how ? ` (the longest: ${how})` : ""}`);
    }
    const eldMax = eld.max / 1e6;
    line("event-loop delay max (monitorEventLoopDelay)", ms(eldMax), `≤ ${TARGET_STALL_MS} ms`, eldMax <= TARGET_STALL_MS);
    line("event-loop delay p99", ms(eld.percentile(99) / 1e6), "—");
    const helpMs = helps.map((h) => h.latencyMs);
    const helpMax = Math.max(...helpMs);
    const helpTarget = raisedLimits ? TARGET_HELP_MS : TARGET_HELP_MS;
    line(`help latency max (${helpMs.length} answered)`, ms(helpMax), `≤ ${helpTarget} ms`, helpMax <= helpTarget);
    line("help latency p50", ms(percentile(helpMs, 50)), "—");
    for (const phase of PHASES) {
      const h = helps.filter((x) => x.phase === phase).map((x) => x.latencyMs);
      const p = serverPings.filter((x) => x.phase === phase).map((x) => x.latencyMs);
      // The server's own answer time at the same moments: help cannot come back faster than that.
      const server = p.length ? ` (a ping to the server alone, max ${ms(Math.max(...p))})` : "";
      if (h.length) line(`  help max during ${phase}`, ms(Math.max(...h)), `—${server}`);
    }
    line("peak RSS (this process: coordinator + workers)", `${peakMiB.toFixed(0)} MiB`, raisedLimits ? `≤ ${TARGET_RSS_1M_MIB} MiB` : "—", raisedLimits ? peakMiB <= TARGET_RSS_1M_MIB : undefined);
    console.log(`  (RSS before the session: ${(rssBefore / 1024 / 1024).toFixed(0)} MiB)`);
    return { triples, status: done.status, reason: done.reason, modelParts, contributionParts: roomReady.parts, seconds };
  } finally {
    for (const child of [roomProcess, proberProcess]) {
      child.removeAllListeners("exit");
      if (child.exitCode === null) {
        child.send({ kind: "stop" });
        await new Promise((r) => child.once("exit", r));
      }
    }
    await launched.stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const options = optionsFrom(process.argv.slice(2));
  const commands = await ensureProsody({ allowInstall: false });
  const server = await startLocalProsody({ commands, ...(options.oneStanza ? { stanzaSizeLimit: ONE_STANZA_LIMIT } : {}) });
  // @xmpp/client 0.14 may throw from a socket's data handler while a client stops.
  process.on("uncaughtException", (err) => console.error(`(uncaught) ${err.message}`));
  try {
    const line = options.directLine ? "1:1 chat on the direct line" : "1:1 chat on the room connection (--no-direct-line)";
    console.log(`stalls: one session, coordinator in this process (pid ${process.pid}), shipped limits, ${line}; timings on a shared machine are noisy`);
    await runSession(server, options, options.triples, false);
    if (options.with1m) {
      console.log(`\n--with-1m: limits raised (mfr:maxTriplesPerContribution, timeouts) for a 1M-triple model`);
      await runSession(server, options, 1_000_000, true);
    }
  } finally {
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
