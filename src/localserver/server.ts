/**
 * A throw-away Prosody on loopback for the demo and the tests: spawns
 * `prosody --config <repo>/prosody/local.cfg.lua -F` with its own directory and port,
 * waits until it listens, and hands back a handle to register users, stop, kill, restart.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve as resolvePath } from "node:path";
import { isRunning, killNow, terminate, watchOutput } from "./children.js";
import { killChildOnExit, removeDirOnExit } from "./exit-cleanup.js";
import { ensureProsody } from "./install.js";
import type { ProsodyCommands } from "./locate.js";
import { fileSize, readFrom, startupVerdict, tailFile } from "./logfile.js";
import { localConfigPath } from "./paths.js";
import { canConnect, pickFreePort } from "./port.js";
import { registerAccount } from "./register.js";

export const LOCAL_HOST = "127.0.0.1";
export const LOCAL_DOMAIN = "localhost";
export const LOCAL_MUC_DOMAIN = "conference.localhost";
/** Prosody's own default c2s_stanza_size_limit, which local.cfg.lua keeps by default. */
export const DEFAULT_STANZA_SIZE_LIMIT = 256 * 1024;
/**
 * Prosody reads sockets in chunks of this many bytes and checks the limit only against the
 * unparsed part of the current stanza at the end of each chunk. Measured consequence: a
 * stanza of at most `stanzaSizeLimit` bytes always passes; one over
 * `stanzaSizeLimit + PROSODY_READ_SIZE` is always refused (the sender's stream is closed
 * with policy-violation); in between it depends on how the TCP reads fall.
 */
export const PROSODY_READ_SIZE = 8192;
/** Prosody 0.12 does not accept a smaller c2s_stanza_size_limit. */
export const MIN_STANZA_SIZE_LIMIT = 10_000;

export interface StartLocalProsodyOptions {
  /** Directory for pid file, log and data. Default: a new temp dir, removed by stop(). */
  dir?: string;
  /** c2s port on 127.0.0.1. Default: a free port picked by the OS. */
  port?: number;
  /**
   * c2s_stanza_size_limit in bytes (default 256 KiB, Prosody's minimum 10 000). A bigger
   * stanza gets the SENDER's stream closed (policy-violation); see PROSODY_READ_SIZE.
   */
  stanzaSizeLimit?: number;
  /**
   * Receives the launcher's progress lines ("Prosody … listening on …", "stopped") and
   * Prosody's own stdout/stderr (tracebacks, fatal errors). The full log is at logPath.
   */
  onLog?: (line: string) => void;
  /** How long to wait for the port to accept connections (default 10 000 ms). */
  startTimeoutMs?: number;
  /** Executables to use. Default: found on PATH; a clear error with the install command if missing. */
  commands?: ProsodyCommands;
  /** Config file. Default: <repo>/prosody/local.cfg.lua. */
  configPath?: string;
  /**
   * Whether rooms stamp XEP-0421 occupant ids on presence and messages (Prosody's default,
   * true). False makes a server like those that do not, for testing nick-only identity.
   */
  occupantIds?: boolean;
  /**
   * Whether rooms can be archived (Prosody's mod_muc_mam, XEP-0313; default true): a room's
   * history then comes from the archive and carries stanza-ids. False makes a server with the
   * in-memory history alone, which a server restart loses.
   */
  roomArchive?: boolean;
  /**
   * Whether the server offers XEP-0198 stream management (Prosody's mod_smacks, resumable
   * sessions hibernated for `smacksHibernationSeconds`), as ejabberd does by default. Default false.
   */
  streamManagement?: boolean;
  /** How long mod_smacks keeps a session whose connection dropped (default 600 s, Prosody's own). */
  smacksHibernationSeconds?: number;
  /**
   * Whether the project's module muc_keep_protocol is loaded (default true). False makes a
   * stock server, as an operator has it who cannot load a module: it keeps no message without
   * a body (agents' protocol messages) as history or archive, and says nothing of keeping them.
   */
  keepProtocol?: boolean;
  /** muc_room_default_history_length (default 0: a room the coordinator creates sets its own). */
  historyLength?: number;
}

export interface LocalProsody {
  readonly host: string;
  readonly port: number;
  readonly domain: string;
  readonly mucDomain: string;
  /** e.g. "xmpp://127.0.0.1:41234", for @xmpp/client's `service`. */
  readonly service: string;
  readonly dir: string;
  readonly logPath: string;
  readonly configPath: string;
  readonly stanzaSizeLimit: number;
  /** PID of the current (or last) Prosody process. */
  readonly pid: number;
  readonly running: boolean;
  /** Creates user@localhost (XEP-0077 in-band registration, ~3 ms). Rejects if it exists. */
  register(username: string, password: string): Promise<void>;
  /** SIGTERM, SIGKILL after 3 s; removes the directory if it was created here. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL now; keeps the directory (for restart tests). */
  kill(): Promise<void>;
  /** Starts again on the same port and data directory (kills first if running). Accounts persist. */
  restart(): Promise<void>;
}

const POLL_MS = 20;
const OUTPUT_LINES_KEPT = 40;
const AUTO_PORT_ATTEMPTS = 3;

class PortInUseError extends Error {}

class LocalProsodyServer implements LocalProsody {
  readonly host = LOCAL_HOST;
  readonly domain = LOCAL_DOMAIN;
  readonly mucDomain = LOCAL_MUC_DOMAIN;
  readonly logPath: string;
  port = 0;
  private child: ChildProcess | undefined;
  private stopped = false;
  private readonly output: string[] = [];
  private readonly forgetDir: (() => void) | undefined;

  constructor(
    readonly dir: string,
    private readonly ownsDir: boolean,
    readonly configPath: string,
    readonly stanzaSizeLimit: number,
    private readonly commands: ProsodyCommands,
    private readonly startTimeoutMs: number,
    private readonly onLog: ((line: string) => void) | undefined,
    readonly occupantIds: boolean,
    readonly roomArchive: boolean,
    readonly streamManagement: { enabled: boolean; hibernationSeconds: number },
    /** The project's module, and the rooms' default history length (see StartLocalProsodyOptions). */
    readonly rooms: { keepProtocol: boolean; historyLength: number } = { keepProtocol: true, historyLength: 0 },
  ) {
    this.logPath = join(dir, "prosody.log");
    this.forgetDir = ownsDir ? removeDirOnExit(dir) : undefined;
  }

  get service(): string {
    return `xmpp://${this.host}:${this.port}`;
  }

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  get running(): boolean {
    return this.child !== undefined && isRunning(this.child);
  }

  register(username: string, password: string): Promise<void> {
    return registerAccount({ host: this.host, port: this.port, domain: this.domain, username, password });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.child && isRunning(this.child)) {
      await terminate(this.child, 3000);
      this.onLog?.(`Prosody (pid ${this.child.pid}) stopped`);
    }
    if (this.ownsDir) {
      await rm(this.dir, { recursive: true, force: true });
      this.forgetDir?.();
    }
  }

  async kill(): Promise<void> {
    if (this.child) await killNow(this.child);
  }

  async restart(): Promise<void> {
    if (this.stopped) throw new Error("restart() after stop(): this Prosody's directory is gone");
    await this.kill();
    await this.launch();
  }

  /** Spawns Prosody on this.port and resolves once it listens there. */
  async launch(): Promise<void> {
    const startedAt = performance.now();
    const logOffset = await fileSize(this.logPath);
    this.output.length = 0;
    const child = spawn(this.commands.prosody, ["--config", this.configPath, "-F"], {
      cwd: this.dir,
      env: {
        ...process.env,
        PROSODY_TEST_DIR: this.dir,
        PROSODY_TEST_PORT: String(this.port),
        PROSODY_STANZA_LIMIT: String(this.stanzaSizeLimit),
        PROSODY_OCCUPANT_ID: this.occupantIds ? "1" : "0",
        PROSODY_MUC_MAM: this.roomArchive ? "1" : "0",
        PROSODY_KEEP_PROTOCOL: this.rooms.keepProtocol ? "1" : "0",
        PROSODY_HISTORY_LENGTH: String(this.rooms.historyLength),
        // The project's own Prosody module (keeps protocol messages as room history) sits beside the config.
        PROSODY_PLUGIN_DIR: join(dirname(this.configPath), "modules"),
        PROSODY_SMACKS: this.streamManagement.enabled ? "1" : "0",
        PROSODY_SMACKS_HIBERNATION: String(this.streamManagement.hibernationSeconds),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    killChildOnExit(child);
    const spawnError = watchOutput(child, this.output, OUTPUT_LINES_KEPT, this.onLog);

    const deadline = Date.now() + this.startTimeoutMs;
    for (;;) {
      const failedToRun = spawnError();
      if (failedToRun) throw new Error(`cannot run ${this.commands.prosody}: ${failedToRun.message}`);
      if (!isRunning(child)) {
        throw new Error(
          `Prosody exited during startup (${child.exitCode ?? child.signalCode})` + (await this.diagnostics()),
        );
      }
      const verdict = startupVerdict(await readFrom(this.logPath, logOffset), this.host, this.port);
      if (verdict.state === "failed") {
        await killNow(child);
        throw new PortInUseError(`Prosody could not listen on ${this.host}:${this.port}: ${verdict.reason}`);
      }
      if (verdict.state === "listening" && (await canConnect(this.host, this.port))) {
        const ms = Math.round(performance.now() - startedAt);
        this.onLog?.(`Prosody (pid ${child.pid}) listening on ${this.service} after ${ms} ms; data in ${this.dir}`);
        return;
      }
      if (Date.now() > deadline) {
        await killNow(child);
        throw new Error(
          `Prosody did not accept connections on ${this.host}:${this.port} within ${this.startTimeoutMs} ms` +
            (await this.diagnostics()),
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private async diagnostics(): Promise<string> {
    const log = await tailFile(this.logPath, 20);
    const out = this.output.slice(-20).join("\n");
    return (
      `\n--- ${this.logPath} (last lines) ---\n${log || "(empty)"}` +
      (out ? `\n--- prosody stdout/stderr ---\n${out}` : "")
    );
  }
}

/** Starts a Prosody of our own; see LocalProsody. Throws ProsodyNotInstalledError if missing. */
export async function startLocalProsody(opts: StartLocalProsodyOptions = {}): Promise<LocalProsody> {
  const commands = opts.commands ?? (await ensureProsody({ allowInstall: false }));
  const configPath = opts.configPath ?? localConfigPath();
  const stanzaSizeLimit = opts.stanzaSizeLimit ?? DEFAULT_STANZA_SIZE_LIMIT;
  if (!Number.isInteger(stanzaSizeLimit) || stanzaSizeLimit < MIN_STANZA_SIZE_LIMIT) {
    throw new RangeError(`stanzaSizeLimit must be an integer >= ${MIN_STANZA_SIZE_LIMIT} (Prosody's minimum)`);
  }
  const ownsDir = opts.dir === undefined;
  const dir = opts.dir ? resolvePath(opts.dir) : await mkdtemp(join(tmpdir(), "mfr-prosody-"));
  const server = new LocalProsodyServer(
    dir,
    ownsDir,
    configPath,
    stanzaSizeLimit,
    commands,
    opts.startTimeoutMs ?? 10_000,
    opts.onLog,
    opts.occupantIds ?? true,
    opts.roomArchive ?? true,
    { enabled: opts.streamManagement ?? false, hibernationSeconds: opts.smacksHibernationSeconds ?? 600 },
    { keepProtocol: opts.keepProtocol ?? true, historyLength: opts.historyLength ?? 0 },
  );
  try {
    await mkdir(join(dir, "data"), { recursive: true }); // Prosody does not create it
    for (let attempt = 1; ; attempt++) {
      server.port = opts.port ?? (await pickFreePort(LOCAL_HOST));
      try {
        await server.launch();
        return server;
      } catch (err) {
        // A picked port can be taken between picking and binding: pick another.
        if (!(err instanceof PortInUseError) || opts.port !== undefined || attempt >= AUTO_PORT_ATTEMPTS) throw err;
      }
    }
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw err;
  }
}
