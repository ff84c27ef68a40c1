import { stampSignedBy } from "./room-history.js";
import type { Rooms } from "./rooms.js";
import { NS_DELAY, bareJid, splitJid, type Element } from "./stanza.js";

/** A message said in one of our rooms by someone other than us. */
export interface RoomMessage {
  kind: "room";
  room: string;
  nick: string;
  /** The sender's real bare JID when the room reveals it. */
  realJid: string | undefined;
  stanza: Element;
}

/** A 1:1 message: from a user's JID, or a private message through a room occupant. */
export interface DirectMessage {
  kind: "direct";
  /** Full JID to reply to. */
  from: string;
  bareFrom: string;
  /** Set when the message came through a room (`room@service/nick`). */
  viaRoom: { room: string; nick: string } | undefined;
  /**
   * When our own server took the message in for us while no resource of ours could have it
   * (offline storage, XEP-0160), by the XEP-0203 stamp it put on it when it gave it to us;
   * undefined for a message that reached us live.
   */
  storedAt: number | undefined;
  stanza: Element;
}

export type InboundMessage = RoomMessage | DirectMessage;

/** Why a message stanza is not input; logged at debug. */
export type Ignored = { ignored: "no-sender" | "error" | "delayed" | "self-echo" | "room-notice" | "unknown-room" | "headline" };

/**
 * Classifies a message stanza. Our own echoes, errors and room notices are not input. A
 * delayed message (XEP-0203) from a room, said there or through it, is not input either,
 * unless it is one the room gave back as its history at our join (`fromHistory`:
 * catch-up/catch-up.ts takes those in, counted at the room's stamp). A 1:1 message from a
 * person's or an agent's JID is input, delayed or not: one our own server stamped (its
 * domain signs the delay) is one it kept for us while we were away, and carries that stamp
 * as `storedAt`; a delay anyone else put on it says nothing about our absence.
 */
export function classifyMessage(stanza: Element, rooms: Rooms, ownBareJid: string | undefined, fromHistory = false): InboundMessage | Ignored {
  const from = stanza.attrs.from ? String(stanza.attrs.from) : "";
  if (!from) return { ignored: "no-sender" };
  const type = String(stanza.attrs.type ?? "normal");
  if (type === "error") return { ignored: "error" };
  if (type === "headline") return { ignored: "headline" };
  const delayed = !fromHistory && stanza.getChild("delay", NS_DELAY) !== undefined;

  const { bare, resource } = splitJid(from);
  const fromRoom = rooms.isRoom(bare);

  if (type === "groupchat") {
    // A room's history outside our join (or a sender's claim of one) is never live input.
    if (delayed) return { ignored: "delayed" };
    if (!fromRoom) return { ignored: "unknown-room" };
    if (resource === undefined || resource === "") return { ignored: "room-notice" };
    const room = bare.toLowerCase();
    // The connection drops these before parsing (Rooms registers the same rule); one parsed all the same is still no input.
    if (rooms.isOwnEcho(type, from)) return { ignored: "self-echo" };
    return { kind: "room", room, nick: resource, realJid: rooms.occupant(room, resource)?.realJid, stanza };
  }

  if (fromRoom) {
    // A room keeps no private messages for us: a delayed one is nothing we missed.
    if (delayed) return { ignored: "delayed" };
    if (resource === undefined || resource === "") return { ignored: "room-notice" };
    return { kind: "direct", from, bareFrom: bare.toLowerCase(), viaRoom: { room: bare.toLowerCase(), nick: resource }, storedAt: undefined, stanza };
  }
  if (ownBareJid && bareJid(from) === ownBareJid) return { ignored: "self-echo" };
  const ownServer = ownBareJid ? ownBareJid.slice(ownBareJid.indexOf("@") + 1) : undefined;
  const storedAt = delayed && ownServer ? stampSignedBy(stanza, ownServer) : undefined;
  return { kind: "direct", from, bareFrom: bareJid(from), viaRoom: undefined, storedAt, stanza };
}
