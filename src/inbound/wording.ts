/**
 * Sentences people read in the room or in 1:1 chat that are not part of a session
 * report. Kept together so the coordinator speaks with one voice.
 */
import type { CommandMisuse } from "../commands/parse.js";
import { formatBytes } from "../base/byte-sizes.js";
import { clockTime } from "../base/clock-time.js";
import { replaceXmlForbiddenChars } from "../base/xml-chars.js";

export const wording = {
  usage: (m: CommandMisuse) => `Usage: ${m.usage}`,
  /** One line, whatever was typed: the word is quoted back with its line breaks and the characters XML forbids replaced. */
  unknownCommand: (word: string, suggestion: string | undefined) =>
    `Unknown command "${replaceXmlForbiddenChars(word).replace(/[\r\n\t]/g, " ")}"${suggestion ? `; did you mean ${suggestion}?` : "."} Say "help" for the commands I know.`,
  agentCommandRefused: () =>
    `I take commands from people, not from agents (to avoid bot loops). An operator can allow-list an agent with mfr:allowCommandsFrom.`,
  occupantsOnly: () => `Only occupants of the room can do that. Join the room first.`,
  notInRoom: () => `I am not in the room right now (reconnecting to it), so I cannot tell who is there or start anything. Try again in a moment.`,
  throttled: () => `You are sending too fast; I will ignore your messages for a little while.`,
  tooLarge: (bytes: number, limit: number) => `Your message of ${formatBytes(bytes)} is over my limit of ${formatBytes(limit)} and was not read.`,
  badModelPart: (sessionId: string, modelPart: string, error: string) =>
    `Your contribution to ${sessionId.slice(0, 40)} has modelPart "${modelPart.slice(0, 20)}", which I cannot read (${error}); it was not used.`,
  proposalTooLarge: (bytes: number, max: number) =>
    `your proposal is ${formatBytes(bytes)} as I would pass it on in the SessionComplete; the most I can show is ${formatBytes(max)}. It was not accepted; an earlier proposal of yours stands. Send a shorter one (a plan and a short message).`,
  /** Heads the answer to a 1:1 command our server kept for us while we were away (inbound/context.ts). */
  sentWhileAway: (at: number) => `(You sent this at ${clockTime(Math.min(at, Date.now()))} UTC, while I was away; answering now.)`,
};

