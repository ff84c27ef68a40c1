/**
 * The run of bench/rooms.ts (and of its small version in test/fleet/rooms.test.ts): R rooms
 * over three coordinator instances on one PostgreSQL, a person and a few instant agents that
 * each sit in every room on one connection, a session started in a random room every
 * `paceMs`; kill -9 of one instance at a random moment, and, once its rooms are taken over
 * and it is back as a standby, of another. What it measures is returned, not printed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { LocalProsody } from "../../src/localserver/index.js";
import type { TestPostgres } from "../../src/localserver/postgres.js";
import { CoordinatorInstance } from "../failover/instance.js";
import { sleep, until as untilEvery } from "../support/figures.js";
import { cpuMsOf, rssOf } from "../support/proc.js";
import { Crowd } from "./crowd.js";

/** The shipped session settings, with the flood limits raised: one person starts every session of the bench. */
const MFR_CONFIG = "mfr:enableDebate false ; mfr:messagesPerMinute 1000000 ; mfr:maxLiveSessions 100000 ; mfr:maxLiveSessionsPerPerson 100000 ;";
const INSTANCES = 3;

export interface RoomsOptions {
  rooms: number;
  /** How many instances are killed, one after another's takeover (1 or 2). */
  kills: number;
  /** A session is started in a random room this often (ms). */
  paceMs: number;
  /** How long the sessions run before the first kill (ms): the window CPU per session is measured over. */
  steadyMs: number;
  /** How long after a takeover the next kill comes: uniformly between these (ms). */
  gapMs: [number, number];
  agents: number;
  triples: number;
  /** Busy loops (processes that spin) beside the bench, as other work on the machine. */
  busy: number;
  /** Lease timing; default the shipped one. */
  lease?: { ms: number; renewMs: number; marginMs: number };
  /** Another build's `dist/src/cli.js` to run the instances with (a before figure); default this build's. */
  cli?: string;
  /** Most rooms per instance; default half the rooms, so two instances can hold them all. */
  maxRoomsPerInstance?: number;
  random: () => number;
  logLevel: string;
  /** Progress lines (to stderr in the bench). */
  say: (line: string) => void;
}

export interface Takeover {
  /** The instance killed, and how many rooms it owned then. */
  killed: string;
  rooms: number;
  /** Per room: kill → "took over room" on its new owner (ms). */
  perRoomMs: number[];
  /** The new owners, with how many rooms each took. */
  takenBy: Record<string, number>;
}

export interface RoomsFigures {
  rooms: number;
  /** Rooms each instance owned once all were claimed, by instance id. */
  roomsPerInstance: Record<string, number>;
  /** Rooms per instance when the sessions started: idle, as every room was taken. */
  idleRssMiB: Record<string, number>;
  /** Resident memory of each live instance at the end of the run, and its peak. */
  endRssMiB: Record<string, { now: number; peak: number }>;
  takeovers: Takeover[];
  started: number;
  completed: number;
  /** Sessions completed per second over the run (started at 1000 / paceMs a second). */
  sessionsPerSecond: number;
  lost: number;
  sentTwice: number;
  completedTwice: number;
  missed: number;
  contributions: number;
  /** CPU per session over the steady window: every coordinator process together, and Prosody. */
  cpuPerSession: { coordinator: number; prosody: number; sessions: number };
  /** CPU while the rooms are idle (no session), ms per second: every coordinator together, and Prosody. */
  idleCpuPerSecond: { coordinator: number; prosody: number };
  /** Lines that show where a target was missed. */
  details: string[];
}


/** Waits as `until` does, asking every 50 ms (the instances' logs are long). */
const until = (what: string, check: () => boolean, timeoutMs: number) => untilEvery(what, check, timeoutMs, 50);

/** Processes that spin, as other work on the machine would; stopped with `stop`. */
function busyLoops(n: number): { stop: () => void } {
  const children: ChildProcess[] = [];
  for (let i = 0; i < n; i++) children.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
  return { stop: () => children.forEach((c) => c.kill("SIGKILL")) };
}

/** The run; `server` and `postgres` are started (and stopped) by the caller. */
export async function runRooms(server: LocalProsody, postgres: TestPostgres, dir: string, options: RoomsOptions): Promise<RoomsFigures> {
  const { say } = options;
  const tag = `${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
  const roomJids = Array.from({ length: options.rooms }, (_, i) => `rooms-${tag}-${i + 1}@${server.mucDomain}`);
  const register = async (name: string) => {
    const username = `${name}-${tag}`;
    const password = `pw-${username}`;
    await server.register(username, password);
    return { username, password };
  };
  const databaseUrl = await postgres.createDatabase();
  const account = await register("coordinator");
  const max = options.maxRoomsPerInstance ?? Math.ceil(options.rooms / 2);
  const instances: CoordinatorInstance[] = [];
  let crowd: Crowd | undefined;
  const busy = busyLoops(options.busy);
  try {
    // All three at once, as a deploy starts them: they share the rooms (a third each, up to `max`).
    for (let i = 1; i <= INSTANCES; i++) {
      instances.push(
        await CoordinatorInstance.create({
          id: `i${i}`,
          dir: join(dir, `i${i}`),
          server,
          account,
          room: roomJids[0] as string,
          rooms: roomJids.slice(1),
          maxRoomsPerInstance: max,
          databaseUrl,
          mfrConfig: MFR_CONFIG,
          logLevel: options.logLevel,
          ...(options.lease ? { lease: options.lease } : {}),
          ...(options.cli ? { cli: options.cli } : {}),
        }),
      );
    }
    for (const instance of instances) instance.start();
    const owned = () => instances.reduce((n, i) => n + i.ownedRooms().length, 0);
    await until(`every room owned`, () => owned() >= options.rooms, 120_000 + options.rooms * 500);
    say(`rooms owned: ${instances.map((i) => `${i.id} ${i.ownedRooms().length}`).join(", ")}`);
    const roomsPerInstance = Object.fromEntries(instances.map((i) => [i.id, i.ownedRooms().length]));
    const idleRssMiB = Object.fromEntries(instances.map((i) => [i.id, rssOf(i.pid ?? 0).nowMiB]));

    const nicks = ["ada", "bea", "cyd", "dot", "eve", "fay", "gus", "hal"].slice(0, options.agents);
    crowd = new Crowd(server, roomJids, { person: await register("pat"), agents: await Promise.all(nicks.map(async (nick) => ({ nick, ...(await register(nick)) }))) }, options.triples);
    await crowd.join();
    const people = crowd;
    await until("the coordinator in every room", () => people.roomsWithCoordinator() === options.rooms, 60_000);
    say(`the person and ${options.agents} agents are in all ${options.rooms} rooms`);
    // What the rooms cost standing still (pings, lease renewals), before any session.
    const pidsNow = () => instances.map((i) => i.pid ?? 0);
    const cpuSum = (list: number[]) => list.reduce((n, pid) => n + cpuMsOf(pid), 0);
    await sleep(2000);
    const idleStart = { at: Date.now(), coordinator: cpuSum(pidsNow()), prosody: cpuMsOf(server.pid) };
    await sleep(Math.min(10_000, options.steadyMs));
    const idleSeconds = (Date.now() - idleStart.at) / 1000;
    const idleCpuPerSecond = { coordinator: (cpuSum(pidsNow()) - idleStart.coordinator) / idleSeconds, prosody: (cpuMsOf(server.pid) - idleStart.prosody) / idleSeconds };
    say(`idle: coordinators ${idleCpuPerSecond.coordinator.toFixed(1)} ms/s, Prosody ${idleCpuPerSecond.prosody.toFixed(1)} ms/s`);

    let pacing = true;
    const randomRoom = () => roomJids[Math.floor(options.random() * roomJids.length)] as string;
    const pacer = (async () => {
      while (pacing) {
        people.start(randomRoom());
        await sleep(options.paceMs);
      }
    })();
    // The steady window: every instance alive, sessions at the pace; CPU per session over it.
    await sleep(Math.min(5000, options.steadyMs / 4));
    const windowStart = { at: Date.now(), coordinator: cpuSum(pidsNow()), prosody: cpuMsOf(server.pid), done: people.started.length - people.unfinished().length };
    await sleep(options.steadyMs);
    const windowDone = people.started.length - people.unfinished().length - windowStart.done;
    const cpuPerSession = {
      coordinator: (cpuSum(pidsNow()) - windowStart.coordinator) / Math.max(1, windowDone),
      prosody: (cpuMsOf(server.pid) - windowStart.prosody) / Math.max(1, windowDone),
      sessions: windowDone,
    };
    say(`steady: ${windowDone} sessions in ${((Date.now() - windowStart.at) / 1000).toFixed(1)} s; CPU per session coordinator ${cpuPerSession.coordinator.toFixed(1)} ms, Prosody ${cpuPerSession.prosody.toFixed(1)} ms`);

    const takeovers: Takeover[] = [];
    let back: CoordinatorInstance | undefined;
    for (let k = 1; k <= options.kills; k++) {
      // The victim: an owner of rooms that is not the one just started again.
      const victim = instances.filter((i) => i !== back && i.ownedRooms().length > 0).sort((a, b) => b.ownedRooms().length - a.ownedRooms().length)[0];
      if (!victim) throw new Error("no instance owns rooms");
      const rooms = victim.ownedRooms();
      const killedAt = await victim.kill9();
      say(`kill ${k}: ${victim.id} killed with ${rooms.length} rooms`);
      const tookOver = (room: string) => {
        for (const i of instances) {
          if (i === victim || !i.alive) continue;
          const line = i.current().find((l) => l.msg === "took over room" && l.room === room && l.time >= killedAt);
          if (line) return { by: i.id, ms: line.time - killedAt };
        }
        return undefined;
      };
      await until(`the takeover of ${victim.id}'s ${rooms.length} rooms`, () => rooms.every((r) => tookOver(r) !== undefined), 120_000).catch((err: unknown) => say(String(err)));
      const taken = rooms.map(tookOver).filter((t) => t !== undefined);
      const takenBy: Record<string, number> = {};
      for (const t of taken) takenBy[t.by] = (takenBy[t.by] ?? 0) + 1;
      const perRoomMs = taken.map((t) => t.ms);
      takeovers.push({ killed: victim.id, rooms: rooms.length, perRoomMs, takenBy });
      say(`kill ${k}: ${taken.length} of ${rooms.length} rooms taken over, the last after ${(Math.max(...perRoomMs) / 1000).toFixed(2)} s (${JSON.stringify(takenBy)})`);
      // Back as a standby, then the next kill after a random gap.
      victim.start();
      back = victim;
      await until(`${victim.id} to stand by again`, () => victim.current().some((l) => l.msg === "standing by"), 60_000);
      if (k < options.kills) await sleep(options.gapMs[0] + options.random() * (options.gapMs[1] - options.gapMs[0]));
    }
    pacing = false;
    await pacer;
    const lastStart = Date.now();
    await until("every session to end", () => people.unfinished().length === 0, 120_000).catch(() => undefined);
    await sleep(2000);
    const completed = people.started.filter((s) => s.completedAt !== undefined);
    const firstStart = people.started[0]?.startedAt ?? lastStart;
    const lastEnd = Math.max(...completed.map((s) => s.completedAt as number));
    const details: string[] = [];
    for (const s of people.unfinished().slice(0, 10)) details.push(`lost: ${s.problem} in ${s.room} (session ${s.sessionId ?? "never named"}, started +${((s.startedAt - firstStart) / 1000).toFixed(1)} s)`);
    for (const m of people.missed().slice(0, 10)) details.push(`missed: ${m.agent} in ${m.sessionId} (${m.room})`);
    const endRssMiB = Object.fromEntries(instances.filter((i) => i.alive).map((i) => {
      const rss = rssOf(i.pid ?? 0);
      return [i.id, { now: rss.nowMiB, peak: rss.peakMiB }];
    }));
    return {
      rooms: options.rooms,
      roomsPerInstance,
      idleRssMiB,
      endRssMiB,
      takeovers,
      started: people.started.length,
      completed: completed.length,
      sessionsPerSecond: completed.length / ((lastEnd - firstStart) / 1000),
      lost: people.unfinished().length,
      sentTwice: people.sentTwice(),
      completedTwice: people.completedTwice(),
      missed: people.missed().length,
      contributions: people.contributions(),
      cpuPerSession,
      idleCpuPerSecond,
      details,
    };
  } finally {
    busy.stop();
    await crowd?.stop();
    for (const i of instances) await i.close();
  }
}
