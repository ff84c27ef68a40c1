/**
 * Who sent an inbound message, read once at the edge: the occupant behind it, the identity
 * rate limits and the session rules go by, how logs and replies name the sender, and the
 * standing that lets someone steer sessions other than their own.
 */
import type { Participant, Requester } from "../session/types.js";
import type { InboundMessage } from "../xmpp/inbound.js";
import { directIdentity, rateLimitKey } from "../xmpp/occupant-identity.js";
import type { Occupant, Rooms } from "../xmpp/rooms.js";

/** Who sent something: a room nick, the real JID when known, and the identity key (see xmpp/occupant-identity.ts). */
export interface SenderIdentity {
  nick: string | undefined;
  realJid: string | undefined;
  identity?: string | undefined;
}

/** Who sent a message: their identity as the session core knows it, the label logs and answers use, and where they are. */
export interface Sender {
  identity: SenderIdentity;
  /** The room occupant behind it (also for a private message through the room), when there is one. */
  occupant: Occupant | undefined;
  /** The room the occupant is in, when there is one. */
  room: string | undefined;
  /** What rate limits count against: the identity, not the nick (see xmpp/occupant-identity.ts). */
  rateKey: string;
  /** How logs name the sender: the nick, with the real JID or identity behind it. */
  label: string;
  /** How replies and session texts name the sender: the room nick, else a 1:1 sender's bare JID (never an identity key). */
  name: string;
}

/** The sender of an inbound message, read from the rooms as they are now (occupant id, real JID or nick). */
export function senderOf(message: InboundMessage, rooms: Rooms): Sender {
  const inRoom = message.kind === "room" ? { room: message.room, nick: message.nick } : message.viaRoom;
  const occupant = inRoom ? rooms.senderOf(inRoom.room, inRoom.nick, message.stanza) : undefined;
  // Through a room: the occupant's identity; 1:1 from outside: the JID the server vouches for.
  const direct = message.kind === "direct" && !inRoom ? message.bareFrom : undefined;
  const identity = occupant?.identity ?? (direct ? directIdentity(direct) : `nick:${(inRoom?.nick ?? "").toLowerCase()}`);
  const name = inRoom?.nick ?? direct ?? identity;
  return {
    identity: { nick: inRoom?.nick, realJid: occupant ? occupant.realJid : direct, identity },
    occupant,
    room: inRoom?.room,
    rateKey: rateLimitKey(identity),
    label: inRoom ? `${inRoom.nick} (${occupant?.realJid ?? identity})` : name,
    name,
  };
}

/** The sender as the session core knows participants. */
export function participantOf(sender: Sender, primaryRoom?: string): Participant {
  const elsewhere = sender.room !== undefined && primaryRoom !== undefined && sender.room !== primaryRoom;
  return { nick: sender.name, jid: sender.identity.realJid, identity: sender.identity.identity, ...(elsewhere ? { room: sender.room } : {}) };
}

/**
 * The sender with the standing the room gives them now: moderators, owners and admins of
 * the primary room, and real JIDs on mfr:allowCommandsFrom, may steer anyone's session.
 * Logged with the input, so a replay decides as live did.
 */
export function requesterOf(sender: Sender, primaryRoom: string, allowList: readonly string[]): Requester {
  const o = sender.occupant;
  const moderator = sender.room === primaryRoom && o !== undefined && (o.role === "moderator" || o.affiliation === "owner" || o.affiliation === "admin");
  const standing = moderator ? "moderator" : isListedByJid(sender.identity, allowList) ? "allow-listed" : undefined;
  return { ...participantOf(sender), ...(standing ? { standing } : {}) };
}

/**
 * True when the sender's real JID is on the list; also when its nick is, which is only as
 * strong as the room's hold on nicks (case-insensitive).
 */
export function isListed(sender: SenderIdentity, list: readonly string[]): boolean {
  if (list.length === 0) return false;
  const keys = [sender.nick, sender.realJid].filter((k): k is string => k !== undefined && k !== "").map((k) => k.toLowerCase());
  return list.some((entry) => keys.includes(entry.toLowerCase()));
}

/** True only when the sender's real JID is on the list: what authority over sessions rests on. */
export function isListedByJid(sender: SenderIdentity, list: readonly string[]): boolean {
  const jid = sender.realJid?.toLowerCase();
  return jid !== undefined && list.some((entry) => entry.toLowerCase() === jid);
}
