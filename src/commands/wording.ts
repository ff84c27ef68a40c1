/**
 * The sentences the commands answer with (one voice with inbound/wording.ts, which holds the
 * answers given before a command is reached: usage, refusals, sizes).
 */
import { formatBytes } from "../base/byte-sizes.js";

export const commandWording = {
  notYetAvailable: (usage: string) => `"${usage.split(" ")[0]}" is not available in this version yet. Say "help" for what works now.`,
  noSuchSession: (id: string) => `There is no session "${id}". Say "mfr-list" for the sessions.`,
  problemTooLarge: (bytes: number, max: number) =>
    `That problem is ${formatBytes(bytes)} as I would send it; a problem may take at most ${formatBytes(max)}, so that every request quoting it fits in one message. No session was started: shorten the problem and put the detail in a model contribution.`,
  noClarification: () => `No session is waiting for you to choose agents.`,
  /** The subject of a room the coordinator created (xmpp/room-creation.ts): one line, what it is and the one command to remember. */
  roomSubject: (nick: string) => `Model-First Reasoning sessions with ${nick}. Say "help" for the commands.`,
  /** How the room tells people apart, for `mfr-agents` and the note on joining (catch-up/identity-notes.ts). */
  identityBasis: (r: { occupantIds: boolean; realJids: boolean }) =>
    // The same precedence as the identities themselves (xmpp/occupant-identity.ts): real JIDs first.
    r.realJids
      ? "Who is who: I see real JIDs in this room, so taking over a nick takes over nobody's contributions."
      : r.occupantIds
        ? "Who is who: this room gives occupant ids (XEP-0421), so taking over a nick takes over nobody's contributions."
        : "Who is who: this room shows me neither occupant ids nor real JIDs, so I go by nicks: a nick that leaves and comes back counts as someone new and cannot replace what it sent before. Occupant ids (XEP-0421) on the server, or making me a moderator, makes this stronger.",
};
