/**
 * Several coordinator instances on one PostgreSQL database, as the failover tests start them:
 * the real CLI in child processes (test/support/coordinator-process.ts), all on the SAME XMPP
 * account, nick, profile and room(s) and the same database URL, each with a data directory,
 * an instance id (MFR_INSTANCE_ID), a web port (MFR_HTTP_PORT, for /readyz) and a wire tap of
 * its own (bench/support/wire-tap.ts: what it sent, and when, since the room shows every
 * instance as `room/Coordinator`).
 *
 *   const fleet = await Fleet.start({ server: server(), databaseUrl, room, lease: SHORT_LEASE }, afterThis);
 *   const [a, b, c] = await fleet.addMany(3);
 *   const owner = await fleet.waitForOwner(room);          // by its "took over room" line
 *   await owner.kill9();
 *   const next = await fleet.waitForOwner(room, { not: owner, since: Date.now() });
 *
 * Who owns a room is read from each instance's log: "took over room" {room, epoch, why}
 * starts an ownership, "gave up room" {room, why} and "handed over room" {room} end it, and
 * a killed process owns nothing. The pino `time` of those lines and the tap's `at` are the
 * same clock (Date.now() on this machine), so sends can be placed inside ownerships.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pickFreePort } from "../../src/localserver/port.js";
import { WireTap, type TappedStanza } from "../../bench/support/wire-tap.js";
import { CoordinatorProcess, type CoordinatorProcessOptions, type LogLine } from "./coordinator-process.js";
import { registerUser, type LocalProsody, type TestAccount } from "./prosody.js";

/** The lease timing, as MFR_LEASE_MS, MFR_LEASE_RENEW_MS and MFR_LEASE_MARGIN_MS. */
export interface LeaseTiming {
  leaseMs: number;
  renewMs: number;
  marginMs: number;
}

/** The shipped timing (what the bench runs with). */
export const SHIPPED_LEASE: LeaseTiming = { leaseMs: 6000, renewMs: 2000, marginMs: 1000 };
/** A short timing for tests: a dead owner's room is free again within about 2 s. */
export const SHORT_LEASE: LeaseTiming = { leaseMs: 2000, renewMs: 500, marginMs: 400 };

/** The log lines of ownership (src/fleet/fleet.ts). The lease is claimed first; "took over room" once the room is joined, caught up and its sessions replayed. */
export const CLAIMED = "claimed the room's lease";
export const TOOK_OVER = "took over room";
export const GAVE_UP = "gave up room";
export const HANDED_OVER = "handed over room";
export const STANDING_BY = "standing by";

export interface FleetOptions {
  /** The real server (accounts are registered there; each instance reaches it through its own tap). */
  server: LocalProsody;
  databaseUrl: string;
  /** The primary room of the profile. */
  room: string;
  /** Further room units (MFR_ROOMS). */
  rooms?: readonly string[];
  /** MFR_MAX_ROOMS_PER_INSTANCE. */
  maxRoomsPerInstance?: number;
  /** Lease timing; the shipped one when omitted (nothing set in the environment). */
  lease?: LeaseTiming;
  mfrConfig?: string;
  logRoom?: string;
  phaseRooms?: CoordinatorProcessOptions["phaseRooms"];
  /** More environment for every instance. */
  env?: Record<string, string>;
  /** Log level of the instances (default debug, as CoordinatorProcess's). */
  logLevel?: string;
}

/** A change of ownership of one room by one instance, from its log. */
export interface OwnershipEvent {
  instance: FleetInstance;
  /** Which process of the instance (0 for the first, +1 at every restart). */
  generation: number;
  kind: "claimed" | "took" | "gave" | "handed" | "died";
  room: string;
  /** Date.now() of the line (pino `time`), or of the kill. */
  at: number;
  why?: string;
  epoch?: number;
}

/** One ownership period of a room: from the claim of its lease (it may speak from then on) to its end (or still running). */
export interface Ownership {
  instance: FleetInstance;
  generation: number;
  room: string;
  from: number;
  /** Infinity while it lasts. */
  to: number;
  epoch?: number;
}

/** What GET /readyz answers, as far as the failover tests read it. */
export interface Readiness {
  status: number;
  role?: string;
  rooms?: string[];
  [key: string]: unknown;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One instance: its data directory, id, tap and web port stay across restarts; its process changes. */
export class FleetInstance {
  /** The processes started so far, the current one last. */
  readonly generations: CoordinatorProcess[] = [];
  /** When each generation was killed (kill -9), by index. */
  readonly killedAt = new Map<number, number>();

  constructor(
    private readonly fleet: Fleet,
    readonly id: string,
    readonly dir: string,
    readonly tap: WireTap,
    readonly httpPort: number,
    /** Environment of this instance alone, over the fleet's. */
    readonly env: Record<string, string> = {},
  ) {}

  /** The current process. */
  get process(): CoordinatorProcess {
    const p = this.generations.at(-1);
    if (!p) throw new Error(`instance ${this.id} was never started`);
    return p;
  }

  get logs(): LogLine[] {
    return this.process.logs;
  }

  /** Whether the current process is running (not killed, not exited). */
  get alive(): boolean {
    const child = this.process.child;
    return child.exitCode === null && child.signalCode === null;
  }

  /** Starts (again) on the same directory, id, tap and port. */
  async start(): Promise<this> {
    const options = this.fleet.processOptions(this);
    this.generations.push(await CoordinatorProcess.start(options));
    return this;
  }

  /** kill -9, and wait until it is gone. */
  async kill9(): Promise<number> {
    const at = Date.now();
    this.killedAt.set(this.generations.length - 1, at);
    await this.process.kill();
    return at;
  }

  /** SIGSTOP: the process stays, frozen, its connections open. */
  pause(): void {
    this.process.signal("SIGSTOP");
  }

  /** Whether the current process is stopped (SIGSTOP, by us or by itself), as the kernel says. */
  stopped(): boolean {
    const pid = this.process.child.pid;
    if (pid === undefined) return false;
    try {
      // The state is the field after the command name, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2).startsWith("T");
    } catch {
      return false;
    }
  }

  /** SIGCONT. */
  resume(): void {
    this.process.signal("SIGCONT");
  }

  /** SIGTERM, and the exit code with the time it took. */
  terminate(): Promise<{ code: number | null; ms: number }> {
    return this.process.terminate();
  }

  /**
   * The full JIDs its current process connected with to speak in `room`'s unit (the unit's
   * room connection, `<resource>-<instance>-<n>`, and its direct line), from its log (the
   * unit's lines carry `unit`, earlier builds' `room`).
   */
  unitJids(room: string): string[] {
    const jids = this.logs.filter((l) => l.msg === "connected to the XMPP server" && (l.unit === room || l.room === room) && typeof l.jid === "string").map((l) => String(l.jid));
    return [...new Set(jids)];
  }

  /** Resolves with the first log line of the current process matching, including ones already logged. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = 15_000, from = 0): Promise<LogLine> {
    return this.process.waitForLog(predicate, timeoutMs, from);
  }

  /** Ownership events of every generation, in order. */
  events(room?: string): OwnershipEvent[] {
    const events: OwnershipEvent[] = [];
    this.generations.forEach((p, generation) => {
      const held = new Set<string>();
      for (const line of p.logs) {
        const kind =
          line.msg === CLAIMED ? "claimed" : line.msg === TOOK_OVER ? "took" : line.msg === GAVE_UP ? "gave" : line.msg === HANDED_OVER ? "handed" : undefined;
        if (!kind || typeof line.room !== "string") continue;
        if (kind === "claimed" || kind === "took") held.add(line.room);
        else held.delete(line.room);
        events.push({
          instance: this,
          generation,
          kind,
          room: line.room,
          at: typeof line.time === "number" ? line.time : 0,
          ...(typeof line.why === "string" ? { why: line.why } : {}),
          ...(typeof line.epoch === "number" ? { epoch: line.epoch } : {}),
        });
      }
      const died = this.killedAt.get(generation);
      if (died !== undefined) for (const room of held) events.push({ instance: this, generation, kind: "died", room, at: died });
    });
    return room === undefined ? events : events.filter((e) => e.room === room);
  }

  /** Its ownership periods of `room` (every generation). */
  ownerships(room: string): Ownership[] {
    const periods: Ownership[] = [];
    let open: Ownership | undefined;
    for (const e of this.events(room)) {
      if (e.kind === "took" && open?.generation === e.generation) continue; // the claim opened it
      if (e.kind === "claimed" || e.kind === "took") {
        if (open) periods.push({ ...open, to: e.at });
        open = { instance: this, generation: e.generation, room, from: e.at, to: Number.POSITIVE_INFINITY, ...(e.epoch !== undefined ? { epoch: e.epoch } : {}) };
      } else if (open && open.generation === e.generation) {
        periods.push({ ...open, to: e.at });
        open = undefined;
      }
    }
    if (open) {
      // A generation that exited without a line (SIGTERM's "handed over room" is its last word) ends with it.
      const p = this.generations[open.generation];
      const ended = p && (p.child.exitCode !== null || p.child.signalCode !== null) ? (this.killedAt.get(open.generation) ?? Date.now()) : Number.POSITIVE_INFINITY;
      periods.push({ ...open, to: ended });
    }
    return periods;
  }

  /** The rooms its current process owns, by its log. */
  ownedRooms(): string[] {
    if (!this.alive) return [];
    const generation = this.generations.length - 1;
    const owned = new Set<string>();
    for (const e of this.events()) {
      if (e.generation !== generation || e.kind === "claimed") continue;
      if (e.kind === "took") owned.add(e.room);
      else owned.delete(e.room);
    }
    return [...owned].sort();
  }

  /** GET /readyz (its JSON, whatever the status). */
  async readyz(): Promise<Readiness> {
    const response = await fetch(`http://127.0.0.1:${this.httpPort}/readyz`);
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    return { ...body, status: response.status };
  }

  /** Protocol messages (with an origin-id) it sent, from `since` on. */
  protocolSent(since = 0): TappedStanza[] {
    return this.tap.protocolMessages(since);
  }
}

/** See the module comment. */
export class Fleet {
  readonly instances: FleetInstance[] = [];

  private constructor(
    readonly options: FleetOptions,
    /** The one account every instance signs in with. */
    readonly account: TestAccount,
    private readonly afterThis: (step: () => Promise<unknown>) => void,
  ) {}

  /** Registers the shared account; instances are added with `add`. Everything is stopped after the test. */
  static async start(options: FleetOptions, afterThis: (step: () => Promise<unknown>) => void): Promise<Fleet> {
    const account = await registerUser(options.server, "coord");
    const fleet = new Fleet(options, account, afterThis);
    afterThis(() => fleet.stop());
    return fleet;
  }

  /** The CoordinatorProcess options of an instance. */
  processOptions(instance: FleetInstance): CoordinatorProcessOptions {
    const o = this.options;
    const env: Record<string, string> = {
      MFR_DATABASE_URL: o.databaseUrl,
      MFR_INSTANCE_ID: instance.id,
      MFR_HTTP_PORT: String(instance.httpPort),
      ...(o.rooms && o.rooms.length > 0 ? { MFR_ROOMS: o.rooms.join(",") } : {}),
      ...(o.maxRoomsPerInstance !== undefined ? { MFR_MAX_ROOMS_PER_INSTANCE: String(o.maxRoomsPerInstance) } : {}),
      ...(o.lease ? { MFR_LEASE_MS: String(o.lease.leaseMs), MFR_LEASE_RENEW_MS: String(o.lease.renewMs), MFR_LEASE_MARGIN_MS: String(o.lease.marginMs) } : {}),
      ...(o.logLevel ? { LOG_LEVEL: o.logLevel } : {}),
      ...o.env,
      ...instance.env,
    };
    return {
      server: instance.tap.behind(o.server),
      room: o.room,
      dir: instance.dir,
      account: { username: this.account.username, password: this.account.password },
      env,
      ...(o.mfrConfig !== undefined ? { mfrConfig: o.mfrConfig } : {}),
      ...(o.logRoom !== undefined ? { logRoom: o.logRoom } : {}),
      ...(o.phaseRooms !== undefined ? { phaseRooms: o.phaseRooms } : {}),
    };
  }

  /** Starts one more instance (id `i<n>` unless given), with environment of its own over the fleet's. */
  async add(id = `i${this.instances.length + 1}`, env: Record<string, string> = {}): Promise<FleetInstance> {
    const tap = await WireTap.start({ host: this.options.server.host, port: this.options.server.port });
    const instance = new FleetInstance(this, id, mkdtempSync(join(tmpdir(), `mfr-fleet-${id}-`)), tap, await pickFreePort(), env);
    this.instances.push(instance);
    return instance.start();
  }

  /** Starts `n` instances one after another, each once it has said where it stands ("took over room" or "standing by"). */
  async addMany(n: number): Promise<FleetInstance[]> {
    const added: FleetInstance[] = [];
    for (let i = 0; i < n; i++) {
      const instance = await this.add();
      await instance.waitForLog((l) => l.msg === TOOK_OVER || l.msg === STANDING_BY, 20_000);
      added.push(instance);
    }
    return added;
  }

  /** The instances whose current process owns `room` now, by their logs (at most one, when all is well). */
  owners(room: string): FleetInstance[] {
    return this.instances.filter((i) => i.ownedRooms().includes(room));
  }

  /**
   * Waits until an instance logs "took over room" for `room` at or after `since` (pino time),
   * other than `not`; resolves with it and the line's time.
   */
  async waitForOwner(room: string, opts: { not?: FleetInstance; since?: number; timeoutMs?: number } = {}): Promise<{ instance: FleetInstance; at: number; why?: string }> {
    const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
    for (;;) {
      for (const instance of this.instances) {
        if (instance === opts.not || !instance.alive) continue;
        const e = instance.events(room).find((x) => x.kind === "took" && x.at >= (opts.since ?? 0) && x.generation === instance.generations.length - 1);
        if (e) return { instance, at: e.at, ...(e.why !== undefined ? { why: e.why } : {}) };
      }
      if (Date.now() > deadline) {
        const tails = this.instances.map((i) => `${i.id}${i.alive ? "" : " (dead)"}: ${i.logs.filter((l) => l.level >= 30).slice(-8).map((l) => JSON.stringify(l)).join("\n    ")}`);
        throw new Error(`nobody took over ${room} within ${opts.timeoutMs ?? 20_000} ms; last lines:\n  ${tails.join("\n  ")}`);
      }
      await sleep(25);
    }
  }

  /**
   * Every ownership period of `room` by any instance, by start. A period ends at the latest
   * when the next one begins: an owner that was paused past its lease logs "gave up room" only
   * once it runs again, but the room stopped being its own when another instance took it.
   */
  ownerships(room: string): Ownership[] {
    const periods = this.instances.flatMap((i) => i.ownerships(room)).sort((a, b) => a.from - b.from);
    return periods.map((p, i) => {
      const next = periods[i + 1];
      return next && next.from < p.to ? { ...p, to: next.from } : p;
    });
  }

  /** Every protocol message any instance sent, with who sent it, in the order they passed the taps. */
  protocolSent(since = 0): Array<TappedStanza & { instance: FleetInstance }> {
    return this.instances.flatMap((instance) => instance.protocolSent(since).map((s) => ({ ...s, instance }))).sort((a, b) => a.at - b.at);
  }

  /**
   * Kills every instance and closes the taps. With MFR_FLEET_LOGS=<dir>, each instance's
   * log lines (every process it ran) are written there first, one file per instance.
   */
  async stop(): Promise<void> {
    const logDir = process.env.MFR_FLEET_LOGS;
    if (logDir) {
      mkdirSync(logDir, { recursive: true });
      for (const instance of this.instances) {
        const lines = instance.generations.flatMap((p, generation) => p.logs.map((l) => JSON.stringify({ generation, ...l })));
        writeFileSync(join(logDir, `${this.options.room.split("@")[0]}-${instance.id}.log`), `${lines.join("\n")}\n`);
      }
    }
    for (const instance of this.instances) {
      for (const p of instance.generations) {
        p.signal("SIGCONT");
        await p.kill();
      }
      await instance.tap.stop();
    }
  }
}

/**
 * Sends of one room that break "one speaker at a time": a protocol message from an instance
 * sent while another instance's ownership of the room runs, or outside any ownership of its
 * own (with `slackMs` after an ownership's end for what was already on its way). Each entry
 * names the instance, the origin-id and the time.
 */
export function sendsOutsideOwnership(fleet: Fleet, room: string, sends: ReadonlyArray<TappedStanza & { instance: FleetInstance }>, slackMs = 250): string[] {
  const periods = fleet.ownerships(room);
  const problems: string[] = [];
  for (const s of sends) {
    const own = periods.find((p) => p.instance === s.instance && s.at >= p.from && s.at <= p.to + slackMs);
    if (!own) {
      problems.push(`${s.instance.id} sent ${s.originId ?? "?"} at ${s.at} outside its ownership of ${room}`);
      continue;
    }
    const other = periods.find((p) => p.instance !== s.instance && s.at > p.from && s.at < p.to);
    if (other) problems.push(`${s.instance.id} sent ${s.originId ?? "?"} at ${s.at} while ${other.instance.id} owned ${room} (from ${other.from})`);
  }
  return problems;
}

/**
 * The speakers of a room in order, each run of consecutive sends by one instance as one
 * entry: "i1 ×12, i2 ×30". An instance that comes back after another spoke has a new run.
 */
export function speakerRuns(sends: ReadonlyArray<{ instance: FleetInstance }>): Array<{ id: string; count: number }> {
  const runs: Array<{ id: string; count: number }> = [];
  for (const s of sends) {
    const last = runs.at(-1);
    if (last?.id === s.instance.id) last.count += 1;
    else runs.push({ id: s.instance.id, count: 1 });
  }
  return runs;
}

/**
 * Sends that interleave: an instance speaking again after another spoke, with no new
 * ownership ("took over room") of its own in between. Empty when every change of speaker
 * is a change of owner.
 */
export function interleavedSends(fleet: Fleet, room: string, sends: ReadonlyArray<TappedStanza & { instance: FleetInstance }>): string[] {
  const periods = fleet.ownerships(room);
  const problems: string[] = [];
  let previous: (TappedStanza & { instance: FleetInstance }) | undefined;
  const lastOf = new Map<FleetInstance, TappedStanza>();
  for (const s of sends) {
    const before = lastOf.get(s.instance);
    if (previous && previous.instance !== s.instance && before) {
      // It spoke before, someone else spoke since: it must have taken the room again in between.
      const retook = periods.some((p) => p.instance === s.instance && p.from > before.at && p.from <= s.at);
      if (!retook) problems.push(`${s.instance.id} sent ${s.originId ?? "?"} at ${s.at} after ${previous.instance.id} spoke at ${previous.at}, without taking the room again since its own send at ${before.at}`);
    }
    lastOf.set(s.instance, s);
    previous = s;
  }
  return problems;
}
