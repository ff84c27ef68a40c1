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
  stanza: Element;
}

export type InboundMessage = RoomMessage | DirectMessage;

/** Why a message stanza is not input; logged at debug. */
export type Ignored = { ignored: "no-sender" | "error" | "delayed" | "self-echo" | "room-notice" | "unknown-room" | "headline" };

/**
 * Classifies a message stanza. Our own echoes, errors and room notices are not input, nor is
 * a delayed message (XEP-0203) unless it is one the room gave back as its history at our
 * join (`fromHistory`: shell/catch-up.ts takes those in, counted at the room's stamp).
 */
export function classifyMessage(stanza: Element, rooms: Rooms, ownBareJid: string | undefined, fromHistory = false): InboundMessage | Ignored {
  const from = stanza.attrs.from ? String(stanza.attrs.from) : "";
  if (!from) return { ignored: "no-sender" };
  const type = String(stanza.attrs.type ?? "normal");
  if (type === "error") return { ignored: "error" };
  if (type === "headline") return { ignored: "headline" };
  if (!fromHistory && stanza.getChild("delay", NS_DELAY)) return { ignored: "delayed" };

  const { bare, resource } = splitJid(from);
  const fromRoom = rooms.isRoom(bare);

  if (type === "groupchat") {
    if (!fromRoom) return { ignored: "unknown-room" };
    if (resource === undefined || resource === "") return { ignored: "room-notice" };
    const room = bare.toLowerCase();
    // The connection drops these before parsing (Rooms registers the same rule); one parsed all the same is still no input.
    if (rooms.isOwnEcho(type, from)) return { ignored: "self-echo" };
    return { kind: "room", room, nick: resource, realJid: rooms.occupant(room, resource)?.realJid, stanza };
  }

  if (fromRoom) {
    if (resource === undefined || resource === "") return { ignored: "room-notice" };
    return { kind: "direct", from, bareFrom: bare.toLowerCase(), viaRoom: { room: bare.toLowerCase(), nick: resource }, stanza };
  }
  if (ownBareJid && bareJid(from) === ownBareJid) return { ignored: "self-echo" };
  return { kind: "direct", from, bareFrom: bareJid(from), viaRoom: undefined, stanza };
}
