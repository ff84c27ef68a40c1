/**
 * The reads of one room unit's session journal on PostgreSQL (tables: migrations.ts), for
 * whoever reads it: the instance that owns the room (PgJournal, pg-journal.ts, adds the
 * fenced writes) and the commands that read a whole database beside running instances
 * (export, verify: pg-store-reader.ts). Reads are never fenced and need no lease: they see
 * what was committed, whoever owns the room now.
 */
import type pg from "pg";
import type { Session, SessionId } from "../../session/types.js";
import type { Input } from "../../session/step-io.js";
import { fromArchivedForm, isCompletionStatus } from "../../host/journal-records.js";
import type { ArchivedSummary, Artefact, ArtefactKind, BuildCount, ListArchivedOptions, SentRecord, StoredEvent } from "../../host/journal-records.js";

/** A row of journal_events, its bigint columns read as text (numberOf). */
interface EventRow {
  seq: string;
  session_id: string;
  at: string;
  input: Input;
}

interface SummaryRow {
  id: string;
  problem: string;
  status: string;
  started_at: string;
  completed_at: string;
}

/** A bigint column read as text, as a number: refused when beyond the safe integers. */
export function numberOf(text: string, what: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} ${text} is not a safe integer`);
  return value;
}

/**
 * One room unit's journal as read back: its events, sent records, archive and artefacts,
 * with the meaning the SQLite store's reads have.
 */
export class PgRoomReader {
  constructor(
    protected readonly pool: pg.Pool,
    /** The room unit: the tag on every row read. */
    readonly room: string,
    /**
     * The database has the build and decisive-digest columns (migration 5): false for an older
     * schema read as it is (verify beside instances not yet upgraded), whose rows have neither.
     */
    private readonly hasBuilds = true,
  ) {}

  /** The session's sent records in this room, in the order they were recorded; `decisive` and `build` only where the row has them. */
  async sentOf(sessionId: SessionId): Promise<SentRecord[]> {
    const result = await this.pool.query<{
      session_id: string;
      event_seq: string;
      position: number;
      at: string;
      digest: string;
      what: string;
      decisive: string | null;
      build: string | null;
    }>(
      `SELECT session_id, event_seq::text AS event_seq, position, at::text AS at, digest, what,
         ${this.hasBuilds ? "decisive, build" : "NULL::text AS decisive, NULL::text AS build"}
       FROM journal_sent WHERE room = $1 AND session_id = $2 ORDER BY seq`,
      [this.room, sessionId],
    );
    return result.rows.map((r) => ({
      sessionId: r.session_id,
      eventSeq: numberOf(r.event_seq, "event sequence number"),
      position: r.position,
      at: numberOf(r.at, "instant"),
      digest: r.digest,
      what: r.what,
      ...(r.decisive !== null ? { decisive: r.decisive } : {}),
      ...(r.build !== null ? { build: r.build } : {}),
    }));
  }

  /** The builds that logged the session's inputs in this room, in the order each first did, with how many each logged. */
  async inputBuildsOf(sessionId: SessionId): Promise<BuildCount[]> {
    const result = await this.pool.query<{ build: string | null; inputs: string }>(
      `SELECT ${this.hasBuilds ? "build" : "NULL::text AS build"}, count(*)::text AS inputs FROM journal_events
       WHERE room = $1 AND session_id = $2 GROUP BY 1 ORDER BY min(seq)`,
      [this.room, sessionId],
    );
    return result.rows.map((r) => ({ build: r.build ?? undefined, inputs: numberOf(r.inputs, "count") }));
  }

  /** 0: this journal recorded sends from its first event (there is no older history to spare). */
  sentTrackedAfter(): Promise<number> {
    return Promise.resolve(0);
  }

  /** The final state of a session archived in this room, or undefined. */
  async archivedSession(id: SessionId): Promise<Session | undefined> {
    const result = await this.pool.query<{ session: Session }>("SELECT session FROM journal_archived WHERE room = $1 AND id = $2", [this.room, id]);
    const row = result.rows[0];
    return row ? fromArchivedForm(row.session) : undefined;
  }

  /**
   * This room's archived sessions, newest start first (ties by id, descending), at most
   * `limit` (a whole number ≥ 0, else RangeError); with `before`, only those started strictly
   * before it, as the SQLite store pages. A bare number is the limit. As in the SQLite
   * store, `before` is an instant, not a position: sessions that share the start instant of
   * a page's last one and fall beyond that page are not on the next page either.
   */
  async listArchived(options: ListArchivedOptions | number): Promise<ArchivedSummary[]> {
    const { limit, before } = typeof options === "number" ? { limit: options, before: undefined } : options;
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`listArchived: limit must be a whole number ≥ 0, got ${limit}`);
    if (before !== undefined && !Number.isFinite(before)) throw new RangeError(`listArchived: before must be a finite instant, got ${before}`);
    // Ids compare by code point (COLLATE "C"), as SQLite compares text.
    const result = await this.pool.query<SummaryRow>(
      `SELECT id, problem, status, started_at::text AS started_at, completed_at::text AS completed_at
       FROM journal_archived AS a WHERE room = $1 AND ($3::double precision IS NULL OR a.started_at < $3::double precision)
       ORDER BY a.started_at DESC, a.id COLLATE "C" DESC LIMIT $2`,
      [this.room, limit, before ?? null],
    );
    return result.rows.map((row) => {
      if (!isCompletionStatus(row.status)) throw new Error(`archived session ${row.id} of room ${this.room} has unknown status ${row.status}`);
      return {
        id: row.id,
        problem: row.problem,
        status: row.status,
        startedAt: numberOf(row.started_at, "instant"),
        completedAt: numberOf(row.completed_at, "instant"),
      };
    });
  }

  /**
   * Whether the id was ever used, in ANY room of the database (logged or archived): ids are
   * chosen by several instances, so a new one must avoid every room's.
   */
  async knows(id: SessionId): Promise<boolean> {
    const result = await this.pool.query(
      "SELECT 1 FROM journal_events WHERE session_id = $1 UNION ALL SELECT 1 FROM journal_archived WHERE id = $1 LIMIT 1",
      [id],
    );
    return result.rows.length > 0;
  }

  /** This room's events of sessions not archived, in sequence (append) order, each with its `at`. */
  async liveEvents(): Promise<StoredEvent[]> {
    // Ordered by the bigint column, not by the text it is read as ("10" sorts before "9").
    const result = await this.pool.query<EventRow>(
      `SELECT seq::text AS seq, session_id, at::text AS at, input
       FROM journal_events AS e WHERE room = $1 AND live ORDER BY e.seq`,
      [this.room],
    );
    return result.rows.map((row) => this.eventOf(row));
  }

  /** Whether a message with any of these keys was taken in from `room` before. */
  async heardBefore(room: string, keys: readonly string[]): Promise<boolean> {
    if (keys.length === 0) return false;
    const result = await this.pool.query("SELECT 1 FROM journal_heard WHERE room = $1 AND key = ANY($2::text[]) LIMIT 1", [room, [...keys]]);
    return result.rows.length > 0;
  }

  /** One session's events in this room, archived or not, in sequence order. */
  async eventsOf(sessionId: SessionId): Promise<StoredEvent[]> {
    const result = await this.pool.query<EventRow>(
      `SELECT seq::text AS seq, session_id, at::text AS at, input
       FROM journal_events AS e WHERE room = $1 AND session_id = $2 ORDER BY e.seq`,
      [this.room, sessionId],
    );
    return result.rows.map((row) => this.eventOf(row));
  }

  /** Every session id with events in this room, archived or live, in code-point order (as SQLite sorts text). */
  async sessionIds(): Promise<SessionId[]> {
    const result = await this.pool.query<{ session_id: string }>(
      `SELECT DISTINCT session_id COLLATE "C" AS session_id FROM journal_events WHERE room = $1 ORDER BY 1`,
      [this.room],
    );
    return result.rows.map((row) => row.session_id);
  }

  /** The session's artefacts in this room, oldest (first saved) first; only those of `kind` if given. */
  async artefacts(sessionId: SessionId, kind?: ArtefactKind): Promise<Artefact[]> {
    const result = await this.pool.query<{ id: string; session_id: string; kind: string; at: string; content: string }>(
      `SELECT id::text AS id, session_id, kind, at::text AS at, content FROM journal_artefacts AS a
       WHERE room = $1 AND session_id = $2 AND ($3::text IS NULL OR kind = $3) ORDER BY a.id`,
      [this.room, sessionId, kind ?? null],
    );
    return result.rows.map((row) => ({
      id: numberOf(row.id, "artefact id"),
      sessionId: row.session_id,
      kind: row.kind,
      at: numberOf(row.at, "instant"),
      content: row.content,
    }));
  }

  /** An event row as a StoredEvent; a row that is not an input of its session is reported, never replayed. */
  private eventOf(row: EventRow): StoredEvent {
    const input = row.input;
    if (typeof input !== "object" || input === null || typeof input.kind !== "string" || input.sessionId !== row.session_id) {
      throw new Error(`event ${row.seq} of room ${this.room} is not an input of session ${row.session_id}`);
    }
    return { seq: numberOf(row.seq, "sequence number"), sessionId: row.session_id, at: numberOf(row.at, "instant"), input };
  }
}
