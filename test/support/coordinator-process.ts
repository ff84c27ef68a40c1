import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, REPO_ROOT } from "./cli.js";
import type { LocalProsody } from "./prosody.js";

export interface CoordinatorProcessOptions {
  server: LocalProsody;
  room: string;
  nick?: string;
  logRoom?: string;
  /** Extra lines inside `agent:mfrConfig [ … ]`, e.g. `mfr:contributionTimeout 800 ;`. */
  mfrConfig?: string;
  env?: Record<string, string>;
  /** Reuse a directory (profile, secrets, data) across restarts of the coordinator. */
  dir?: string;
  /** Peer agent profiles written beside the coordinator's profile (the catalog): file name → Turtle. */
  agentProfiles?: Record<string, string>;
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
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
  ) {
    let buffer = "";
    child.stdout?.on("data", (d: Buffer) => {
      buffer += d.toString();
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          this.logs.push(JSON.parse(line) as LogLine);
        } catch {
          this.logs.push({ level: 0, msg: line });
        }
      }
    });
    child.stderr?.on("data", (d: Buffer) => (this.stderr += d.toString()));
    this.exitCode = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  }

  /** Registers an account, writes a profile and secrets, and starts the CLI. */
  static async start(options: CoordinatorProcessOptions): Promise<CoordinatorProcess> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "mfr-coord-"));
    const username = `coord-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const password = `pw-${username}`;
    await options.server.register(username, password);
    return CoordinatorProcess.spawnWith(options, dir, { username, password });
  }

  /** Starts the CLI again with the same account and directory (after `kill`). */
  async restart(options: CoordinatorProcessOptions): Promise<CoordinatorProcess> {
    return CoordinatorProcess.spawnWith({ ...options, dir: this.dir }, this.dir, this.account);
  }

  private static spawnWith(options: CoordinatorProcessOptions, dir: string, account: { username: string; password: string }): CoordinatorProcess {
    const { server } = options;
    for (const [file, turtle] of Object.entries(options.agentProfiles ?? {})) writeFileSync(join(dir, file), turtle);
    const profile = join(dir, "coordinator.ttl");
    writeFileSync(
      profile,
      `@prefix agent: <https://tensegrity.it/vocab/agent#> .
@prefix xmpp: <https://tensegrity.it/vocab/xmpp#> .
@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
<#coordinator> foaf:nick "${options.nick ?? "Coordinator"}" ;
  agent:xmppAccount [ xmpp:service "${server.service}" ; xmpp:domain "${server.domain}" ;
    xmpp:username "${account.username}" ; xmpp:passwordKey "coordinator" ; xmpp:resource "Coordinator" ] ;
  agent:roomJid "${options.room}" ;
  ${options.logRoom ? `agent:logRoomJid "${options.logRoom}" ;` : ""}
  agent:mfrConfig [ mfr:dataDir "${join(dir, "data")}" ; ${options.mfrConfig ?? ""} ] .
`,
    );
    const secrets = join(dir, "secrets.json");
    writeFileSync(secrets, JSON.stringify({ xmpp: { coordinator: account.password } }));
    const child = spawn(process.execPath, [CLI, "start", "--profile", profile, "--secrets", secrets], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "debug", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new CoordinatorProcess(child, dir, account);
  }

  get jid(): string {
    return `${this.account.username}@localhost`;
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

  /** Waits until it has joined `room` (the count-th time, for rejoins). */
  async joined(room: string, count = 1, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.logs.filter((l) => l.msg === "joined the room" && l.room === room).length < count) {
      if (Date.now() > deadline) await this.waitForLog(() => false, 0);
      if (this.child.exitCode !== null) throw new Error(`coordinator exited with ${this.child.exitCode}; stderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** SIGTERM, and the exit code with the time it took. */
  async terminate(): Promise<{ code: number | null; ms: number }> {
    const started = Date.now();
    this.child.kill("SIGTERM");
    const code = await this.exitCode;
    return { code, ms: Date.now() - started };
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
