/**
 * Sentences people read in the room or in 1:1 chat that are not part of a session
 * report. Kept together so the coordinator speaks with one voice.
 */
import type { CommandMisuse } from "../commands/parse.js";
import { NBSP } from "../base/text.js";
import { replaceXmlForbiddenChars } from "../base/xml-chars.js";

export const wording = {
  usage: (m: CommandMisuse) => `Usage: ${m.usage}`,
  /** One line, whatever was typed: the word is quoted back with its line breaks and the characters XML forbids replaced. */
  unknownCommand: (word: string, suggestion: string | undefined) =>
    `Unknown command "${replaceXmlForbiddenChars(word).replace(/[\r\n\t]/g, " ")}"${suggestion ? `; did you mean ${suggestion}?` : "."} Say "help" for the commands I know.`,
  notYetAvailable: (usage: string) => `"${usage.split(" ")[0]}" is not available in this version yet. Say "help" for what works now.`,
  agentCommandRefused: () =>
    `I take commands from people, not from agents (to avoid bot loops). An operator can allow-list an agent with mfr:allowCommandsFrom.`,
  /** The subject of a room the coordinator created (xmpp/room-creation.ts): one line, what it is and the one command to remember. */
  roomSubject: (nick: string) => `Model-First Reasoning sessions with ${nick}. Say "help" for the commands.`,
  occupantsOnly: () => `Only occupants of the room can do that. Join the room first.`,
  notInRoom: () => `I am not in the room right now (reconnecting to it), so I cannot tell who is there or start anything. Try again in a moment.`,
  throttled: () => `You are sending too fast; I will ignore your messages for a little while.`,
  tooLarge: (bytes: number, limit: number) => `Your message of ${formatBytes(bytes)} is over my limit of ${formatBytes(limit)} and was not read.`,
  badModelPart: (sessionId: string, modelPart: string, error: string) =>
    `Your contribution to ${sessionId.slice(0, 40)} has modelPart "${modelPart.slice(0, 20)}", which I cannot read (${error}); it was not used.`,
  noSuchSession: (id: string) => `There is no session "${id}". Say "mfr-list" for the sessions.`,
  problemTooLarge: (bytes: number, max: number) =>
    `That problem is ${formatBytes(bytes)} as I would send it; a problem may take at most ${formatBytes(max)}, so that every request quoting it fits in one message. No session was started: shorten the problem and put the detail in a model contribution.`,
  proposalTooLarge: (bytes: number, max: number) =>
    `your proposal is ${formatBytes(bytes)} as I would pass it on in the SessionComplete; the most I can show is ${formatBytes(max)}. It was not accepted; an earlier proposal of yours stands. Send a shorter one (a plan and a short message).`,
  noClarification: () => `No session is waiting for you to choose agents.`,
  /** Heads the answer to a 1:1 command our server kept for us while we were away (inbound/context.ts). */
  sentWhileAway: (at: number) => `(You sent this at ${clock(Math.min(at, Date.now()))} UTC, while I was away; answering now.)`,
  /** Said once per live session when the room's history cannot reach back to what was last heard (catch-up/catch-up.ts). */
  mayHaveMissed: (sessionId: string, from: number, to: number) =>
    `${sessionId}: I may have missed messages in this room between ${clock(from)} and ${clock(to)} (UTC); agents that answered then, please send again.`,
  identityBasis: (r: { occupantIds: boolean; realJids: boolean }) =>
    // The same precedence as the identities themselves (xmpp/occupant-identity.ts): real JIDs first.
    r.realJids
      ? "Who is who: I see real JIDs in this room, so taking over a nick takes over nobody's contributions."
      : r.occupantIds
        ? "Who is who: this room gives occupant ids (XEP-0421), so taking over a nick takes over nobody's contributions."
        : "Who is who: this room shows me neither occupant ids nor real JIDs, so I go by nicks: a nick that leaves and comes back counts as someone new and cannot replace what it sent before. Occupant ids (XEP-0421) on the server, or making me a moderator, makes this stronger.",
};

/** "512 B", "1.5 KiB", "2.0 MiB", a no-break space between number and unit (base/text.ts NBSP). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes}${NBSP}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}${NBSP}KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)}${NBSP}MiB`;
}

/** An instant as the room reads it: `10:02:03`, UTC (the date too when it is not today's). */
function clock(at: number): string {
  const iso = new Date(at).toISOString();
  const sameDay = iso.slice(0, 10) === new Date().toISOString().slice(0, 10);
  return sameDay ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}
