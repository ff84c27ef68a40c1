/** Reading Prosody's log file: the tail for error messages, and its startup verdict. */
import { open, readFile, stat } from "node:fs/promises";

/** The last `lines` lines of a text file ("" when it does not exist yet). */
export async function tailFile(path: string, lines = 20): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return "";
  }
  return text.split("\n").filter((l) => l.trim()).slice(-lines).join("\n");
}

export type StartupVerdict = { state: "pending" } | { state: "listening" } | { state: "failed"; reason: string };

/**
 * What the log says about the c2s listener on host:port. Prosody 0.12 does NOT exit when
 * it cannot bind: it logs "Failed to open server port" and keeps running without a port.
 */
export function startupVerdict(log: string, host: string, port: number): StartupVerdict {
  const failed = /portmanager\s+error\s+(Failed to open server port[^\n]*)/.exec(log);
  if (failed?.[1]) return { state: "failed", reason: failed[1] };
  if (log.includes(`Activated service 'c2s' on [${host}]:${port}`)) return { state: "listening" };
  return { state: "pending" };
}

/** The file's size in bytes (0 when it does not exist): remember it to read only new lines. */
export async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** The file's text from byte `offset` on ("" when it does not exist). */
export async function readFrom(path: string, offset: number): Promise<string> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch {
    return "";
  }
  try {
    const { size } = await handle.stat();
    if (size <= offset) return "";
    const buf = Buffer.alloc(size - offset);
    await handle.read(buf, 0, buf.length, offset);
    return buf.toString("utf8");
  } finally {
    await handle.close();
  }
}
