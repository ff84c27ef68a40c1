/**
 * A message taken in from a room, as the store remembers it (store/heard-log.ts), so that
 * the same message given back again (the room's history after an absence, history and an
 * archive overlapping, a server that sends it twice) is taken in once.
 *
 * Keys, any of which identifies the message:
 * - the id the room gave it (XEP-0359 stanza-id `by` the room), where the room gives one;
 * - otherwise-stable facts: the sender's nick, the sender's own id (origin-id, else the
 *   stanza's id) and a digest of its text. The room adds a delay, a stanza-id or the
 *   sender's real JID to what it gives back, so only the sender's text counts.
 * Both are kept for every message, so a room that starts giving stanza-ids (an archive
 * switched on) still finds what it gave before.
 */
import { createHash } from "node:crypto";
import { originIdOf, roomStanzaIdOf } from "../xmpp/room-history.js";
import type { Element } from "../xmpp/stanza.js";

/** History older than this is not asked for, nor waited on: what was said a day ago is not taken in as new (catch-up/catch-up.ts, inbound/sent-while-away.ts). */
export const MAX_CATCH_UP_MS = 24 * 60 * 60 * 1000;

/** One message taken in from a room: its keys and the instant it counted at. */
export interface HeardRecord {
  room: string;
  keys: readonly string[];
  at: number;
}

/** One room message on its way in: its keys, and when it counts. */
export interface Heard extends HeardRecord {
  /** For a message caught up from the room's history: when the room stamped it (= `at`). */
  caughtUp: boolean;
  /** Set once the keys are in the store (with the input the message became, or on their own). */
  recorded: boolean;
}

/** What the room adds to a message it gives back; left out of the text digest. */
const ADDED_BY_ROOM = new Set(["delay", "stanza-id", "x", "occupant-id", "addresses"]);

/** The prefix of a message's key that is the room's archive id for it (its stanza-id). */
export const STANZA_ID_KEY = "sid:";

/** The room's archive id among a message's keys, if the room gave it one. */
export function stanzaIdIn(keys: readonly string[]): string | undefined {
  const key = keys.find((k) => k.startsWith(STANZA_ID_KEY));
  return key === undefined ? undefined : key.slice(STANZA_ID_KEY.length);
}

/** Where a room's archive was last heard up to: the archive id of the newest message taken in that had one, and its instant. */
export interface ArchivePosition {
  readonly id: string;
  readonly at: number;
}

/** The position after taking in a message with `keys` at `at`: its archive id when it has one and is not older than `current`. */
export function positionAfter(current: ArchivePosition | undefined, keys: readonly string[], at: number): ArchivePosition | undefined {
  const id = stanzaIdIn(keys);
  return id !== undefined && at >= (current?.at ?? at) ? { id, at } : current;
}

/** The keys a room message is known by: the room's stanza-id, and the sender's id with a digest of the text. */
export function heardKeys(roomJid: string, nick: string, stanza: Element): string[] {
  const keys: string[] = [];
  const stanzaId = roomStanzaIdOf(stanza, roomJid);
  if (stanzaId !== undefined) keys.push(`${STANZA_ID_KEY}${stanzaId}`);
  const senderId = originIdOf(stanza) ?? (stanza.attrs.id ? String(stanza.attrs.id) : "");
  const digest = createHash("sha256");
  digest.update(`${nick}\u0000${senderId}\u0000`);
  for (const child of stanza.getChildElements()) {
    if (ADDED_BY_ROOM.has(child.name)) continue;
    digest.update(`${child.name}\u0000${child.text()}\u0000`);
  }
  keys.push(`msg:${digest.digest("base64url")}`);
  return keys;
}

/** Where what was heard is kept: the store (store/heard-log.ts), or memory without one. */
export interface HeardLog {
  heardBefore(room: string, keys: readonly string[]): boolean;
  recordHeard(heard: HeardRecord): void;
  lastHeardAt(room: string): number | undefined;
  /** The room's archive id (stanza-id) of the newest message taken in from it that had one: where its next catch-up continues. */
  lastStanzaId(room: string): string | undefined;
  markPresent(room: string, at: number): void;
  presentUntil(room: string): number | undefined;
}

/** Most keys kept per room without a store: enough for any history a reconnect gives back. */
const MEMORY_KEYS_PER_ROOM = 10_000;

/** Without a store, what was heard is kept in memory: a reconnect catches up, a restart cannot. */
export class MemoryHeardLog implements HeardLog {
  private readonly rooms = new Map<string, { keys: Set<string>; last: number | undefined; lastSid: ArchivePosition | undefined; presentUntil: number | undefined }>();

  private room(room: string) {
    let r = this.rooms.get(room);
    if (!r) this.rooms.set(room, (r = { keys: new Set(), last: undefined, lastSid: undefined, presentUntil: undefined }));
    return r;
  }

  /** Whether any of the keys was taken in from the room before. */
  heardBefore(room: string, keys: readonly string[]): boolean {
    const r = this.rooms.get(room);
    return r !== undefined && keys.some((k) => r.keys.has(k));
  }

  /** Notes a message as taken in. */
  recordHeard(heard: HeardRecord): void {
    const r = this.room(heard.room);
    for (const key of heard.keys) r.keys.add(key);
    // A Set iterates in insertion order: the oldest keys go first.
    for (const key of r.keys) {
      if (r.keys.size <= MEMORY_KEYS_PER_ROOM) break;
      r.keys.delete(key);
    }
    r.last = Math.max(r.last ?? heard.at, heard.at);
    r.lastSid = positionAfter(r.lastSid, heard.keys, heard.at);
  }

  /** The archive id of the newest message taken in that had one. */
  lastStanzaId(room: string): string | undefined {
    return this.rooms.get(room)?.lastSid?.id;
  }

  /** When the newest message taken in from the room counted. */
  lastHeardAt(room: string): number | undefined {
    return this.rooms.get(room)?.last;
  }

  /** We were in the room, hearing it, until `at` (never moves back). */
  markPresent(room: string, at: number): void {
    const r = this.room(room);
    r.presentUntil = Math.max(r.presentUntil ?? at, at);
  }

  /** Until when we were last known to hear the room. */
  presentUntil(room: string): number | undefined {
    return this.rooms.get(room)?.presentUntil;
  }
}

/** A room message as heard: its keys, the instant it counts at, and whether the catch-up gave it back. */
export function heardOf(room: string, nick: string, stanza: Element, at: number, caughtUp: boolean): Heard {
  return { room, keys: heardKeys(room, nick, stanza), at, caughtUp, recorded: false };
}
