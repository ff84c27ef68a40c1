/**
 * `mfr-coordinator verify`: the replay check over a whole store, in words an operator reads.
 * The SQLite store is read as one SentLog; the shared PostgreSQL store room unit by room
 * unit and session by session (a RoomsSentLog, read asynchronously), so a large database is
 * never held in memory at once, each unit replayed with the rooms its coordinator renders
 * for. Both print the same lines for the same sessions.
 */
import type { Config } from "../config/schema.js";
import type { SentRecord, StoredEvent } from "../store/records.js";
import { renderContextOf, type RenderContext } from "./outgoing.js";
import { checkSession, verifyStore, type SentLog, type SentMismatch, type SessionCheck } from "./sent-check.js";

const MISMATCH_WORDS: Record<SentMismatch["kind"], string> = {
  missing: "replay sends it, but it was never recorded as sent",
  different: "sent live with different content than replay produces",
  unexpected: "recorded as sent, but replay does not send it",
  "sent-twice": "recorded as sent twice",
};

/** One room's journal as verify reads it, asynchronously (PgRoomReader is one). */
export interface AsyncSentLog {
  sessionIds(): Promise<string[]>;
  eventsOf(sessionId: string): Promise<StoredEvent[]>;
  sentOf(sessionId: string): Promise<SentRecord[]>;
  sentTrackedAfter(): Promise<number>;
}

/** A store of several room units, each with a journal of its own (PgStoreReader is one). */
export interface RoomsSentLog {
  rooms(): Promise<string[]>;
  room(room: string): AsyncSentLog;
}

/** Prints one line per session with a finding and a closing tally; returns the exit code (0 = all match). */
export function printVerification(log: SentLog, config: Config, print: (line: string) => void): number {
  // The same rooms and limit the running coordinator renders for, so replay builds the same stanzas.
  const tally = new VerificationTally(print);
  for (const check of verifyStore(log, renderContextOf(config))) tally.add(check);
  return tally.close();
}

/**
 * The same report over every room unit of a store of several, one session read at a time;
 * `contextOf` gives the rooms and limit a unit's coordinator renders for (units differ in
 * their rooms), so replay builds the stanzas that unit sent.
 */
export async function printRoomsVerification(log: RoomsSentLog, contextOf: (room: string) => RenderContext, print: (line: string) => void): Promise<number> {
  const tally = new VerificationTally(print);
  for (const room of await log.rooms()) {
    const ctx = contextOf(room);
    const journal = log.room(room);
    const trackedAfter = await journal.sentTrackedAfter();
    for (const sessionId of await journal.sessionIds()) {
      const [events, recorded] = await Promise.all([journal.eventsOf(sessionId), journal.sentOf(sessionId)]);
      tally.add(checkSession(sessionId, events, recorded, trackedAfter, ctx));
    }
  }
  return tally.close();
}

/** Prints each session's findings as it comes, and adds them up for the closing line. */
class VerificationTally {
  private sessions = 0;
  private matched = 0;
  private pending = 0;
  private mismatches = 0;

  constructor(private readonly print: (line: string) => void) {}

  add(check: SessionCheck): void {
    this.sessions += 1;
    this.matched += check.matched;
    this.pending += check.pending;
    this.mismatches += check.mismatches.length;
    for (const m of check.mismatches) this.print(`${check.sessionId}: input ${m.eventSeq}, stanza ${m.position + 1} (${m.what}): ${MISMATCH_WORDS[m.kind]}`);
    if (check.pending > 0) this.print(`${check.sessionId}: ${check.pending} stanza(s) not yet sent; the next start sends them`);
  }

  /** Prints the tally; the exit code (0 = all match). */
  close(): number {
    this.print(`verify: ${this.sessions} sessions, ${this.matched} stanzas match, ${this.pending} pending, ${this.mismatches} mismatches`);
    return this.mismatches === 0 ? 0 : 1;
  }
}
