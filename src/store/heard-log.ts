/**
 * What the coordinator has taken in from each room, so that what a room gives back after an
 * absence (its history) is taken in once: one row per key of each message (host/heard.ts
 * makes the keys: the room's stanza-id, and the sender's id with a digest of the text), with
 * the instant it counted at. A message that became an input is recorded in the same
 * transaction as that input (see SessionStore.append), so a crash cannot keep the one
 * without the other. Also when the coordinator was last known to hear each room, for rooms
 * it heard nothing from yet. Bounded: rows older than HEARD_KEPT_MS go with the hourly prune.
 */
import type BetterSqlite3 from "better-sqlite3";
import { STANZA_ID_KEY, stanzaIdIn, type HeardRecord } from "../host/heard.js";

/** The keys that are a room's archive ids: from the prefix up to the next prefix of its length (an index range, not a scan). */
const SID_KEYS_FROM = STANZA_ID_KEY;
const SID_KEYS_BEFORE = STANZA_ID_KEY.slice(0, -1) + String.fromCharCode(STANZA_ID_KEY.charCodeAt(STANZA_ID_KEY.length - 1) + 1);

/** How long keys are kept: far longer than any history a room gives back after a restart. */
export const HEARD_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The heard-log statements on one open database, for SessionStore only: record keys (a key
 * already held keeps its first instant), ask by any key, the newest instant per room,
 * presence that never moves back, and the prune. Writes are the caller's to guard.
 */
export function prepareHeard(db: BetterSqlite3.Database) {
  const insert = db.prepare("INSERT OR IGNORE INTO heard (room, key, at) VALUES (?, ?, ?)");
  const has = db.prepare("SELECT 1 FROM heard WHERE room = ? AND key = ?");
  const newest = db.prepare("SELECT max(at) AS at FROM heard WHERE room = ?");
  // The room's archive ids are the keys with the stanza-id prefix (host/heard.ts); the newest by its instant.
  const newestSid = db.prepare("SELECT key FROM heard WHERE room = ? AND key >= ? AND key < ? ORDER BY at DESC LIMIT 1");
  const markPresent = db.prepare("INSERT INTO room_presence (room, until) VALUES (?, ?) ON CONFLICT (room) DO UPDATE SET until = max(until, excluded.until)");
  const presentUntil = db.prepare("SELECT until FROM room_presence WHERE room = ?");
  const olderThan = db.prepare("DELETE FROM heard WHERE at < ?");
  const forgetPresence = db.prepare("DELETE FROM room_presence WHERE until < ?");
  const record = (heard: HeardRecord): void => {
    for (const key of heard.keys) insert.run(heard.room, key, heard.at);
  };
  return {
    record,
    has(room: string, keys: readonly string[]): boolean {
      return keys.some((key) => has.get(room, key) !== undefined);
    },
    /** The instant of the newest message taken in from the room. */
    newest(room: string): number | undefined {
      return (newest.get(room) as { at: number | null }).at ?? undefined;
    },
    /** The archive id of the newest message taken in from the room that had one. */
    newestStanzaId(room: string): string | undefined {
      const row = newestSid.get(room, SID_KEYS_FROM, SID_KEYS_BEFORE) as { key: string } | undefined;
      return row ? stanzaIdIn([row.key]) : undefined;
    },
    markPresent(room: string, at: number): void {
      markPresent.run(room, at);
    },
    presentUntil(room: string): number | undefined {
      return (presentUntil.get(room) as { until: number } | undefined)?.until;
    },
    prune(before: number): number {
      forgetPresence.run(before);
      return olderThan.run(before).changes;
    },
  };
}
