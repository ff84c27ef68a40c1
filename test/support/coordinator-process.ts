import Database from "better-sqlite3";
import { spawn, type ChildProcess } from "node:child_process";
import pg from "pg";
import { DATABASE_FILE } from "../../src/store/session-store.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { CLI, REPO_ROOT } from "./cli.js";
import type { LocalProsody } from "./prosody.js";
import { collectLog, type LogLine } from "./child-log.js";
import { writeLocalAgentProfile } from "../../src/localserver/agent-profile.js";
import { directLineResource } from "../../src/xmpp/direct-line.js";
import { fleetEnv, freshFleetPlace, nextInstanceId, onPostgres, roomResourceOf, type FleetPlace } from "./test-store.js";

export interface CoordinatorProcessOptions {
  server: LocalProsody;
  room: string;
  nick?: string;
  logRoom?: string;
  /** The MFR phase rooms, written as `agent:mfrRooms [ mfr:constructRoom "…" ; … ]`. */
  phaseRooms?: { construct?: string; validate?: string; reason?: string };
  /** Extra lines inside `agent:mfrConfig [ … ]`, e.g. `mfr:contributionTimeout 800 ;`. */
  mfrConfig?: string;
  /** Extra statements inside `agent:xmppAccount [ … ]`, e.g. `; xmpp:directLine false`. */
  xmppAccount?: string;
  env?: Record<string, string>;
  /** Reuse a directory (profile, secrets, data) across restarts of the coordinator. */
  dir?: string;
  /** Peer agent profiles written beside the coordinator's profile (the catalog): file name → Turtle. */
  agentProfiles?: Record<string, string>;
  /** An account registered already (several instances on one account); by default a fresh one is registered. */
  account?: { username: string; password: string };
}

export type { LogLine } from "./child-log.js";

/** The output of `mfr-coordinator verify` for one coordinator's data directory. */
export interface ReplayVerification {
  dir: string;
  code: number | null;
  lines: string[];
  sessions: number;
  matched: number;
  /** Stanzas that differ in wording only: none where the same build wrote and replays the store. */
  wording: number;
  mismatches: number;
}

/** Every coordinator started in this test file (vitest gives each file its own module graph). */
const started = new Set<CoordinatorProcess>();

/** On PostgreSQL (test/support/test-store.ts): each coordinator directory's database and instance name, kept for its restarts. */
const places = new Map<string, FleetPlace>();

/** The profile's resource of every test coordinator. */
const RESOURCE = "Coordinator";

/**
 * Kills every coordinator this file started and runs `mfr-coordinator verify` on each of
 * their stores: every logged session is replayed and compared with what was sent live.
 */
export async function verifyEveryLoggedSession(): Promise<ReplayVerification[]> {
  // One check per store: a data directory, or a database (shared by instances beside each other).
  const byStore = new Map<string, CoordinatorProcess>();
  for (const c of started) {
    await c.kill();
    byStore.set(c.databaseUrl ?? c.dir, c);
  }
  const results: ReplayVerification[] = [];
  for (const c of byStore.values()) results.push(await c.verify());
  return results;
}

/**
 * The last test of an integration file: every session its coordinators logged, replayed
 * through the core, sends exactly the stanzas that were sent live (nothing twice, nothing
 * different, not even in wording: the build that wrote the store replays it). A killed
 * coordinator's unsent tail counts as pending, not as a mismatch.
 */
export function itReplaysEveryLoggedSessionAsSent(minSessions = 1): void {
  it("replays every session this file logged to exactly what was sent live (mfr-coordinator verify)", async () => {
    const results = await verifyEveryLoggedSession();
    const failed = results.filter((r) => r.code !== 0 || r.mismatches !== 0 || r.wording !== 0).map((r) => ({ dir: r.dir, code: r.code, lines: r.lines }));
    expect(failed).toEqual([]);
    expect(results.reduce((n, r) => n + r.sessions, 0)).toBeGreaterThanOrEqual(minSessions);
    expect(results.reduce((n, r) => n + r.matched, 0)).toBeGreaterThan(0);
    if (process.env.MFR_PRINT_FIGURES) {
      console.log(`replay check: ${results.length} stores, ${results.reduce((n, r) => n + r.sessions, 0)} sessions, ${results.reduce((n, r) => n + r.matched, 0)} stanzas match`);
    }
  }, 60_000);
}

/** The profile form existing MFR agents use for their phase rooms; only the phases given are written. */
function mfrRooms(rooms: NonNullable<CoordinatorProcessOptions["phaseRooms"]>): string {
  const lines = [
    rooms.construct ? `mfr:constructRoom "${rooms.construct}"` : "",
    rooms.validate ? `mfr:validateRoom "${rooms.validate}"` : "",
    rooms.reason ? `mfr:reasonRoom "${rooms.reason}"` : "",
  ].filter(Boolean);
  return `agent:mfrRooms [ ${lines.join(" ; ")} ] ;`;
}

/** The real CLI (`mfr-coordinator start`) as a child process, with its JSON log parsed. */
export class CoordinatorProcess {
  readonly logs: LogLine[] = [];
  stderr = "";
  private exitCode: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly dir: string,
    readonly account: { username: string; password: string },
    /** The shared database when it runs as a fleet instance (MFR_DATABASE_URL); undefined on its SQLite file. */
    readonly databaseUrl: string | undefined,
    /** Its MFR_INSTANCE_ID as a fleet instance. */
    readonly instanceId: string | undefined,
  ) {
    collectLog(child, this.logs, (text) => (this.stderr += text));
    this.exitCode = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    started.add(this);
  }

  /**
   * `mfr-coordinator verify` on this coordinator's profile and store (works beside a running
   * one): its data directory, or its database.
   */
  async verify(): Promise<ReplayVerification> {
    const child = spawn(process.execPath, [CLI, "verify", "--profile", join(this.dir, "coordinator.ttl"), "--secrets", join(this.dir, "secrets.json")], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...this.storeForCli().env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    const lines = out.trim().split("\n");
    const tally = /verify: (\d+) sessions, (\d+) stanzas match, (\d+) differ in wording only, \d+ pending, (\d+) mismatches/.exec(lines.at(-1) ?? "");
    return {
      dir: this.dir,
      code,
      lines,
      sessions: Number(tally?.[1] ?? -1),
      matched: Number(tally?.[2] ?? -1),
      wording: Number(tally?.[3] ?? -1),
      mismatches: Number(tally?.[4] ?? -1),
    };
  }

  /**
   * How the operator's commands (`export`, `verify`, `backup`) reach this coordinator's
   * store: `--data-dir` for its data directory, MFR_DATABASE_URL for its database.
   */
  storeForCli(): { args: string[]; env: Record<string, string> } {
    if (this.databaseUrl !== undefined) return { args: [], env: { MFR_DATABASE_URL: this.databaseUrl } };
    return { args: ["--data-dir", join(this.dir, "data")], env: {} };
  }

  /** Registers an account, writes a profile and secrets, and starts the CLI. */
  static async start(options: CoordinatorProcessOptions): Promise<CoordinatorProcess> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "mfr-coord-"));
    if (options.account) return CoordinatorProcess.spawnWith(options, dir, options.account);
    const username = `coord-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const password = `pw-${username}`;
    await options.server.register(username, password);
    return CoordinatorProcess.spawnWith(options, dir, { username, password });
  }

  /**
   * Starts a second process on the same account in a directory of its own (another instance
   * beside this one; on PostgreSQL, on the same database under another instance name).
   */
  async restartBeside(options: CoordinatorProcessOptions): Promise<CoordinatorProcess> {
    const dir = mkdtempSync(join(tmpdir(), "mfr-coord-"));
    const place = places.get(this.dir);
    if (place) places.set(dir, { url: place.url, instanceId: nextInstanceId() });
    return CoordinatorProcess.spawnWith({ ...options, dir }, dir, this.account);
  }

  /** Starts the CLI again with the same account and directory (after `kill`). */
  async restart(options: CoordinatorProcessOptions): Promise<CoordinatorProcess> {
    return CoordinatorProcess.spawnWith({ ...options, dir: this.dir }, this.dir, this.account);
  }

  /**
   * Writes the profile and starts `mfr-coordinator start`. On PostgreSQL (MFR_TEST_STORE)
   * it runs as a fleet instance on the directory's database (a fresh one the first time),
   * unless the test gives MFR_DATABASE_URL itself.
   */
  private static async spawnWith(options: CoordinatorProcessOptions, dir: string, account: { username: string; password: string }): Promise<CoordinatorProcess> {
    const { server } = options;
    let storeEnv: Record<string, string> = {};
    if (onPostgres && options.env?.MFR_DATABASE_URL === undefined) {
      let place = places.get(dir);
      if (!place) {
        place = await freshFleetPlace();
        places.set(dir, place);
      }
      storeEnv = fleetEnv(place);
    }
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "debug", ...storeEnv, ...options.env };
    for (const [file, turtle] of Object.entries(options.agentProfiles ?? {})) writeFileSync(join(dir, file), turtle);
    const { profile, secrets } = writeLocalAgentProfile(dir, {
      node: "coordinator",
      nick: options.nick ?? "Coordinator",
      server,
      account,
      passwordKey: "coordinator",
      resource: RESOURCE,
      room: options.room,
      statements: [options.logRoom ? `agent:logRoomJid "${options.logRoom}" ;` : "", options.phaseRooms ? mfrRooms(options.phaseRooms) : ""],
      // Peer profiles are read only from mfr:agentsDir: here, the directory they were written to.
      mfrConfig: `mfr:dataDir "${join(dir, "data")}" ; ${options.agentProfiles ? `mfr:agentsDir "${dir}" ; ` : ""}${options.mfrConfig ?? ""}`,
      ...(options.xmppAccount ? { xmppAccount: options.xmppAccount } : {}),
    });
    const child = spawn(process.execPath, [CLI, "start", "--profile", profile, "--secrets", secrets], {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const databaseUrl = env.MFR_DATABASE_URL;
    return new CoordinatorProcess(child, dir, account, databaseUrl, databaseUrl === undefined ? undefined : env.MFR_INSTANCE_ID);
  }

  /**
   * Forgets what the store recorded as sent for a session, as a kill -9 between the socket
   * write and the record leaves it (only while this coordinator is not running): in the
   * SQLite file, or on PostgreSQL in the database. Resolves with the number of records removed.
   */
  async forgetSentOf(sessionId: string): Promise<number> {
    if (this.databaseUrl !== undefined) {
      const client = new pg.Client({ connectionString: this.databaseUrl });
      await client.connect();
      try {
        return (await client.query("DELETE FROM journal_sent WHERE session_id = $1", [sessionId])).rowCount ?? 0;
      } finally {
        await client.end();
      }
    }
    const db = new Database(join(this.dir, "data", DATABASE_FILE));
    try {
      return db.prepare("DELETE FROM sent WHERE session_id = ?").run(sessionId).changes;
    } finally {
      db.close();
    }
  }

  get jid(): string {
    return `${this.account.username}@localhost`;
  }

  /** The resource of its room connection: `Coordinator`, or `Coordinator-<instance>-0` as a fleet instance. */
  get resource(): string {
    return roomResourceOf(RESOURCE, this.instanceId);
  }

  /** The resource of its direct line (xmpp:directLine). */
  get directResource(): string {
    return directLineResource(this.resource);
  }

  /** Resolves with the first log line matching, including ones already logged. */
  async waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = 10_000, from = 0): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.logs.slice(from).find(predicate);
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(`no matching coordinator log line within ${timeoutMs} ms; last lines:\n${this.logs.slice(-15).map((l) => JSON.stringify(l)).join("\n")}\nstderr: ${this.stderr}`);
      }
      if (this.child.exitCode !== null) throw new Error(`coordinator exited with ${this.child.exitCode}; stderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Resolves once `count` log lines from index `from` on match (the log arrives through stdout, which may lag). */
  async waitForLogCount(predicate: (line: LogLine) => boolean, count: number, timeoutMs = 10_000, from = 0): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.logs.slice(from).filter(predicate).length < count) {
      if (Date.now() > deadline) throw new Error(`fewer than ${count} matching coordinator log lines within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Waits until it has joined `room` (the count-th time, for rejoins). */
  async joined(room: string, count = 1, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.logs.filter((l) => l.msg === "joined the room" && l.room === room).length < count) {
      if (Date.now() > deadline) await this.waitForLog(() => false, 0);
      if (this.child.exitCode !== null) throw new Error(`coordinator exited with ${this.child.exitCode}; stderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * Resolves once 1:1 chat sent to the account's bare JID reaches this coordinator. On its
   * SQLite file at once: its room connection takes such chat until the direct line is up.
   * As a fleet instance once the direct line is open: every other connection of a fleet has
   * a negative priority (fleet/room-units.ts), so until then the server keeps such chat as
   * offline messages, answered late (marked so) once the direct line is up.
   */
  async takesOneToOneChat(timeoutMs = 10_000): Promise<void> {
    if (this.databaseUrl === undefined) return;
    await this.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("direct line open"), timeoutMs);
  }

  /** SIGTERM, and the exit code with the time it took. */
  async terminate(): Promise<{ code: number | null; ms: number }> {
    const started = Date.now();
    this.child.kill("SIGTERM");
    const code = await this.exitCode;
    return { code, ms: Date.now() - started };
  }

  /** Sends a signal as it is (SIGSTOP and SIGCONT to pause and resume it); false when it has exited. */
  signal(signal: NodeJS.Signals): boolean {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return false;
    return this.child.kill(signal);
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.kill("SIGKILL");
    await this.exitCode;
  }

  exited(): Promise<number | null> {
    return this.exitCode;
  }
}
