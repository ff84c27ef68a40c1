/**
 * The human commands of the protocol ("Human commands" in docs/protocol.md), parsed from a
 * message body into a typed Command. Parsing only: what a command does lives elsewhere.
 */
import { COMMANDS, type CommandName, type CommandSpec } from "./command-words.js";
import { misspeltCommand, suggestCommand, type UnknownCommand } from "./misspelt-command.js";

export { COMMANDS, type CommandName, type CommandSpec, type UnknownCommand };

/** A human command, parsed, with its arguments. */
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

/** What a message body is: a command, a command word misused, an unknown command, or no command at all. */
export type ParseResult = { command: Command } | { misuse: CommandMisuse } | { unknown: UnknownCommand } | { notACommand: true };

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}$/;

/** How a body is read: whom it may address, and whether it came in 1:1 chat. */
export interface ParseOptions {
  /** The coordinator's nick in the room; `<nick>: …` or `<nick>, …` addresses it. */
  nick: string;
  /** In a room only addressed or command-word messages count; in 1:1 chat every message is for us. */
  direct: boolean;
}

/** Reads a message body as a human command (docs/protocol.md, "Human commands"). */
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
  // A line addressed to us, or a 1:1 message, was for us.
  if (!strict) return unknownCommand(text);
  // Room chatter is not for us, unless it starts with what can only be a misspelt command.
  const misspelt = misspeltCommand(text);
  return misspelt ? { unknown: misspelt } : { notACommand: true };
}

/** A 1:1 message, or a line addressed to us, that is no command: its first word and the nearest command word. */
function unknownCommand(text: string): ParseResult {
  // By code point, so that shortening never leaves half of a surrogate pair; the punctuation
  // that follows a word in a sentence ("hello, what can you do?") is not part of it.
  const word = Array.from((text.split(/\s+/)[0] ?? "").replace(/[,.;:!?]+$/u, "")).slice(0, 30).join("");
  if (word === "") return { notACommand: true };
  return { unknown: { word, suggestion: suggestCommand(word) } };
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
