/** Shared set-up for the store tests: throwaway data directories, inputs, a second process. */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { Driver, T0, contributionInput, proposalInput, startInput } from "../support/session-fixtures.js";
import type { Session } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";

const made: string[] = [];

/** A fresh directory, removed after the test. */
export function tempDir(prefix = "mfr-store-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export { T0 };

export function start(sessionId: string, problem = `Problem of ${sessionId}`): Input {
  return startInput({ sessionId, problem });
}

export function contribution(sessionId: string, agent: string, turtle?: string): Input {
  return contributionInput(sessionId, agent, turtle === undefined ? {} : { turtle });
}

export function proposal(sessionId: string, agent: string): Input {
  return proposalInput(sessionId, agent);
}

export function cancel(sessionId: string, nick = "dana"): Input {
  return { kind: "cancel", sessionId, by: { nick, jid: `${nick}@people.example` } };
}

/** A session the core has completed (cancelled), started at `startedAt`, for the archive. */
export function completedSession(sessionId: string, startedAt: number, completedAt = startedAt + 1000): Session {
  const driver = new Driver(startedAt);
  driver.feed(start(sessionId));
  driver.feed(cancel(sessionId), completedAt);
  return driver.session(sessionId);
}

const CHILD = fileURLToPath(new URL("./support/store-child.ts", import.meta.url));
const REGISTER = fileURLToPath(new URL("./support/register-ts.mjs", import.meta.url));

/** Runs test/store/support/store-child.ts in its own Node process, on the TypeScript sources. */
export function spawnStoreChild(args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", REGISTER, CHILD, ...args], { stdio: ["ignore", "pipe", "pipe"] });
}

/** Resolves with the child's first stdout line that matches, or rejects if it exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let buffered = "";
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split("\n").find((l) => pattern.test(l));
      if (line !== undefined) {
        clearTimeout(timer);
        resolvePromise(line);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited (${code}) before printing ${pattern}; stdout: ${buffered} stderr: ${stderr}`));
    });
  });
}

/** Sends SIGKILL and waits until the process is gone. */
export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolvePromise) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolvePromise();
    child.once("exit", () => resolvePromise());
    child.kill("SIGKILL");
  });
}
