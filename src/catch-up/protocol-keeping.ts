/**
 * Whether a room keeps what agents say without a body. Agents send their protocol messages
 * as a Lingue payload, most of them with no body, and a stock Prosody or ejabberd keeps a
 * room message as history or archive only when it has one: then nothing an agent said while
 * the coordinator was away comes back at the catch-up. The project's server module keeps them
 * and says so in disco#info (KEEPS_PROTOCOL_FEATURE). Where it does not, an absence that
 * overlapped an open window has the window asked again (session/absence.ts); this module says
 * which case a room is in, for the catch-up, the log, /readyz and the web view.
 */
import { KEEPS_PROTOCOL_FEATURE } from "../base/vocab.js";
import type { RoomFacts } from "../xmpp/room-facts.js";

/** The server modules that keep agents' protocol messages, as an operator would load them. */
export const KEEP_PROTOCOL_MODULES = "muc_keep_protocol on Prosody's MUC component, or mod_muc_keep_protocol on ejabberd";

/** What is known of a room's keeping: yes, no, or not yet (not joined). */
export type ProtocolKeeping = "kept" | "not kept" | "unknown";

/** Kept when the room or its service advertises the project's module; unknown before the first join. */
export function protocolKeepingOf(facts: RoomFacts | undefined): ProtocolKeeping {
  if (!facts) return "unknown";
  return facts.features.has(KEEPS_PROTOCOL_FEATURE) ? "kept" : "not kept";
}

/** One room's keeping in a line for /readyz and the web view: what it means for an absence. */
export function protocolKeepingNote(room: string, keeping: ProtocolKeeping): string {
  switch (keeping) {
    case "kept":
      return `${room} keeps agents' protocol messages: what they say while the coordinator is away is caught up on`;
    case "not kept":
      return `${room} does not keep agents' protocol messages without a body (no ${KEEP_PROTOCOL_MODULES}): after an absence, an open request is asked again`;
    case "unknown":
      return `${room}: not joined yet, so whether it keeps agents' protocol messages is not known`;
  }
}
