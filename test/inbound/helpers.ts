/**
 * What the inbound stage tests share: a log that keeps its lines, and an outlet that keeps
 * what would have been said, so a test reads both.
 */
import { pino, type Logger } from "pino";
import type { ReplyOutlet, ReplyTarget } from "../../src/inbound/context.js";

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A debug-level logger whose lines are kept, parsed, in `lines`. */
export function keptLog(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level: "trace" }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { log, lines };
}

export type Said = { how: "to"; target: ReplyTarget; text: string } | { how: "privately"; to: string; text: string } | { how: "sayIn"; room: string; text: string };

/** An outlet that keeps what would have been sent. */
export function keptOutlet(): ReplyOutlet & { said: Said[] } {
  const said: Said[] = [];
  return {
    said,
    to: async (target, text) => void said.push({ how: "to", target, text }),
    privately: async (via, text) => void said.push({ how: "privately", to: `${via.room}/${via.nick}`, text }),
    sayIn: async (room, text) => void said.push({ how: "sayIn", room, text }),
  };
}
