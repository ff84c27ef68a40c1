/**
 * The human commands of the protocol ("Human commands" in docs/protocol.md), parsed from a
 * message body into a typed Command. Parsing only: what a command does lives elsewhere.
 */
import { nearestWord } from "../spelling.js";

export type CommandName = "start" | "debate" | "status" | "list" | "cancel" | "help" | "agents" | "approve" | "reject" | "use";

export type Command =
  | { name: "start"; problem: string }
  | { name: "debate"; problem: string }
  | { name: "status"; sessionId: string | undefined }
  | { name: "list" }
  | { name: "cancel"; sessionId: string }
  | { name: "help" }
  | { name: "agents" }
  | { name: "approve"; sessionId: string }
  | { name: "reject"; sessionId: string }
  | { name: "use"; choice: "all" | number[] };

/** A command word was recognised but its arguments were not: reply with the usage. */
export interface CommandMisuse {
  name: CommandName;
  usage: string;
}

/** Said to the coordinator (addressed, or in 1:1 chat) but no command: what it probably meant. */
export interface UnknownCommand {
  /** The first word, as typed (shortened). */
  word: string;
  /** The command word it most resembles, if any is close. */
  suggestion: string | undefined;
}

export type ParseResult = { command: Command } | { misuse: CommandMisuse } | { unknown: UnknownCommand } | { notACommand: true };

export interface CommandSpec {
  name: CommandName;
  words: readonly string[];
  usage: string;
  summary: string;
}

/** Every command the coordinator understands, in the order `help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  { name: "start", words: ["mfr-start", "start"], usage: "mfr-start <problem>", summary: "start a session now, all agents invited" },
  { name: "debate", words: ["debate", "q:"], usage: "debate <problem>  (or  Q: <problem>)", summary: "choose the agents first, then start" },
  { name: "status", words: ["mfr-status"], usage: "mfr-status [sessionId]", summary: "phase, contributors, validation state, time left" },
  { name: "list", words: ["mfr-list"], usage: "mfr-list", summary: "sessions, newest first" },
  { name: "cancel", words: ["mfr-cancel"], usage: "mfr-cancel <sessionId>", summary: "stop a session" },
  { name: "agents", words: ["agents"], usage: "agents", summary: "known agents, what each can do, who is here" },
  { name: "approve", words: ["approve"], usage: "approve <sessionId>", summary: "let agents that act in the world take part" },
  { name: "reject", words: ["reject"], usage: "reject <sessionId>", summary: "leave agents that act in the world out" },
  { name: "use", words: ["use"], usage: "use 1,3  (or  use all)", summary: "answer a clarification with the agents to use" },
  { name: "help", words: ["help", "mfr-help"], usage: "help", summary: "this list" },
];

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}$/;

export interface ParseOptions {
  /** The coordinator's nick in the room; `<nick>: …` or `<nick>, …` addresses it. */
  nick: string;
  /** In a room only addressed or command-word messages count; in 1:1 chat every message is for us. */
  direct: boolean;
}

export function parseCommand(body: string, options: ParseOptions): ParseResult {
  let text = body.trim();
  const addressed = stripAddress(text, options.nick);
  if (addressed !== undefined) text = addressed;
  const strict = !options.direct && addressed === undefined;

  const lower = text.toLowerCase();
  for (const spec of COMMANDS) {
    for (const word of spec.words) {
      if (!lower.startsWith(word)) continue;
      const rest = text.slice(word.length);
      // `q:` carries its own delimiter; other words must end at a space or the end.
      if (!word.endsWith(":") && rest !== "" && !/^\s/.test(rest)) continue;
      return parseArguments(spec, word, rest.trim(), strict);
    }
  }
  // Room chatter is not for us; but a line addressed to us, or a 1:1 message, was.
  return strict ? { notACommand: true } : unknownCommand(text);
}

const ALL_WORDS = COMMANDS.flatMap((c) => c.words).filter((w) => !w.endsWith(":"));

function unknownCommand(text: string): ParseResult {
  const word = (text.split(/\s+/)[0] ?? "").slice(0, 30);
  if (word === "") return { notACommand: true };
  // "status" means "mfr-status"; otherwise the nearest word within two typos.
  const prefixed = ALL_WORDS.find((w) => w === `mfr-${word.toLowerCase()}`);
  return { unknown: { word, suggestion: prefixed ?? nearestWord(word, ALL_WORDS) } };
}

function stripAddress(text: string, nick: string): string | undefined {
  if (text.length <= nick.length || text.slice(0, nick.length).toLowerCase() !== nick.toLowerCase()) return undefined;
  const next = text[nick.length];
  return next === ":" || next === "," ? text.slice(nick.length + 1).trim() : undefined;
}

function parseArguments(spec: CommandSpec, word: string, args: string, strict: boolean): ParseResult {
  const misuse: ParseResult = { misuse: { name: spec.name, usage: spec.usage } };
  // Loose words ("start", "use") only count in room chatter when their arguments fit.
  const loose = strict && (word === "start" || word === "use" || word === "agents" || word === "help" || word === "approve" || word === "reject");
  const bad: ParseResult = loose ? { notACommand: true } : misuse;
  switch (spec.name) {
    case "start":
    case "debate":
      return args ? { command: { name: spec.name, problem: args } } : bad;
    case "status":
      if (!args) return { command: { name: "status", sessionId: undefined } };
      return SESSION_ID.test(args) ? { command: { name: "status", sessionId: args } } : misuse;
    case "cancel":
    case "approve":
    case "reject":
      return SESSION_ID.test(args) ? { command: { name: spec.name, sessionId: args } } : bad;
    case "list":
    case "agents":
    case "help":
      return args && loose ? { notACommand: true } : { command: { name: spec.name } };
    case "use":
      return parseUse(args) ?? bad;
  }
}

function parseUse(args: string): ParseResult | undefined {
  if (/^all$/i.test(args)) return { command: { name: "use", choice: "all" } };
  if (!/^\d{1,3}(\s*[,\s]\s*\d{1,3})*$/.test(args)) return undefined;
  const numbers = [...new Set(args.split(/[\s,]+/).map(Number))].filter((n) => n > 0);
  return numbers.length > 0 ? { command: { name: "use", choice: numbers } } : undefined;
}
