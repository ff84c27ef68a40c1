/**
 * Every session id the shared database holds, as one instance knows it: a new session's id
 * is chosen among the ids not in it, so two sessions of the database never share one (but
 * for two instances choosing at the same moment: docs/operating.md, "Session ids").
 *
 * One set per instance, not per room it owns: the first takeover reads every id once; each
 * later takeover reads only the events written since the last read (by their sequence
 * number), so taking a room over costs what was written meanwhile, not the database's size,
 * and a hundred rooms taken over at once share one read.
 */
import type { Queryable } from "./room-lease.js";

/** See the module comment. */
export class KnownSessionIds {
  private readonly ids = new Set<string>();
  /** The newest event sequence number read, as text (a bigint); undefined before the first read. */
  private readUpTo: string | undefined;
  private reading: Promise<void> | undefined;

  constructor(private readonly db: Queryable) {}

  /** Whether the id is taken: read from the database, or used by this instance since. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** An id this instance has just used. */
  add(id: string): void {
    this.ids.add(id);
  }

  /** How many ids are known (for the tests and the log). */
  get size(): number {
    return this.ids.size;
  }

  /**
   * Reads what other instances have written since the last read (the first time, every id);
   * calls while a read is under way share it. Rejects when the database cannot be read.
   */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<void> {
    if (this.readUpTo === undefined) {
      const newest = await this.db.query<{ seq: string }>("SELECT coalesce(max(seq), 0)::text AS seq FROM journal_events");
      const upTo = newest.rows[0]?.seq ?? "0";
      // Archived ids too: a retention that dropped a session's events keeps its archive row.
      const rows = await this.db.query<{ id: string }>("SELECT session_id AS id FROM journal_events WHERE seq <= $1::bigint UNION SELECT id FROM journal_archived", [upTo]);
      for (const row of rows.rows) this.ids.add(row.id);
      this.readUpTo = upTo;
      return;
    }
    const rows = await this.db.query<{ id: string; seq: string }>(
      "SELECT session_id AS id, max(seq)::text AS seq FROM journal_events WHERE seq > $1::bigint GROUP BY session_id",
      [this.readUpTo],
    );
    let upTo = BigInt(this.readUpTo);
    for (const row of rows.rows) {
      this.ids.add(row.id);
      if (BigInt(row.seq) > upTo) upTo = BigInt(row.seq);
    }
    this.readUpTo = upTo.toString();
  }
}
