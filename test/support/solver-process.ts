import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, REPO_ROOT } from "./cli.js";
import type { LocalProsody } from "./prosody.js";
import { collectLog, type LogLine } from "./child-log.js";
import { writeLocalAgentProfile } from "../../src/localserver/agent-profile.js";


/** The reference solver agent (`mfr-coordinator solver`) as a child process, with its JSON log parsed. */
export class SolverProcess {
  readonly logs: LogLine[] = [];
  stderr = "";
  private readonly exitCode: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    collectLog(child, this.logs, (text) => (this.stderr += text));
    this.exitCode = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  }

  /** Registers an account, writes the solver's own profile and secrets, starts it, waits until it is in the room. */
  static async start(options: { server: LocalProsody; room: string; nick?: string; mfrConfig?: string; args?: string[] }): Promise<SolverProcess> {
    const dir = mkdtempSync(join(tmpdir(), "mfr-solver-"));
    const username = `solver-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const password = `pw-${username}`;
    await options.server.register(username, password);
    const { profile, secrets } = writeLocalAgentProfile(dir, {
      node: "solver",
      nick: options.nick ?? "Solver",
      server: options.server,
      account: { username, password },
      passwordKey: "solver",
      resource: "Solver",
      room: options.room,
      mfrConfig: options.mfrConfig ?? "",
    });
    const child = spawn(process.execPath, [CLI, "solver", "--profile", profile, "--secrets", secrets, ...(options.args ?? [])], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "debug" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const solver = new SolverProcess(child);
    await solver.waitForLog((l) => l.msg === "joined the room" && l.room === options.room, 20_000);
    return solver;
  }

  async waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = 10_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.logs.find(predicate);
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error(`solver exited with ${this.child.exitCode}; stderr: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no matching solver log line within ${timeoutMs} ms; last lines:\n${this.logs.slice(-10).map((l) => JSON.stringify(l)).join("\n")}\nstderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  get running(): boolean {
    return this.child.exitCode === null;
  }

  /** SIGTERM, and the exit code. */
  async terminate(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    this.child.kill("SIGTERM");
    return this.exitCode;
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.kill("SIGKILL");
    await this.exitCode;
  }
}
