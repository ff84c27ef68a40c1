import { pino, type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger };

export interface LogOptions {
  level: string;
  /** Human-readable lines instead of JSON. */
  pretty: boolean;
  /** A file to append to instead of stdout. */
  destination?: string;
}

/** Fields that may hold secrets; pino replaces them wherever they appear. */
const REDACT = ["password", "*.password", "xmpp.password", "config.xmpp.password", "secret", "*.secret"];

/** JSON lines to stdout (for operators' log pipelines), or pretty lines for a terminal. */
export function createLogger(options: LogOptions): Logger {
  const base = { level: options.level, redact: { paths: REDACT, censor: "********" }, base: { app: "mfr-coordinator" } };
  if (options.destination) return pino(base, pino.destination({ dest: options.destination, sync: true, mkdir: true }));
  if (!options.pretty) return pino(base);
  return pino(base, pretty({ sync: true, colorize: process.stdout.isTTY, translateTime: "HH:MM:ss.l", ignore: "pid,hostname,app" }));
}
