/**
 * One coordinator instance of bench/failover.ts: the real CLI in a child process, on SQLite
 * or on a shared PostgreSQL database (MFR_DATABASE_URL), reaching the server through a wire
 * tap of its own (bench/support/wire-tap.ts) so the bench knows which instance said what.
 * Its directory and id stay across restarts; every process it ran keeps its log lines.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeLocalAgentProfile } from "../../src/localserver/agent-profile.js";
import { WireTap } from "../support/wire-tap.js";

/** A line of the instance's JSON log, with the process it came from. */
export interface InstanceLogLine {
  msg: string;
  time: number;
  room?: string;
  generation: number;
  [key: string]: unknown;
}

/** How to run an instance. */
export interface InstanceSpec {
  id: string;
  dir: string;
  server: { host: string; port: number; domain: string };
  account: { username: string; password: string };
  /** The profile's primary room. */
  room: string;
  /** Further room units (MFR_ROOMS). */
  rooms?: readonly string[];
  maxRoomsPerInstance?: number;
  /** The shared database; without it the instance runs on SQLite in its directory. */
  databaseUrl?: string;
  /** The contents of `agent:mfrConfig [ … ]` besides the data directory. */
  mfrConfig: string;
  logLevel: string;
  /** The command line to run (another build's `dist/src/cli.js`, to compare); default this build's. */
  cli?: string;
  /** Lease timing (MFR_LEASE_MS, MFR_LEASE_RENEW_MS, MFR_LEASE_MARGIN_MS); default the shipped one. */
  lease?: { ms: number; renewMs: number; marginMs: number };
}

/**
 * The compiled command line: beside this file's compiled form (dist/bench/failover/), or,
 * when this runs from source (a test under vitest), the build's (`npm test` builds first).
 */
const CLI = import.meta.url.endsWith(".ts") ? fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url)) : fileURLToPath(new URL("../../src/cli.js", import.meta.url));

/** See the module comment. */
export class CoordinatorInstance {
  readonly logs: InstanceLogLine[] = [];
  private child: ChildProcess | undefined;
  private generation = -1;
  private exited: Promise<void> = Promise.resolve();
  private logFile: WriteStream | undefined;

  private constructor(
    readonly spec: InstanceSpec,
    readonly tap: WireTap,
  ) {}

  /** Opens its tap; `start` runs its first process. */
  static async create(spec: InstanceSpec): Promise<CoordinatorInstance> {
    mkdirSync(spec.dir, { recursive: true });
    return new CoordinatorInstance(spec, await WireTap.start({ host: spec.server.host, port: spec.server.port }));
  }

  get id(): string {
    return this.spec.id;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Which process is running (0 for the first). */
  get currentGeneration(): number {
    return this.generation;
  }

  /** Starts a process (again) on the same directory and id; its output goes to `coordinator.log` in the directory. */
  start(): void {
    const { spec } = this;
    this.generation += 1;
    const generation = this.generation;
    const { profile, secrets } = writeLocalAgentProfile(spec.dir, {
      node: "coordinator",
      nick: "Coordinator",
      server: { service: this.tap.service, domain: spec.server.domain },
      account: spec.account,
      passwordKey: "coordinator",
      resource: "Coordinator",
      room: spec.room,
      mfrConfig: `mfr:dataDir "${join(spec.dir, "data")}" ; ${spec.mfrConfig}`,
    });
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: spec.logLevel };
    if (spec.databaseUrl) {
      env.MFR_DATABASE_URL = spec.databaseUrl;
      env.MFR_INSTANCE_ID = spec.id;
      if (spec.rooms && spec.rooms.length > 0) env.MFR_ROOMS = spec.rooms.join(",");
      if (spec.maxRoomsPerInstance !== undefined) env.MFR_MAX_ROOMS_PER_INSTANCE = String(spec.maxRoomsPerInstance);
      if (spec.lease) Object.assign(env, { MFR_LEASE_MS: String(spec.lease.ms), MFR_LEASE_RENEW_MS: String(spec.lease.renewMs), MFR_LEASE_MARGIN_MS: String(spec.lease.marginMs) });
    }
    this.logFile ??= createWriteStream(join(spec.dir, "coordinator.log"), { flags: "a" });
    const logFile = this.logFile;
    const child = spawn(process.execPath, [spec.cli ?? CLI, "start", "--profile", profile, "--secrets", secrets], { env, stdio: ["ignore", "pipe", "pipe"] });
    this.child = child;
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    let carry = "";
    child.stdout.on("data", (d: Buffer) => {
      logFile.write(d);
      const lines = (carry + d.toString("utf8")).split("\n");
      carry = lines.pop() ?? "";
      for (const text of lines) {
        try {
          const line = JSON.parse(text) as Record<string, unknown>;
          this.logs.push({ ...line, msg: String(line.msg ?? ""), time: Number(line.time ?? Date.now()), generation } as InstanceLogLine);
        } catch {
          // not a log line
        }
      }
    });
    child.stderr.on("data", (d: Buffer) => logFile.write(d));
  }

  /** kill -9 of the running process; resolves once it is gone, with the moment of the kill (Date.now()). */
  async kill9(): Promise<number> {
    const at = Date.now();
    if (this.alive) {
      this.child?.kill("SIGKILL");
      await this.exited;
    }
    return at;
  }

  /** SIGTERM, SIGKILL after 10 s. */
  async stop(): Promise<void> {
    if (this.alive) {
      this.child?.kill("SIGTERM");
      const timer = setTimeout(() => this.child?.kill("SIGKILL"), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
  }

  /** The lines of the running process. */
  current(): InstanceLogLine[] {
    return this.logs.filter((l) => l.generation === this.generation);
  }

  /** Whether its running process owns `room` by its log ("took over room", not given up since). */
  owns(room: string): boolean {
    if (!this.alive) return false;
    let owned = false;
    for (const l of this.current()) {
      if (l.room !== room) continue;
      if (l.msg === "took over room") owned = true;
      else if (l.msg === "gave up room" || l.msg === "handed over room") owned = false;
    }
    return owned;
  }

  /** The rooms its running process owns. */
  ownedRooms(): string[] {
    const rooms = new Set(this.current().filter((l) => l.msg === "took over room" && typeof l.room === "string").map((l) => l.room as string));
    return [...rooms].filter((r) => this.owns(r));
  }

  /** Ends the process (SIGKILL) and closes the tap and the log file. */
  async close(): Promise<void> {
    await this.kill9();
    await this.tap.stop();
    this.logFile?.end();
  }
}
