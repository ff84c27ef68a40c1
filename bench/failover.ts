/**
 * Several coordinators on one PostgreSQL database (src/fleet/), measured over a throw-away
 * Prosody and a throw-away PostgreSQL (src/localserver/), with the SHIPPED lease timing
 * (nothing set in MFR_LEASE_*).
 *
 * 1. Failover: two or three instances (`--instances`, default 3) on one account and one
 *    room, sessions started by a person every `--pace` ms (default 700) and run by instant
 *    agents. At random moments (`--gap`, default 1–4 s after the previous takeover) the owner is killed with
 *    -9, `--kills` times (default 20); once another instance has taken over, the killed one
 *    is started again as a new standby. Prints the time from the kill to the next message
 *    the new owner sends (read on its own wire: every instance reaches the server through a
 *    tap, bench/support/wire-tap.ts), p50 and max; then, once every session has ended,
 *    sessions lost (an `mfr-start` without a SessionComplete), protocol messages duplicated
 *    (an origin-id the person heard twice) and contributions missed (sent to a session and
 *    not counted in its SessionComplete).
 * 2. Throughput: a burst of `--sessions` starts (default 150) per room, all at once, with
 *    one coordinator on SQLite, one instance on PostgreSQL, and two instances on one
 *    PostgreSQL database each owning a room of its own (MFR_ROOMS, at most one room each):
 *    sessions per second from the first start to the last SessionComplete.
 *
 * Prints figures only; not a test. Run: npm run build && node dist/bench/failover.js
 *   [--kills N] [--instances 2|3] [--pace MS] [--gap MIN-MAX] [--sessions N] [--agents N] [--triples N]
 *   [--seed N] [--no-kills] [--no-throughput] [--log-level L]
 * Each instance's log is written to `coordinator.log` in its directory; FAILOVER_BENCH_KEEP=1 keeps
 * the directories (and says where) instead of removing them at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureProsody, startLocalProsody, type LocalProsody } from "../src/localserver/index.js";
import { startTestPostgres, type TestPostgres } from "../src/localserver/postgres.js";
import { CoordinatorInstance, type InstanceSpec } from "./failover/instance.js";
import { BenchRoom } from "./failover/room.js";
import { percentile, sleep, until } from "./support/figures.js";
import { seededRandom } from "./verification/prng.js";

const TARGET_FAILOVER_MAX_MS = 10_000;
const SHIPPED_LEASE = { ms: 6000, renewMs: 2000, marginMs: 1000 };
/** The shipped session settings, with the flood limits raised: one person starts every session of the bench. */
const MFR_CONFIG = "mfr:enableDebate false ; mfr:messagesPerMinute 1000000 ; mfr:maxLiveSessions 100000 ; mfr:maxLiveSessionsPerPerson 100000 ;";

interface Options {
  kills: number;
  instances: number;
  paceMs: number;
  /** How long after a takeover the next kill comes: uniformly between these (ms). */
  gapMs: [number, number];
  sessions: number;
  agents: number;
  triples: number;
  seed: number;
  runKills: boolean;
  runThroughput: boolean;
  logLevel: string;
}

function optionsFrom(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      kills: { type: "string", default: "20" },
      instances: { type: "string", default: "3" },
      pace: { type: "string", default: "700" },
      gap: { type: "string", default: "1000-4000" },
      sessions: { type: "string", default: "150" },
      agents: { type: "string", default: "3" },
      triples: { type: "string", default: "100" },
      seed: { type: "string" },
      "no-kills": { type: "boolean", default: false },
      "no-throughput": { type: "boolean", default: false },
      "log-level": { type: "string", default: "info" },
    },
  });
  const instances = Number(values.instances);
  const gap = /^(\d+)-(\d+)$/.exec(values.gap);
  if (!gap || Number(gap[1]) > Number(gap[2])) throw new RangeError("--gap is MIN-MAX in ms, e.g. 1000-4000");
  if (instances < 2 || instances > 3) throw new RangeError("--instances is 2 or 3");
  return {
    kills: Number(values.kills),
    instances,
    paceMs: Number(values.pace),
    gapMs: [Number(gap[1]), Number(gap[2])],
    sessions: Number(values.sessions),
    agents: Number(values.agents),
    triples: Number(values.triples),
    seed: values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed),
    runKills: !values["no-kills"],
    runThroughput: !values["no-throughput"],
    logLevel: values["log-level"],
  };
}



const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

function line(label: string, value: string, target: string, met?: boolean): void {
  const mark = met === undefined ? "" : met ? "  ok" : "  MISSED";
  console.log(`  ${label.padEnd(50)} ${value.padStart(16)}   target ${target}${mark}`);
}

/** Accounts, rooms and directories of one part of the bench, and everything to stop after it. */
class Stage {
  readonly instances: CoordinatorInstance[] = [];
  readonly rooms: BenchRoom[] = [];
  private n = 0;

  constructor(
    readonly server: LocalProsody,
    readonly dir: string,
  ) {}

  async account(name: string): Promise<{ username: string; password: string }> {
    this.n += 1;
    const username = `${name}-${process.pid}-${this.n}-${Math.random().toString(36).slice(2, 6)}`;
    const password = `pw-${username}`;
    await this.server.register(username, password);
    return { username, password };
  }

  roomJid(name: string): string {
    this.n += 1;
    return `${name}-${process.pid}-${this.n}@${this.server.mucDomain}`;
  }

  async instance(spec: Omit<InstanceSpec, "dir" | "server">): Promise<CoordinatorInstance> {
    const instance = await CoordinatorInstance.create({ ...spec, dir: join(this.dir, spec.id), server: this.server });
    this.instances.push(instance);
    instance.start();
    return instance;
  }

  async room(room: string, agents: number, triples: number): Promise<BenchRoom> {
    const nicks = ["ada", "bea", "cyd", "dot", "eve", "fay", "gus", "hal"].slice(0, agents);
    const accounts = { person: await this.account("pat"), agents: await Promise.all(nicks.map(async (nick) => ({ nick, ...(await this.account(nick)) }))) };
    const r = new BenchRoom(this.server, room, accounts, triples);
    this.rooms.push(r);
    await r.join();
    return r;
  }

  async stop(): Promise<void> {
    for (const r of this.rooms) await r.stop();
    for (const i of this.instances) await i.close();
  }
}

/** The first "took over room" line of `room` at or after `since` by an instance other than `not`. */
function takeoverSince(instances: readonly CoordinatorInstance[], room: string, since: number, not?: CoordinatorInstance) {
  for (const instance of instances) {
    if (instance === not || !instance.alive) continue;
    const took = instance.current().find((l) => l.msg === "took over room" && l.room === room && l.time >= since);
    if (took) return { instance, at: took.time };
  }
  return undefined;
}

interface KillFigures {
  failoverMs: number[];
  takeoverMs: number[];
  newOwners: string[];
  started: number;
  completed: number;
  lost: number;
  duplicated: number;
  completedTwice: number;
  missed: number;
  contributions: number;
  speakerChanges: number;
  lease: unknown;
  dirs: string[];
  /** Lines that show where a target was missed: duplicates with who sent each copy, sessions that missed contributions. */
  details: string[];
}

async function killRun(server: LocalProsody, postgres: TestPostgres, options: Options, random: () => number, dir: string): Promise<KillFigures> {
  const stage = new Stage(server, dir);
  try {
    const databaseUrl = await postgres.createDatabase();
    const room = stage.roomJid("failover");
    const account = await stage.account("coordinator");
    const instances: CoordinatorInstance[] = [];
    for (let i = 1; i <= options.instances; i++) {
      const instance = await stage.instance({ id: `i${i}`, account, room, databaseUrl, mfrConfig: MFR_CONFIG, logLevel: options.logLevel });
      await until(`${instance.id} to take the room or stand by`, () => instance.current().some((l) => l.msg === "standing by") && (i > 1 || instance.owns(room)), 30_000);
      instances.push(instance);
    }
    const lease = instances[0]?.current().find((l) => l.msg === "standing by")?.lease;
    const bench = await stage.room(room, options.agents, options.triples);
    await until("the coordinator in the room", () => bench.coordinatorPresent(), 20_000);
    await sleep(500);
    const warm = bench.start("warm-up");
    await until("the warm-up session", () => warm.completedAt !== undefined, 60_000);

    let pacing = true;
    const pacer = (async () => {
      while (pacing) {
        bench.start("kill-run");
        await sleep(options.paceMs);
      }
    })();
    const figures: Pick<KillFigures, "failoverMs" | "takeoverMs" | "newOwners"> & { killedAt: number[] } = { failoverMs: [], takeoverMs: [], newOwners: [], killedAt: [] };
    for (let k = 1; k <= options.kills; k++) {
      await until("an owner of the room", () => instances.some((i) => i.owns(room)), 60_000);
      await sleep(options.gapMs[0] + random() * (options.gapMs[1] - options.gapMs[0]));
      const owner = instances.find((i) => i.owns(room));
      if (!owner) throw new Error("the owner went away by itself");
      const killedAt = await owner.kill9();
      let next: ReturnType<typeof takeoverSince>;
      await until(`a takeover after kill ${k}`, () => (next = takeoverSince(instances, room, killedAt, owner)) !== undefined, 60_000);
      const newOwner = next!.instance;
      const firstMessage = () => newOwner.tap.sent.find((s) => s.kind === "message" && s.at >= killedAt && (s.to === room || s.to.startsWith(`${room}/`)));
      await until(`the new owner's first message after kill ${k}`, () => firstMessage() !== undefined, 30_000);
      figures.failoverMs.push(firstMessage()!.at - killedAt);
      figures.takeoverMs.push(next!.at - killedAt);
      figures.newOwners.push(newOwner.id);
      figures.killedAt.push(killedAt);
      console.error(`kill ${k}: ${owner.id} killed; ${newOwner.id} took over after ${seconds(next!.at - killedAt)}, said its first message after ${seconds(firstMessage()!.at - killedAt)}`);
      // The killed one comes back as a new standby.
      owner.start();
      await until(`${owner.id} to stand by again`, () => owner.current().some((l) => l.msg === "standing by"), 30_000);
    }
    pacing = false;
    await pacer;
    // Every session ends within the shipped windows; instant agents make it seconds.
    await until("every session to end", () => bench.unfinished().length === 0, 120_000).catch(() => undefined);
    await sleep(2000);

    // Who spoke, in order, on the wire: a change of speaker should be a change of owner.
    const sends = instances.flatMap((i) => i.tap.sent.filter((s) => s.kind === "message" && s.originId !== undefined).map((s) => ({ at: s.at, id: i.id }))).sort((a, b) => a.at - b.at);
    let speakerChanges = 0;
    for (let i = 1; i < sends.length; i++) if (sends[i]?.id !== sends[i - 1]?.id) speakerChanges += 1;
    const details: string[] = [];
    const t0 = bench.started[0]?.startedAt ?? 0;
    const at = (t: number) => `+${((t - t0) / 1000).toFixed(1)} s`;
    for (const d of bench.duplicates().slice(0, 10)) {
      const copies = instances.flatMap((i) => i.tap.sent.filter((x) => x.originId === d.originId).map((x) => `${i.id} ${at(x.at)}`));
      details.push(`duplicated ${d.originId}: heard at ${d.heardAt.map(at).join(", ")}; sent by ${copies.join(", ")}`);
    }
    details.push(`kills at ${figures.killedAt.map(at).join(", ")}`);
    for (const s of bench.unfinished().slice(0, 10)) {
      const sent = s.sessionId === undefined ? [] : instances.flatMap((i) => i.tap.sent.filter((x) => x.sessionId === s.sessionId && x.kind === "message").map((x) => `${i.id} ${(x.messageType ?? x.type).replace(/^.*\//, "")} ${at(x.at)}`));
      details.push(`lost: ${s.problem.replace(/ in .*$/, "")} (session ${s.sessionId ?? "never named"}, started ${at(s.startedAt)}); its stanzas on the wire: ${sent.join(", ") || "none"}`);
    }
    const missedBySession = new Map<string, string[]>();
    for (const m of bench.missedContributions()) missedBySession.set(m.sessionId, [...(missedBySession.get(m.sessionId) ?? []), m.agent]);
    for (const [sessionId, agents] of [...missedBySession].slice(0, 10)) {
      const s = bench.started.find((x) => x.sessionId === sessionId);
      details.push(`missed in ${sessionId} (started ${s ? at(s.startedAt) : "?"}, ended ${s?.completedAt ? at(s.completedAt) : "?"}, ${s?.status ?? "?"}): ${agents.join(", ")}`);
    }
    return {
      ...figures,
      details,
      started: bench.started.length,
      completed: bench.started.length - bench.unfinished().length,
      lost: bench.unfinished().length,
      duplicated: bench.duplicated(),
      completedTwice: bench.completedTwice(),
      missed: bench.missedContributions().length,
      contributions: [...bench.contributed.values()].reduce((n, s) => n + s.size, 0),
      speakerChanges,
      lease,
      dirs: instances.map((i) => i.spec.dir),
    };
  } finally {
    await stage.stop();
  }
}

interface Throughput {
  label: string;
  rate: number;
  perRoom: number[];
  completed: number;
  started: number;
}


/** A burst of `sessions` starts in each room at once; sessions per second from the first start to the last end. */
async function throughput(server: LocalProsody, postgres: TestPostgres | undefined, instances: number, options: Options, dir: string, label: string): Promise<Throughput> {
  const stage = new Stage(server, dir);
  try {
    const databaseUrl = postgres ? await postgres.createDatabase() : undefined;
    const roomJids = Array.from({ length: instances }, (_, i) => stage.roomJid(`burst${i + 1}`));
    const account = await stage.account("coordinator");
    const primary = roomJids[0] as string;
    const running: CoordinatorInstance[] = [];
    for (let i = 1; i <= instances; i++) {
      running.push(
        await stage.instance({
          id: `t${i}`,
          account,
          room: primary,
          ...(databaseUrl ? { databaseUrl, rooms: roomJids.slice(1), maxRoomsPerInstance: 1 } : {}),
          mfrConfig: MFR_CONFIG,
          logLevel: "warn",
        }),
      );
    }
    const rooms: BenchRoom[] = [];
    for (const jid of roomJids) {
      const r = await stage.room(jid, options.agents, options.triples);
      rooms.push(r);
    }
    await until("a coordinator in every room", () => rooms.every((r) => r.coordinatorPresent()), 60_000);
    await sleep(500);
    const warm = rooms.map((r) => r.start("warm-up"));
    await until("the warm-up sessions", () => warm.every((s) => s.completedAt !== undefined), 60_000);
    const startedAt = Date.now();
    const burst = rooms.map((r) => Array.from({ length: options.sessions }, () => r.start("burst")));
    await until("the burst", () => burst.flat().every((s) => s.completedAt !== undefined), 180_000).catch(() => undefined);
    const done = burst.flat().filter((s) => s.completedAt !== undefined);
    const end = Math.max(...done.map((s) => s.completedAt as number));
    const perRoom = burst.map((b) => {
      const d = b.filter((s) => s.completedAt !== undefined);
      return d.length / ((Math.max(...d.map((s) => s.completedAt as number)) - startedAt) / 1000);
    });
    return {
      label,
      rate: done.length / ((end - startedAt) / 1000),
      perRoom,
      completed: done.length,
      started: burst.flat().length,
    };
  } finally {
    await stage.stop();
  }
}

async function main(): Promise<void> {
  const options = optionsFrom(process.argv.slice(2));
  // Seeded, so a run's kill moments can be had again with --seed.
  const random = seededRandom(options.seed);
  const server = await startLocalProsody({ commands: await ensureProsody({ allowInstall: false }) });
  const postgres = await startTestPostgres();
  const dir = mkdtempSync(join(tmpdir(), "mfr-failover-bench-"));
  try {
    if (options.runKills) {
      const k = await killRun(server, postgres, options, random, join(dir, "kills"));
      const max = Math.max(...k.failoverMs);
      console.log(
        `failover: ${k.failoverMs.length} kills (kill -9 of the owner ${options.gapMs[0] / 1000}–${options.gapMs[1] / 1000} s after each takeover, at random, seed ${options.seed}), ${options.instances} instances on one database, ` +
          `lease ${JSON.stringify(k.lease ?? "?")} (shipped: ${SHIPPED_LEASE.ms}/${SHIPPED_LEASE.renewMs}/${SHIPPED_LEASE.marginMs} ms); a session started every ${options.paceMs} ms, ${options.agents} instant agents`,
      );
      line("kill → next message of the new owner, p50", seconds(percentile(k.failoverMs, 50)), "—");
      line("kill → next message of the new owner, max", seconds(max), `≤ ${TARGET_FAILOVER_MAX_MS / 1000} s`, max <= TARGET_FAILOVER_MAX_MS);
      line("kill → \"took over room\", p50 / max", `${seconds(percentile(k.takeoverMs, 50))} / ${seconds(Math.max(...k.takeoverMs))}`, "—");
      line("sessions started / completed", `${k.started} / ${k.completed}`, "—");
      line("sessions lost", String(k.lost), "0", k.lost === 0);
      line("protocol messages duplicated (by origin-id)", String(k.duplicated), "0", k.duplicated === 0);
      line("sessions completed twice", String(k.completedTwice), "0", k.completedTwice === 0);
      line("contributions missed", `${k.missed} of ${k.contributions}`, "0", k.missed === 0);
      line("changes of speaker on the wire", String(k.speakerChanges), `= kills (${k.failoverMs.length})`, k.speakerChanges === k.failoverMs.length);
      console.log(`  new owners in turn: ${k.newOwners.join(" ")}`);
      for (const d of k.details) console.log(`  ${d}`);
    }
    if (options.runThroughput) {
      const runs = [
        await throughput(server, undefined, 1, options, join(dir, "sqlite"), "SQLite, 1 coordinator, 1 room"),
        await throughput(server, postgres, 1, options, join(dir, "pg1"), "PostgreSQL, 1 instance, 1 room"),
        await throughput(server, postgres, 2, options, join(dir, "pg2"), "PostgreSQL, 2 instances, a room each"),
      ];
      console.log(`throughput: a burst of ${options.sessions} sessions per room, all started at once; ${options.agents} instant agents of ~${options.triples} triples per room; shipped windows, flood limits raised`);
      for (const r of runs) {
        const rooms = r.perRoom.length > 1 ? ` (per room ${r.perRoom.map((x) => x.toFixed(1)).join(" + ")})` : "";
        line(`${r.label}: sessions/s`, `${r.rate.toFixed(1)}${rooms}`, "—");
        if (r.completed < r.started) line(`${r.label}: lost`, String(r.started - r.completed), "0", false);
      }
    }
  } finally {
    await postgres.stop();
    await server.stop();
    if (!process.env.FAILOVER_BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
    else console.log(`instance logs kept in ${dir}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
