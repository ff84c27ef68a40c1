import type { ChildProcess } from "node:child_process";

/** One line of a child's JSON log (pino), or a raw line that was not JSON (level 0). */
export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** Collects a child process's JSON log lines from stdout and its stderr, as they arrive. */
export function collectLog(child: ChildProcess, logs: LogLine[], onStderr: (text: string) => void): void {
  let buffer = "";
  child.stdout?.on("data", (d: Buffer) => {
    buffer += d.toString();
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        logs.push({ level: 0, msg: line });
      }
    }
  });
  child.stderr?.on("data", (d: Buffer) => onStderr(d.toString()));
}
