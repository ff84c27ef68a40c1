/**
 * A throw-away PostgreSQL on loopback, for the tests of the shared store (through
 * test/support/postgres.ts) and for the benches that run several coordinators on one
 * database (bench/failover.ts), as server.ts is Prosody's. A missing PostgreSQL is an error
 * naming the install command; the tests that need it FAIL with it, they never skip.
 *
 * Each server is a cluster of its own: `initdb` into a fresh temp directory, then `postgres`
 * on a free port of 127.0.0.1 with its socket in that directory (never the system's
 * /var/run/postgresql, never the Debian cluster's port), fsync on. The only role has a
 * generated password (scram-sha-256 over TCP; the socket in the 0700 directory is trusted):
 * nothing is open to other users of the machine. Several test files may each run their own
 * at once; nothing outlives the process that started it (the child is SIGKILLed and the
 * directory removed on exit).
 *
 * PostgreSQL refuses to run as root: as root, initdb and postgres run as the `postgres`
 * system user (the child's uid and gid are set directly, as `runuser -u postgres` would, so
 * the process we signal is the postmaster itself) and the directory is given to that user.
 *
 *   const server = await startTestPostgres();
 *   const url = await server.createDatabase();   // a fresh, empty database
 *   …
 *   await server.stop();
 *
 * Set POSTGRES_TEST_LOG=1 to print PostgreSQL's log as it runs.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { isRunning, killNow, waitForExit, watchOutput } from "./children.js";
import { killChildOnExit, removeDirOnExit } from "./exit-cleanup.js";
import { pickFreePort } from "./port.js";
import { locatePostgresPrograms } from "./postgres-programs.js";

const execFileAsync = promisify(execFile);

/** The one command a person runs to install PostgreSQL (Debian's package). */
export const POSTGRES_INSTALL_COMMAND = "sudo apt-get install -y postgresql";

/** PostgreSQL's server programs (initdb, postgres) are not installed. */
export class PostgresNotInstalledError extends Error {
  readonly code = "POSTGRES_NOT_INSTALLED";
  readonly installCommand = POSTGRES_INSTALL_COMMAND;
  constructor(detail?: string) {
    super(
      `PostgreSQL is not installed: 'initdb' and 'postgres' are neither on PATH nor in /usr/lib/postgresql/*/bin. ` +
        `Install it with: ${POSTGRES_INSTALL_COMMAND}` +
        (detail ? ` (${detail})` : ""),
    );
    this.name = "PostgresNotInstalledError";
  }
}

/** A running throw-away PostgreSQL (see the module comment). */
export interface TestPostgres {
  readonly host: string;
  readonly port: number;
  /** The cluster's directory (data, socket, password file). */
  readonly dir: string;
  /** The database created at start, as a `postgres://` URL with the generated password. */
  readonly url: string;
  /** PID of the postmaster; 0 when none runs. */
  readonly pid: number;
  readonly running: boolean;
  /** A new empty database on this server (name generated when omitted); its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Fast shutdown (SIGINT: running transactions are rolled back), SIGKILL after 10 s; removes the directory. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL of the postmaster now (a crash); keeps the directory for restart(). */
  kill(): Promise<void>;
  /** Starts again on the same port and directory (kills first if running); data committed before survives. */
  restart(): Promise<void>;
}

/** Options of startTestPostgres. */
export interface StartTestPostgresOptions {
  /** How long to wait for the server to accept connections. Default 30 s. */
  startTimeoutMs?: number;
  /** Receives PostgreSQL's log lines. */
  onLog?: (line: string) => void;
}

interface PostgresPrograms {
  initdb: string;
  postgres: string;
}

interface RunAs {
  uid: number;
  gid: number;
}

const HOST = "127.0.0.1";
const ROLE = "mfr";
const FIRST_DATABASE = "mfr_test";
const OUTPUT_LINES_KEPT = 60;
const POLL_MS = 50;
const AUTO_PORT_ATTEMPTS = 3;
const UNIX_SOCKET_PATH_MAX = 100;

/** initdb and postgres: on PATH, else the newest of Debian's /usr/lib/postgresql/<major>/bin. */
export function locatePostgres(env: NodeJS.ProcessEnv = process.env): PostgresPrograms | undefined {
  return locatePostgresPrograms(["initdb", "postgres"], env);
}

/** As root: the `postgres` system user (PostgreSQL refuses root); otherwise undefined (run as ourselves). */
async function runAsFor(): Promise<RunAs | undefined> {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  try {
    const uid = Number((await execFileAsync("id", ["-u", "postgres"])).stdout.trim());
    const gid = Number((await execFileAsync("id", ["-g", "postgres"])).stdout.trim());
    if (Number.isInteger(uid) && Number.isInteger(gid) && uid > 0) return { uid, gid };
  } catch {
    // no such user: below
  }
  throw new PostgresNotInstalledError("running as root needs the 'postgres' system user, which the package creates");
}

/**
 * Where the cluster's directory goes. As root the postgres user must be able to reach it:
 * the run's scratch directory (TMPDIR, test/support/scratch-dir.ts) is 0700 root, so then
 * /tmp (sticky, world-traversable) is used; the directory is removed by stop() and on exit.
 */
function baseDirFor(runAs: RunAs | undefined): string {
  const base = tmpdir();
  if (!runAs) return base;
  for (let dir = base; ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) return "/tmp";
    } catch {
      return "/tmp";
    }
    if (dirname(dir) === dir) return base;
  }
}

class LocalPostgres implements TestPostgres {
  readonly host = HOST;
  port = 0;
  private child: ChildProcess | undefined;
  private stopped = false;
  private readonly output: string[] = [];
  private readonly forgetDir: () => void;
  private databases = 0;

  constructor(
    readonly dir: string,
    private readonly password: string,
    private readonly programs: PostgresPrograms,
    private readonly runAs: RunAs | undefined,
    private readonly startTimeoutMs: number,
    private readonly onLog: ((line: string) => void) | undefined,
  ) {
    this.forgetDir = removeDirOnExit(dir);
  }

  get dataDir(): string {
    return join(this.dir, "data");
  }

  get url(): string {
    return this.urlOf(FIRST_DATABASE);
  }

  get pid(): number {
    return this.child && isRunning(this.child) ? (this.child.pid ?? 0) : 0;
  }

  get running(): boolean {
    return this.child !== undefined && isRunning(this.child);
  }

  urlOf(database: string): string {
    return `postgres://${ROLE}:${encodeURIComponent(this.password)}@${HOST}:${this.port}/${database}`;
  }

  async createDatabase(name?: string): Promise<string> {
    this.databases += 1;
    const database = name ?? `mfr_${process.pid}_${this.databases}_${randomBytes(3).toString("hex")}`;
    if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new RangeError(`not a plain database name: ${database}`);
    const client = new pg.Client({ connectionString: this.urlOf("postgres") });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${database}`);
    } finally {
      await client.end();
    }
    return this.urlOf(database);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const child = this.child;
    if (child && isRunning(child)) {
      child.kill("SIGINT"); // fast shutdown
      if (!(await waitForExit(child, 10_000))) await killNow(child);
    }
    await rm(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    this.forgetDir();
  }

  async kill(): Promise<void> {
    if (this.child) await killNow(this.child);
  }

  async restart(): Promise<void> {
    if (this.stopped) throw new Error("restart() after stop(): this PostgreSQL's directory is gone");
    await this.kill();
    // After a SIGKILL of the postmaster its backends notice and exit within moments; until
    // they have, a new postmaster refuses the data directory ("shared memory block is still
    // in use"): start again until it accepts, within the start timeout.
    const deadline = Date.now() + this.startTimeoutMs;
    for (;;) {
      try {
        await this.launch();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** initdb into dir/data with the role and its password file. */
  async initCluster(): Promise<void> {
    const pwfile = join(this.dir, "pwfile");
    await writeFile(pwfile, `${this.password}\n`, { mode: 0o600 });
    if (this.runAs) {
      await chown(this.dir, this.runAs.uid, this.runAs.gid);
      await chown(pwfile, this.runAs.uid, this.runAs.gid);
    }
    const args = [
      "-D", this.dataDir,
      "-U", ROLE,
      `--pwfile=${pwfile}`,
      "--auth-local=trust",
      "--auth-host=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      "--no-instructions",
    ];
    const { code, output } = await runToEnd(this.programs.initdb, args, this.dir, this.runAs);
    await rm(pwfile, { force: true });
    if (code !== 0) throw new Error(`initdb failed (${code}):\n${output}`);
  }

  /** Spawns the postmaster on this.port and resolves once it accepts connections. */
  async launch(): Promise<void> {
    const startedAt = performance.now();
    this.output.length = 0;
    const socketDir = join(this.dir, `.s.PGSQL.${this.port}`).length <= UNIX_SOCKET_PATH_MAX ? this.dir : "";
    const args = [
      "-D", this.dataDir,
      "-p", String(this.port),
      "-k", socketDir,
      "-c", `listen_addresses=${HOST}`,
      "-c", "fsync=on",
      "-c", "synchronous_commit=on",
      "-c", "max_connections=40",
      "-c", "shared_buffers=16MB",
      "-c", "logging_collector=off",
    ];
    const child = spawn(this.programs.postgres, args, {
      cwd: this.dir,
      env: { ...process.env, LC_ALL: "C" },
      stdio: ["ignore", "pipe", "pipe"],
      ...(this.runAs ?? {}),
    });
    this.child = child;
    killChildOnExit(child);
    const spawnError = watchOutput(child, this.output, OUTPUT_LINES_KEPT, this.onLog);

    const deadline = Date.now() + this.startTimeoutMs;
    for (;;) {
      const failedToRun = spawnError();
      if (failedToRun) throw new Error(`cannot run ${this.programs.postgres}: ${failedToRun.message}`);
      if (!isRunning(child)) {
        const log = this.output.join("\n");
        const error = /could not bind|Address already in use/i.test(log) ? new PortInUseError() : new Error();
        error.message = `PostgreSQL exited during startup (${child.exitCode ?? child.signalCode}):\n${log}`;
        throw error;
      }
      if (await this.accepts()) {
        const ms = Math.round(performance.now() - startedAt);
        this.onLog?.(`PostgreSQL (pid ${child.pid}) accepts connections on ${HOST}:${this.port} after ${ms} ms`);
        return;
      }
      if (Date.now() > deadline) {
        await killNow(child);
        throw new Error(
          `PostgreSQL did not accept connections on ${HOST}:${this.port} within ${this.startTimeoutMs} ms:\n` +
            this.output.join("\n"),
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private async accepts(): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.urlOf("postgres"), connectionTimeoutMillis: 1000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

class PortInUseError extends Error {}

function runToEnd(
  command: string,
  args: string[],
  cwd: string,
  runAs: RunAs | undefined,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, LC_ALL: "C" },
      stdio: ["ignore", "pipe", "pipe"],
      ...(runAs ?? {}),
    });
    killChildOnExit(child);
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** Starts a throw-away PostgreSQL with one database (`url`); throws PostgresNotInstalledError when missing. */
export async function startTestPostgres(opts: StartTestPostgresOptions = {}): Promise<TestPostgres> {
  const programs = locatePostgres();
  if (!programs) throw new PostgresNotInstalledError();
  const runAs = await runAsFor();
  const onLog =
    opts.onLog ?? (process.env.POSTGRES_TEST_LOG ? (line: string) => console.error(`[postgres] ${line}`) : undefined);
  const dir = await mkdtemp(join(baseDirFor(runAs), "mfr-postgres-"));
  const server = new LocalPostgres(
    dir,
    randomBytes(18).toString("base64url"),
    programs,
    runAs,
    opts.startTimeoutMs ?? 30_000,
    onLog,
  );
  try {
    await server.initCluster();
    for (let attempt = 1; ; attempt++) {
      server.port = await pickFreePort(HOST);
      try {
        await server.launch();
        break;
      } catch (err) {
        // A picked port can be taken between picking and binding: pick another.
        if (!(err instanceof PortInUseError) || attempt >= AUTO_PORT_ATTEMPTS) throw err;
      }
    }
    await server.createDatabase(FIRST_DATABASE);
    return server;
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw err;
  }
}
