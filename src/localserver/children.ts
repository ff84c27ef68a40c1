/** Stopping a child process and waiting for it, with bounds. */
import type { ChildProcess } from "node:child_process";

/** True while the child has not exited. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Resolves when the child has exited (true) or after timeoutMs (false). */
export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (!isRunning(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.removeListener("exit", onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once("exit", onExit);
  });
}

/** SIGTERM, then SIGKILL if it still runs after graceMs. Resolves once it has exited. */
export async function terminate(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (!isRunning(child)) return;
  child.kill("SIGTERM");
  if (await waitForExit(child, graceMs)) return;
  await killNow(child);
}

/** SIGKILL; resolves once it has exited. */
export async function killNow(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return;
  child.kill("SIGKILL");
  await waitForExit(child, 5000);
}

/**
 * Keeps a started server's last `maxLines` output lines in `lines` (stdout and stderr, blank
 * lines left out; what a failed start is explained with), passes each to `onLog`, and notes
 * a failure to run it at all. Returns the spawn error once there is one.
 */
export function watchOutput(child: ChildProcess, lines: string[], maxLines: number, onLog?: (line: string) => void): () => Error | undefined {
  let spawnError: Error | undefined;
  child.on("error", (err) => (spawnError = err));
  const onData = (chunk: Buffer): void => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > maxLines) lines.shift();
      onLog?.(line);
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  return () => spawnError;
}
