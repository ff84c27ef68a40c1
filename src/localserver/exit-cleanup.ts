/**
 * Nothing we start may outlive us. Tracked children are SIGKILLed and tracked temp
 * directories removed when this process exits (the synchronous `exit` event), and on
 * SIGINT/SIGTERM/SIGHUP when nobody else handles that signal (we then re-raise it so the
 * default exit still happens; when the app has its own handler, its exit runs the hook).
 * A SIGKILL of this process cannot be intercepted; nothing here can help with that.
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let hooksInstalled = false;
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function cleanUpNow(): void {
  for (const child of children) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  children.clear();
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort while exiting
    }
  }
  dirs.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return; // the app handles it and will exit
  cleanUpNow();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", cleanUpNow);
  for (const s of SIGNALS) process.on(s, onSignal);
}

/** SIGKILL `child` if this process exits while it still runs. */
export function killChildOnExit(child: ChildProcess): void {
  installHooks();
  if (child.exitCode !== null || child.signalCode !== null) return;
  children.add(child);
  child.once("exit", () => children.delete(child));
}

/** Remove `dir` if this process exits first; call the returned function once it is removed. */
export function removeDirOnExit(dir: string): () => void {
  installHooks();
  dirs.add(dir);
  return () => {
    dirs.delete(dir);
  };
}
