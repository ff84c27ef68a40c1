/**
 * A burst of sessions over a real Prosody, with instant agents: what the coordinator itself
 * costs per session, and how many sessions per second it carries.
 *
 * Starts a throw-away Prosody (src/localserver/), the coordinator as the real CLI in a child
 * process (so its CPU, memory and profile are its own), five agents that answer every
 * ModelContributionRequest at once with a generated contribution of about 200 triples (the
 * merged model is about 1.3k triples with the coordinator's links) and every SolutionRequest at
 * once with a proposal, an echo client, and a person who types `mfr-start`.
 *
 * 1. The room's own cost: echo round trips through the room (a short line, and a line as
 *    large as the warm-up session's SolutionRequest answered with a short one, as proposals
 *    answer it), measured when nothing else runs.
 * 2. One session at a time (`--sequential`, default 30): latency from `mfr-start` to the
 *    SessionComplete, and the overhead = latency − the room's share. A session's critical path
 *    crosses the room six times (start, request, contributions, SolutionRequest with the
 *    model, proposals, SessionComplete), i.e. two short round trips and one model-sized one.
 * 3. A burst (`--sessions`, default 600), once the echo client has left: every `mfr-start`
 *    sent at once; sessions per second from the first start to the last SessionComplete,
 *    latency p50/p95, lost (no SessionComplete), timed out, the coordinator's peak RSS, and
 *    where the machine's CPU went per session.
 *
 * The profile keeps the shipped timeouts and raises only the flood limits, which a burst from
 * one person and five agents would otherwise hit by design: mfr:messagesPerMinute (every
 * agent sends two messages per session), mfr:maxLiveSessions and mfr:maxLiveSessionsPerPerson.
 *
 * Prints figures only; not a test. Run: npm run build && node dist/bench/load.js
 *   [--sessions N] [--sequential K] [--workers W] [--cpu-prof DIR] [--log-level L] [--no-direct-line]
 *
 * During the burst a person outside the room asks `help` 1:1 (at the coordinator's bare JID)
 * every 250 ms: how long a person waits for an answer while the coordinator is at its busiest.
 * `--no-direct-line` turns the coordinator's direct line off (src/xmpp/direct-line.ts), so
 * that 1:1 chat shares the room connection, for comparison.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ensureProsody, startLocalProsody, type LocalProsody } from "../src/localserver/index.js";
import { syntheticContribution } from "../src/rdf/synthetic.js";
import { LINGUE, MFR, Mode } from "../src/base/vocab.js";
import { writeLocalAgentProfile } from "../src/localserver/agent-profile.js";
import { xml } from "@xmpp/client";
import { Occupant, type Element } from "./support/occupant.js";
import { childStartTag, childText } from "./support/raw-message.js";
import { SessionRecording, StandIn } from "./load/stand-in.js";
import { cpuMsOf, rssOf } from "./support/proc.js";
import { percentile } from "./support/figures.js";


const TARGET_OVERHEAD_MS = 30;
const TARGET_SESSIONS_PER_S = 60;
const AGENTS = ["ada", "bea", "cyd", "dot", "eve"];
const TRIPLES_PER_AGENT = 200;

interface Options {
  sessions: number;
  sequential: number;
  workers: number | undefined;
  cpuProfDir: string | undefined;
  logLevel: string;
  directLine: boolean;
}

function optionsFrom(argv: string[]): Options {
  // Unknown options are an error (strict), as before.
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      sessions: { type: "string", default: "600" },
      sequential: { type: "string", default: "30" },
      workers: { type: "string" },
      "cpu-prof": { type: "string" },
      "log-level": { type: "string", default: "info" },
      "no-direct-line": { type: "boolean", default: false },
    },
  });
  return {
    sessions: Number(values.sessions),
    sequential: Number(values.sequential),
    workers: values.workers === undefined ? undefined : Number(values.workers),
    cpuProfDir: values["cpu-prof"],
    logLevel: values["log-level"],
    directLine: !values["no-direct-line"],
  };
}

/** The size of the first SolutionRequest stanza an agent read (the warm-up's): what a "model-sized" echo sends. */
let solutionRequestChars = 0;

/**
 * Answers every request at once: a contribution of ~200 triples, a proposal claiming success.
 * It reads the requests from their text and parses nothing: parsing every model the room fans
 * out (five agents a session) was most of this bench's own CPU, taken from the two cores the
 * coordinator and the server share with it.
 */
function instantAgent(occupant: Occupant): void {
  const turtle = syntheticContribution(occupant.nick, TRIPLES_PER_AGENT);
  occupant.skim = (raw) => {
    if (!raw.startsWith("<message")) return false; // presence: who is in the room
    const payload = childStartTag(raw, "payload");
    if (!payload || payload.attrs.mode !== Mode.ModelNegotiation) return true;
    const type = payload.attrs.messageType ?? "";
    const sessionId = childText(raw, "sessionId") ?? "";
    if (type === `${MFR}ModelContributionRequest`) {
      void occupant.say(`Contribution for ${sessionId}.`, { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: turtle }, { sessionId });
    } else if (type === `${MFR}SolutionRequest`) {
      if (solutionRequestChars === 0) solutionRequestChars = raw.length;
      const proposal = { messageType: `${MFR}SolutionProposal`, sessionId, solution: { success: true, message: `Plan by ${occupant.nick}.`, plan: [`move-${occupant.nick}-0(truck-${occupant.nick}-0)`] } };
      void occupant.say(`Proposal for ${sessionId}.`, { mode: Mode.ModelNegotiation, mime: "application/json", content: JSON.stringify(proposal), messageType: `${MFR}SolutionProposal` });
    }
    return true;
  };
}

interface Outcome {
  sessionId: string;
  startedAt: number;
  completedAt: number | null;
  status: string | null;
  reason: string | null;
  refused: string | null;
}

/** The person who starts sessions and watches them end. */
class Person {
  /** Problem text → outcome; the problem text is unique per session. */
  private readonly byProblem = new Map<string, Outcome>();
  private readonly bySession = new Map<string, Outcome>();
  private readonly echoWaiters = new Map<string, () => void>();
  private readonly doneWaiters: Array<{ outcome: Outcome; resolve: () => void }> = [];

  constructor(readonly occupant: Occupant) {
    occupant.onMessage = (stanza) => this.onMessage(stanza);
  }

  /**
   * From now on the person parses only what it reads: chat (echoes, refusals), the requests
   * that name each session and the SessionComplete that ends it; the rest of the room's
   * traffic is dropped unparsed (see instantAgent). Not during the warm-up, which records it all.
   */
  skimRoomTraffic(): void {
    this.occupant.skim = (raw) => {
      if (!raw.startsWith("<message")) return false;
      const type = childStartTag(raw, "payload")?.attrs.messageType;
      return type !== undefined && type !== `${MFR}ModelContributionRequest` && type !== `${MFR}SessionComplete`;
    };
  }

  private onMessage(stanza: Element): void {
    const body = stanza.getChildText("body") ?? "";
    const echoed = /^echoed (\S+)/.exec(body);
    if (echoed) {
      this.echoWaiters.get(echoed[1] ?? "")?.();
      return;
    }
    if (body.startsWith(`${this.occupant.nick}: `) && !stanza.getChild("payload", LINGUE)) {
      // A refusal addressed to us ("… sessions are already running"): the start did not happen.
      const pending = [...this.byProblem.values()].find((o) => o.sessionId === "" && o.refused === null);
      if (pending) {
        pending.refused = body;
        this.settle(pending);
      }
      return;
    }
    const payload = stanza.getChild("payload", LINGUE);
    if (!payload || payload.attrs.mode !== Mode.ModelNegotiation) return;
    const type = String(payload.attrs.messageType ?? "");
    if (type === `${MFR}ModelContributionRequest`) {
      const json = JSON.parse(payload.text()) as { sessionId: string; problemDescription: string; round?: number };
      const outcome = this.byProblem.get(json.problemDescription);
      if (outcome && outcome.sessionId === "") {
        outcome.sessionId = json.sessionId;
        this.bySession.set(json.sessionId, outcome);
      }
    } else if (type === `${MFR}SessionComplete`) {
      const json = JSON.parse(payload.text()) as { sessionId: string; status: string; reason?: string };
      const outcome = this.bySession.get(json.sessionId);
      if (!outcome || outcome.completedAt !== null) return;
      outcome.completedAt = performance.now();
      outcome.status = json.status;
      outcome.reason = json.reason ?? null;
      this.settle(outcome);
    }
  }

  private settle(outcome: Outcome): void {
    const i = this.doneWaiters.findIndex((w) => w.outcome === outcome);
    if (i >= 0) this.doneWaiters.splice(i, 1)[0]?.resolve();
  }

  /** Sends `mfr-start`; the outcome fills in as the session runs. */
  start(problem: string): Outcome {
    const outcome: Outcome = { sessionId: "", startedAt: performance.now(), completedAt: null, status: null, reason: null, refused: null };
    this.byProblem.set(problem, outcome);
    void this.occupant.say(`mfr-start ${problem}`);
    return outcome;
  }

  done(outcome: Outcome, timeoutMs: number): Promise<boolean> {
    if (outcome.completedAt !== null || outcome.refused !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const i = this.doneWaiters.findIndex((w) => w.outcome === outcome);
        if (i >= 0) this.doneWaiters.splice(i, 1);
        resolve(false);
      }, timeoutMs);
      this.doneWaiters.push({ outcome, resolve: () => (clearTimeout(timer), resolve(true)) });
    });
  }

  /** One round trip through the room: our line to the echo client and its answer back. */
  async echo(tag: string, padding: string): Promise<number> {
    const started = performance.now();
    const back = new Promise<void>((resolve) => this.echoWaiters.set(tag, resolve));
    await this.occupant.say(`echo ${tag} ${padding}`);
    await back;
    this.echoWaiters.delete(tag);
    return performance.now() - started;
  }
}

function echoClient(occupant: Occupant): void {
  occupant.onMessage = (stanza) => {
    const body = stanza.getChildText("body") ?? "";
    const m = /^echo (\S+) ([\s\S]*)$/.exec(body);
    // Answered short, as proposals answer a SolutionRequest: one large message out, a short one back.
    if (m) void occupant.say(`echoed ${m[1]}`);
  };
}


const ms = (n: number): string => `${n.toFixed(1)} ms`;
/**
 * A person outside the room asking `help` 1:1 at the coordinator's bare JID every 250 ms, one
 * question out at a time; answers are matched in order.
 */
async function oneToOneAsker(server: LocalProsody, account: { username: string; password: string }, coordinatorJid: string) {
  const occupant = new Occupant(server, account.username, account.password, "", "asker");
  await occupant.connect();
  const latencies: number[] = [];
  let askedAt: number | undefined;
  let asked = 0;
  let timer: NodeJS.Timeout | undefined;
  occupant.onDirect = (stanza) => {
    if (askedAt === undefined || !(stanza.getChildText("body") ?? "").includes("mfr-start")) return;
    latencies.push(performance.now() - askedAt);
    askedAt = undefined;
  };
  return {
    occupant,
    latencies,
    get asked() {
      return asked;
    },
    start(): void {
      timer = setInterval(() => {
        if (askedAt !== undefined) return;
        askedAt = performance.now();
        asked++;
        void occupant.xmpp.send(xml("message", { to: coordinatorJid, type: "chat" }, xml("body", {}, "help")));
      }, 250);
    },
    stop(): void {
      clearInterval(timer);
    },
  };
}

function line(label: string, value: string, target: string, met?: boolean): void {
  const mark = met === undefined ? "" : met ? "  ok" : "  MISSED";
  console.log(`  ${label.padEnd(44)} ${value.padStart(14)}   target ${target}${mark}`);
}

async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * CPU used so far by the coordinator (all its threads, and its main thread alone: the one
 * whose id is the process's), Prosody, and this process (the agents, the person, the echo).
 */
function cpuNow(coordinatorPid: number, prosodyPid: number): { coordinator: number; coordinatorMain: number; prosody: number; bench: number } {
  const own = process.cpuUsage();
  return {
    coordinator: cpuMsOf(coordinatorPid),
    coordinatorMain: cpuMsOf(coordinatorPid, coordinatorPid),
    prosody: cpuMsOf(prosodyPid),
    bench: (own.user + own.system) / 1000,
  };
}

/** CPU per session between two readings, as one line's words. */
function cpuPerSession(before: ReturnType<typeof cpuNow>, after: ReturnType<typeof cpuNow>, sessions: number) {
  const per = (key: keyof typeof before): number => (after[key] - before[key]) / Math.max(1, sessions);
  const cpu = { coordinator: per("coordinator"), main: per("coordinatorMain"), prosody: per("prosody"), bench: per("bench") };
  const words = `coordinator ${ms(cpu.coordinator)} (main thread ${ms(cpu.main)}, model workers and the rest ${ms(cpu.coordinator - cpu.main)}), Prosody ${ms(cpu.prosody)}, this bench's agents and clients ${ms(cpu.bench)}`;
  return { ...cpu, words };
}

function startCoordinator(server: LocalProsody, dir: string, account: { username: string; password: string }, room: string, options: Options): ChildProcess {
  const { profile, secrets } = writeLocalAgentProfile(dir, {
    node: "coordinator",
    nick: "Coordinator",
    server,
    account,
    passwordKey: "coordinator",
    resource: "Coordinator",
    room,
    mfrConfig: `mfr:dataDir "${join(dir, "data")}" ;
    mfr:enableDebate false ;
    # Flood limits raised for the burst (the shipped timeouts are kept):
    mfr:messagesPerMinute 1000000 ; mfr:maxLiveSessions 100000 ; mfr:maxLiveSessionsPerPerson 100000 ;
    ${options.workers !== undefined ? `mfr:modelWorkers ${options.workers} ;` : ""}`,
    xmppAccount: `; xmpp:directLine ${options.directLine}`,
  });
  const cli = fileURLToPath(new URL("../src/cli.js", import.meta.url));
  const log = openSync(join(dir, "coordinator.log"), "w");
  const nodeArgs = options.cpuProfDir ? ["--cpu-prof", "--cpu-prof-dir", options.cpuProfDir] : [];
  const child = spawn(process.execPath, [...nodeArgs, cli, "start", "--profile", profile, "--secrets", secrets], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: options.logLevel },
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  return child;
}

async function main(): Promise<void> {
  const options = optionsFrom(process.argv.slice(2));
  const commands = await ensureProsody({ allowInstall: false });
  const server = await startLocalProsody({ commands });
  const dir = mkdtempSync(join(tmpdir(), "mfr-load-"));
  const room = `load-${process.pid}@${server.mucDomain}`;
  const occupants: Occupant[] = [];
  let coordinator: ChildProcess | undefined;
  try {
    const account = async (name: string) => {
      const username = `${name}-${Math.random().toString(36).slice(2, 8)}`;
      const password = `pw-${username}`;
      await server.register(username, password);
      return { username, password };
    };
    const coordinatorAccount = await account("coordinator");
    coordinator = startCoordinator(server, dir, coordinatorAccount, room, options);
    const child = coordinator;

    const personAccount = await account("pat");
    const person = new Person(new Occupant(server, personAccount.username, personAccount.password, room, "pat"));
    occupants.push(person.occupant);
    await person.occupant.join();
    await waitUntil(() => person.occupant.present.has("Coordinator") || child.exitCode !== null, 20_000, "the coordinator to join the room");
    if (child.exitCode !== null) throw new Error(`the coordinator exited with ${child.exitCode}; see ${join(dir, "coordinator.log")}`);
    const echoAccount = await account("echo");
    const echo = new Occupant(server, echoAccount.username, echoAccount.password, room, "echo");
    occupants.push(echo);
    echoClient(echo);
    await echo.join();
    for (const nick of AGENTS) {
      const a = await account(nick);
      const agent = new Occupant(server, a.username, a.password, room, nick);
      occupants.push(agent);
      instantAgent(agent);
      await agent.join();
      // Peers announce themselves; the coordinator learns from protocol traffic who is an agent.
      await agent.say(`${nick} ready`, { mode: Mode.HumanChat, mime: "text/plain", content: `${nick} ready` });
    }
    await waitUntil(() => AGENTS.every((n) => person.occupant.present.has(n)) && person.occupant.present.has("echo"), 10_000, "the agents to join");
    await new Promise((r) => setTimeout(r, 500));

    // The warm-up session, with what the coordinator sent in it recorded for the stand-in.
    const recording = new SessionRecording();
    const personHears = person.occupant.onMessage;
    person.occupant.onMessage = (stanza) => {
      if (String(stanza.attrs.from).endsWith("/Coordinator")) recording.add(stanza);
      personHears(stanza);
    };
    const warmUp = person.start(`Load bench warm-up: deliver the goods`);
    if (!(await person.done(warmUp, 60_000))) throw new Error("the warm-up session did not complete");
    person.occupant.onMessage = personHears;
    person.skimRoomTraffic();

    // The room's share of a session: the stand-in (bench/load/stand-in.ts) in a room of its own,
    // as many occupants as this one (a person, an idle listener, five agents, the stand-in).
    // The listener leaves before the replays that measure the server's CPU, as the echo client
    // leaves this room before the burst.
    const standInRoom = `stand-in-${process.pid}@${server.mucDomain}`;
    const joinStandInRoom = async (nick: string): Promise<Occupant> => {
      const a = await account(nick);
      const occupant = new Occupant(server, a.username, a.password, standInRoom, nick);
      occupants.push(occupant);
      await occupant.join();
      return occupant;
    };
    const standIn = await joinStandInRoom("Coordinator");
    new StandIn(standIn, recording, AGENTS.length);
    const starter = await joinStandInRoom("pat");
    const standInEcho = await joinStandInRoom("echo");
    for (const nick of AGENTS) instantAgent(await joinStandInRoom(nick));
    await waitUntil(() => AGENTS.every((n) => starter.present.has(n)) && starter.present.has("Coordinator"), 10_000, "the stand-in's room to fill");
    let replayNumber = 0;
    /** One replayed session, start to SessionComplete, in ms. */
    const replay = async (): Promise<number> => {
      const started = performance.now();
      const complete = new Promise<void>((resolve) => {
        starter.onMessage = (stanza) => {
          if (stanza.getChild("payload", LINGUE)?.attrs.messageType === `${MFR}SessionComplete`) resolve();
        };
      });
      await starter.say(`mfr-start Load bench replay ${++replayNumber}: deliver the goods`);
      await complete;
      return performance.now() - started;
    };
    // The first few warm the stand-in's room up, as the warm-up session did the coordinator's.
    for (let i = 0; i < 5; i++) await replay();
    const replays: number[] = [];
    for (let i = 0; i < Math.max(10, options.sequential); i++) replays.push(await replay());
    const roomShareOfSession = percentile(replays, 50);
    // What the server spends on a session's messages alone, in a room like the burst's (the
    // echo client gone): no coordinator can make a burst cheaper than this.
    await standInEcho.leave();
    await waitUntil(() => !starter.present.has("echo"), 10_000, "the stand-in's echo client to leave");
    const floorReplays = Math.max(10, options.sequential);
    const prosodyBeforeReplays = cpuMsOf(server.pid);
    for (let i = 0; i < floorReplays; i++) await replay();
    const prosodyPerReplay = (cpuMsOf(server.pid) - prosodyBeforeReplays) / floorReplays;

    // 1. The room's own cost, measured when nothing else runs; "model-sized" is as large as
    // the warm-up session's SolutionRequest was.
    const modelSized = "x".repeat(Math.max(0, solutionRequestChars - 200));
    for (let i = 0; i < 5; i++) await person.echo(`warm-${i}`, "");
    const shortTrips: number[] = [];
    const modelTrips: number[] = [];
    for (let i = 0; i < 30; i++) shortTrips.push(await person.echo(`s${i}`, ""));
    for (let i = 0; i < 15; i++) modelTrips.push(await person.echo(`m${i}`, modelSized));
    const roomShare = 2 * percentile(shortTrips, 50) + percentile(modelTrips, 50);

    // 2. One session at a time.
    const cpuBeforeSequential = cpuNow(child.pid as number, server.pid);
    const sequential: Outcome[] = [];
    for (let i = 0; i < options.sequential; i++) {
      const o = person.start(`Load bench sequential ${i}: deliver the goods`);
      await person.done(o, 60_000);
      sequential.push(o);
    }
    const seqLatency = sequential.filter((o) => o.completedAt !== null).map((o) => (o.completedAt as number) - o.startedAt);
    const sequentialCpu = cpuPerSession(cpuBeforeSequential, cpuNow(child.pid as number, server.pid), seqLatency.length);

    // 3. The burst, in a room of the coordinator, the five agents and the person: the echo
    // client, an instrument of step 1, leaves first, so that the server does not copy every
    // message of the burst to an idle listener of the bench's own.
    await echo.leave();
    await waitUntil(() => !person.occupant.present.has("echo"), 10_000, "the echo client to leave");
    const asker = await oneToOneAsker(server, await account("asker"), `${coordinatorAccount.username}@${server.domain}`);
    occupants.push(asker.occupant);
    const rssBefore = rssOf(child.pid as number);
    const cpuBefore = cpuNow(child.pid as number, server.pid);
    asker.start();
    const burst: Outcome[] = [];
    const burstStarted = performance.now();
    for (let i = 0; i < options.sessions; i++) burst.push(person.start(`Load bench burst ${i}: deliver the goods`));
    // Longest a clean session may take under the shipped timeouts: contributions + validation + reasoning.
    const limitMs = 30_000 + 12_000 + 60_000 + 10_000;
    await Promise.all(burst.map((o) => person.done(o, limitMs)));
    asker.stop();
    const rssAfter = rssOf(child.pid as number);
    const cpuAfter = cpuNow(child.pid as number, server.pid);
    const completed = burst.filter((o) => o.completedAt !== null);
    const lastCompleted = Math.max(...completed.map((o) => o.completedAt as number));
    const burstSeconds = (lastCompleted - burstStarted) / 1000;
    const burstLatency = completed.map((o) => (o.completedAt as number) - o.startedAt);
    const timedOut = completed.filter((o) => o.status === "timed-out" || /time|within/i.test(o.reason ?? ""));
    const statuses = new Map<string, number>();
    for (const o of burst) statuses.set(o.status ?? (o.refused ? "refused" : "lost"), (statuses.get(o.status ?? (o.refused ? "refused" : "lost")) ?? 0) + 1);

    console.log(`load: ${AGENTS.length} instant agents, ~${TRIPLES_PER_AGENT} triples each; coordinator workers: ${options.workers ?? "default"}; log level ${options.logLevel}`);
    console.log(`room round trips (echo through the room, p50): short ${ms(percentile(shortTrips, 50))}, model-sized (${(solutionRequestChars / 1024).toFixed(0)} KiB out, short back) ${ms(percentile(modelTrips, 50))}; a session's share ${ms(roomShare)} (2 short + 1 model-sized)`);
    console.log(`one session at a time (${seqLatency.length} of ${options.sequential} completed):`);
    line("latency p50 (mfr-start → SessionComplete)", ms(percentile(seqLatency, 50)), "—");
    line("latency p95", ms(percentile(seqLatency, 95)), "—");
    line("room's share (stand-in replaying a session, p50)", ms(roomShareOfSession), "—");
    const overhead = percentile(seqLatency, 50) - roomShareOfSession;
    line("coordinator overhead p50 (latency − room)", ms(overhead), `≤ ${TARGET_OVERHEAD_MS} ms`, overhead <= TARGET_OVERHEAD_MS);
    line("coordinator overhead p95", ms(percentile(seqLatency, 95) - roomShareOfSession), "—");
    line("(latency p50 − the echoes' share, as before)", ms(percentile(seqLatency, 50) - roomShare), "—");
    console.log(`  CPU per session: ${sequentialCpu.words}`);
    console.log(`burst of ${options.sessions} (all mfr-start sent at once):`);
    const rate = completed.length / burstSeconds;
    line("sessions/s sustained (first start → last end)", rate.toFixed(1), `≥ ${TARGET_SESSIONS_PER_S}`, rate >= TARGET_SESSIONS_PER_S);
    line("latency p50", ms(percentile(burstLatency, 50)), "—");
    line("latency p95", ms(percentile(burstLatency, 95)), "—");
    line("lost (no SessionComplete)", String(options.sessions - completed.length), "0", completed.length === options.sessions);
    line("timed out", String(timedOut.length), "0", timedOut.length === 0);
    line("coordinator peak RSS", `${rssAfter.peakMiB.toFixed(0)} MiB`, "— (before the burst: " + `${rssBefore.nowMiB.toFixed(0)} MiB)`);
    const helps = asker.latencies;
    line(
      `1:1 help during the burst, p50 (${helps.length} of ${asker.asked} answered; ${options.directLine ? "direct line" : "room connection"})`,
      helps.length ? ms(percentile(helps, 50)) : "—",
      "—",
    );
    line("1:1 help during the burst, max", helps.length ? ms(Math.max(...helps)) : "—", "—");
    // Where the machine's CPU went during the burst, per completed session: the sessions per
    // second a burst can reach is bounded by cores ÷ (the sum of the three).
    const cpu = cpuPerSession(cpuBefore, cpuAfter, completed.length);
    const cores = availableParallelism();
    const ceiling = (ms: number): string => (ms > 0 ? `${((cores * 1000) / ms).toFixed(0)} sessions/s` : "—");
    console.log(
      `  CPU per session in the burst: ${cpu.words}; on ${cores} cores the ceiling is ${ceiling(cpu.coordinator + cpu.prosody + cpu.bench)} ` +
        `for all three, ${ceiling(cpu.coordinator)} for the coordinator alone`,
    );
    console.log(
      `  Prosody's CPU for a session's messages alone (the stand-in's replays): ${ms(prosodyPerReplay)}; ` +
        `Prosody runs on one thread, so no coordinator can take a burst past ${ceiling(prosodyPerReplay * cores)} with this server on this machine`,
    );
    console.log(`  statuses: ${[...statuses].map(([s, n]) => `${s} ${n}`).join(", ")}`);
    if (timedOut[0]) console.log(`  e.g. ${timedOut[0].sessionId}: ${timedOut[0].reason ?? ""}`);
  } finally {
    // @xmpp/client 0.14 may throw from a socket's data handler while a client stops (its
    // parser is already gone); nothing is measured any more, so that is not worth dying for.
    process.on("uncaughtException", (err) => console.error(`(while stopping) ${err.message}`));
    if (coordinator && coordinator.exitCode === null) {
      const exited = new Promise((r) => coordinator?.once("exit", r));
      coordinator.kill("SIGTERM");
      await exited;
    }
    for (const o of occupants) await o.stop();
    await server.stop();
    if (options.cpuProfDir) console.log(`profile written to ${options.cpuProfDir}; coordinator log kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
