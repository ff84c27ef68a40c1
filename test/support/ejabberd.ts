/**
 * A throw-away ejabberd on loopback for the tests, with the same handle as the Prosody one
 * (LocalProsody: host, port, domain, mucDomain, service, register, stop, kill, restart), so
 * a scenario written against one runs against the other. Tests FAIL with the install
 * command when ejabberd is missing; they never skip.
 *
 * Each server has its own directory (config, Mnesia spool, log) and port, and runs as an
 * Erlang VM without distribution (no node name, no cookie, no epmd): nothing is shared
 * between the servers of test files running in parallel, and nothing outlives a stop.
 * Accounts are created by in-band registration, which the tested configuration allows
 * from loopback.
 *
 *   const { server, afterThis } = useTestEjabberd();
 *
 * Set EJABBERD_TEST_LOG=1 to print ejabberd's console output while tests run.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { isRunning, killNow, terminate, watchOutput } from "../../src/localserver/children.js";
import { killChildOnExit, removeDirOnExit } from "../../src/localserver/exit-cleanup.js";
import { fileSize, readFrom, tailFile } from "../../src/localserver/logfile.js";
import { canConnect, pickFreePort } from "../../src/localserver/port.js";
import { registerAccount } from "../../src/localserver/register.js";
import { DEFAULT_STANZA_SIZE_LIMIT, LOCAL_DOMAIN, LOCAL_HOST, LOCAL_MUC_DOMAIN, type LocalProsody } from "../../src/localserver/server.js";
import { EJABBERD_TEMPLATE_PATH, KEEP_PROTOCOL_SOURCE, ejabberdConfig, locateEjabberd, type EjabberdRuntime } from "./ejabberd-install.js";
import { useTestServer, type TestServerHandle } from "./test-server.js";

export { EjabberdNotInstalledError, EJABBERD_INSTALL_COMMAND } from "./ejabberd-install.js";

/** The server handle the scenarios use, whichever server is behind it. */
export type LocalEjabberd = LocalProsody & { readonly kind: "ejabberd" };

export interface StartTestEjabberdOptions {
  /** c2s port on 127.0.0.1. Default: a free port picked by the OS (another is picked if it is taken meanwhile). */
  port?: number;
  /** Receives ejabberd's console output (critical errors; the full log is at logPath). */
  onLog?: (line: string) => void;
  /** How long to wait for the port to accept connections (default 20 000 ms; a cold start takes ~1 s). */
  startTimeoutMs?: number;
  /**
   * Whether the project's module mod_muc_keep_protocol is loaded, as the tested configuration
   * says (default true). False makes a server as an operator has it who left the module out:
   * the agents' body-less protocol messages are then archived nowhere.
   */
  keepProtocol?: boolean;
}

/** The line of the tested configuration that loads the project's module. */
const KEEP_PROTOCOL_LINE = /^ {2}mod_muc_keep_protocol: \{\}\n/m;

const POLL_MS = 25;
const OUTPUT_LINES_KEPT = 40;
const AUTO_PORT_ATTEMPTS = 3;
/** ejabberd stops in about a second (measured); a stuck one is killed after this. */
const STOP_GRACE_MS = 5000;

class PortInUseError extends Error {}

/** What ejabberd's log says about the c2s listener on host:port. */
function listenerState(log: string, host: string, port: number): "pending" | "listening" | "port in use" {
  if (log.includes(`Failed to open socket at ${host}:${port}`)) return "port in use";
  if (log.includes(`Start accepting TCP connections at ${host}:${port} for ejabberd_c2s`)) return "listening";
  return "pending";
}

class TestEjabberd implements LocalEjabberd {
  readonly kind = "ejabberd" as const;
  readonly host = LOCAL_HOST;
  readonly domain = LOCAL_DOMAIN;
  readonly mucDomain = LOCAL_MUC_DOMAIN;
  /** max_stanza_size on the c2s listener in ejabberd/ejabberd.yml. */
  readonly stanzaSizeLimit = DEFAULT_STANZA_SIZE_LIMIT;
  readonly logPath: string;
  readonly configPath: string;
  port = 0;
  private child: ChildProcess | undefined;
  private stopped = false;
  private readonly output: string[] = [];
  private readonly forgetDir: () => void;

  constructor(
    readonly dir: string,
    private readonly runtime: EjabberdRuntime,
    private readonly startTimeoutMs: number,
    private readonly onLog: ((line: string) => void) | undefined,
    private readonly keepProtocol: boolean,
  ) {
    this.logPath = join(dir, "ejabberd.log");
    this.configPath = join(dir, "ejabberd.yml");
    this.forgetDir = removeDirOnExit(dir);
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

  /** SIGTERM (ejabberd stops in order), SIGKILL if it hangs; removes the directory. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.child && isRunning(this.child)) await terminate(this.child, STOP_GRACE_MS);
    await rm(this.dir, { recursive: true, force: true });
    this.forgetDir();
  }

  /** SIGKILL now; keeps the spool (accounts, persistent rooms, archives) for restart(). */
  async kill(): Promise<void> {
    if (this.child) await killNow(this.child);
  }

  async restart(): Promise<void> {
    if (this.stopped) throw new Error("restart() after stop(): this ejabberd's directory is gone");
    await this.kill();
    await this.launch();
  }

  /** Writes the config for this.port and starts ejabberd; resolves once it accepts clients there. */
  async launch(): Promise<void> {
    const config = ejabberdConfig(await readFile(EJABBERD_TEMPLATE_PATH, "utf8"), { domain: this.domain, port: this.port });
    if (!KEEP_PROTOCOL_LINE.test(config)) throw new Error(`${EJABBERD_TEMPLATE_PATH} no longer loads mod_muc_keep_protocol as the tests expect`);
    await writeFile(this.configPath, this.keepProtocol ? config : config.replace(KEEP_PROTOCOL_LINE, ""));
    const logOffset = await fileSize(this.logPath);
    this.output.length = 0;
    // What `ejabberdctl foreground` runs, minus the node name: -s ejabberd starts the application.
    const child = spawn(this.runtime.erl, ["-noinput", "-pa", join(this.dir, "ebin"), "-mnesia", "dir", JSON.stringify(join(this.dir, "spool")), "-ejabberd", "quiet", "true", "-s", "ejabberd"], {
      cwd: this.dir,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: this.dir,
        ERL_LIBS: this.runtime.erlLibs,
        EJABBERD_CONFIG_PATH: this.configPath,
        EJABBERD_LOG_PATH: this.logPath,
        ERL_CRASH_DUMP_BYTES: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    killChildOnExit(child);
    const spawnError = watchOutput(child, this.output, OUTPUT_LINES_KEPT, this.onLog);

    const deadline = Date.now() + this.startTimeoutMs;
    for (;;) {
      const failedToRun = spawnError();
      if (failedToRun) throw new Error(`cannot run ${this.runtime.erl}: ${failedToRun.message}`);
      // Seen exited first, so the log read next is complete: a busy port makes ejabberd exit.
      const exited = !isRunning(child);
      const state = listenerState(await readFrom(this.logPath, logOffset), this.host, this.port);
      if (state === "port in use") {
        await killNow(child);
        throw new PortInUseError(`ejabberd could not listen on ${this.host}:${this.port}: address already in use`);
      }
      if (exited) throw new Error(`ejabberd exited during startup (${child.exitCode ?? child.signalCode})` + (await this.diagnostics()));
      if (state === "listening" && (await canConnect(this.host, this.port))) return;
      if (Date.now() > deadline) {
        await killNow(child);
        throw new Error(`ejabberd did not accept connections on ${this.host}:${this.port} within ${this.startTimeoutMs} ms` + (await this.diagnostics()));
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private async diagnostics(): Promise<string> {
    const out = this.output.slice(-20).join("\n");
    return `\n--- ${this.logPath} (last lines) ---\n${(await tailFile(this.logPath, 20)) || "(empty)"}` + (out ? `\n--- ejabberd console ---\n${out}` : "");
  }
}

/** Compiles the project's module (ejabberd/mod_muc_keep_protocol.erl) into `ebin`, which goes on ejabberd's code path. */
async function compileModules(runtime: EjabberdRuntime, ebin: string): Promise<void> {
  await mkdir(ebin, { recursive: true });
  try {
    await promisify(execFile)(runtime.erlc, ["-o", ebin, KEEP_PROTOCOL_SOURCE], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ERL_LIBS: runtime.erlLibs } });
  } catch (err) {
    const { stdout = "", stderr = "" } = err as { stdout?: string; stderr?: string };
    throw new Error(`could not compile ${KEEP_PROTOCOL_SOURCE}: ${String(stdout)}${String(stderr)}`.trim());
  }
}

/** Starts an ejabberd of our own; throws EjabberdNotInstalledError (with the install command) if missing. */
export async function startTestEjabberd(opts: StartTestEjabberdOptions = {}): Promise<LocalEjabberd> {
  const runtime = locateEjabberd();
  const onLog = opts.onLog ?? (process.env.EJABBERD_TEST_LOG ? (line: string) => console.error(`[ejabberd] ${line}`) : undefined);
  const server = new TestEjabberd(await mkdtemp(join(tmpdir(), "mfr-ejabberd-")), runtime, opts.startTimeoutMs ?? 60_000, onLog, opts.keepProtocol ?? true);
  try {
    await mkdir(join(server.dir, "spool"));
    await compileModules(runtime, join(server.dir, "ebin"));
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

/**
 * One ejabberd for the calling test file (started before its tests, stopped after), and a
 * list of clean-up steps run after each test in reverse order (peers, coordinators).
 */
export function useTestEjabberd(opts: StartTestEjabberdOptions = {}): TestServerHandle<LocalEjabberd> {
  return useTestServer("ejabberd", () => startTestEjabberd(opts), 30_000);
}
