/**
 * What the fleet's database view (database-view.ts) reads from the shared PostgreSQL
 * database, and how: the statements, the rows they give, and the read-only transaction they
 * run in. The view decides what to do with the rows; this module only reads, and writes
 * nothing.
 *
 * The rules it keeps: every read of a refresh or of one session's page runs in one read-only
 * REPEATABLE READ transaction (one consistent picture: a session archived meanwhile is either
 * live or archived in it, never neither), each statement bounded in time; the archive is
 * read through its per-room index, never scanned whole.
 */
import type pg from "pg";
import type { Session, SessionId } from "../session/types.js";
import type { Input } from "../session/step-io.js";
import { withConnection } from "../store/pg/pool.js";
import type { StoredEvent } from "../host/journal-records.js";

/** A journal_events row as read (bigints as text). */
export interface EventRow {
  seq: string;
  room: string;
  session_id: string;
  at: string;
  input: unknown;
}

/** A journal_archived row as listed (bigints as text). */
export interface SummaryRow {
  room: string;
  id: string;
  problem: string;
  status: string;
  started_at: string;
  completed_at: string;
}

/** What one refresh read, applied at once when it is in. */
export interface Loaded {
  live: { room: string; session_id: string }[];
  events: EventRow[];
  archived: SummaryRow[];
  whole: { id: string; session: Session }[];
}


// Which sessions are live, where, and the newest event of each: the partial index on live rows.
const LIVE_SET_SQL = `
  SELECT room, session_id, max(seq)::text AS last
  FROM journal_events WHERE live
  GROUP BY room, session_id
  ORDER BY min(seq) DESC
  LIMIT $1`;

// The events of the given sessions of the given rooms after the given sequence numbers,
// oldest first: each session's are a run right after its threshold (one writer per room,
// appends in order).
const NEW_EVENTS_SQL = `
  SELECT e.seq::text AS seq, e.room, e.session_id, e.at::text AS at, e.input
  FROM journal_events AS e
  JOIN unnest($1::text[], $2::text[], $3::bigint[]) AS w(room, session_id, after)
    ON e.session_id = w.session_id AND e.room = w.room AND e.seq > w.after
  WHERE e.live
  ORDER BY e.seq
  LIMIT $4`;

// The newest archived sessions of every room. Every room with rows has a lease row (each
// write is fenced by it, and lease rows are never deleted), so the archive is read room by
// room through its (room, started_at, id) index instead of being scanned whole.
const ARCHIVED_SQL = `
  SELECT a.room, a.id, a.problem, a.status, a.started_at::text AS started_at, a.completed_at::text AS completed_at
  FROM room_leases AS r
  CROSS JOIN LATERAL (
    SELECT x.room, x.id, x.problem, x.status, x.started_at, x.completed_at
    FROM journal_archived AS x WHERE x.room = r.room
    ORDER BY x.started_at DESC, x.id DESC
    LIMIT $1
  ) AS a
  ORDER BY a.started_at DESC, a.id DESC
  LIMIT $1`;

const WHOLE_SQL = `
  SELECT a.id, a.session FROM journal_archived AS a
  JOIN unnest($1::text[], $2::text[]) AS w(room, id) ON a.room = w.room AND a.id = w.id`;

const SESSION_EVENTS_SQL = `
  SELECT e.seq::text AS seq, e.room, e.session_id, e.at::text AS at, e.input
  FROM journal_events AS e WHERE e.session_id = $1 AND e.seq > $2 AND ($4::text IS NULL OR e.room = $4)
  ORDER BY e.seq
  LIMIT $3`;

const ONE_ARCHIVED_SQL = "SELECT session FROM journal_archived WHERE room = $1 AND id = $2";

/** The bounds a refresh reads within (the view's DatabaseViewLimits has them). */
export interface SnapshotLimits {
  readonly liveSessions: number;
  readonly eventsPerLoad: number;
  readonly archivedListed: number;
  readonly agentsPerRefresh: number;
}

/** What a refresh needs to know of the view's current snapshot. */
export interface SnapshotBasis {
  /** The newest sequence number the view has stepped for a live session (0: none). */
  lastSeqOf(id: SessionId): number;
  /** Whether the view already has an archived session's agents. */
  hasAgents(id: SessionId): boolean;
}

/**
 * One refresh's reads: the live set, the events of the live sessions newer than what the view
 * has, the newest archived sessions, and the whole archived form of those whose agents the
 * view does not have yet (a bounded number a refresh).
 */
export async function readSnapshot(db: pg.ClientBase, limits: SnapshotLimits, basis: SnapshotBasis): Promise<Loaded> {
  const live = (await db.query<{ room: string; session_id: string; last: string }>(LIVE_SET_SQL, [limits.liveSessions])).rows;
  const behind = live.filter((row) => Number(row.last) > basis.lastSeqOf(row.session_id));
  const events =
    behind.length === 0
      ? []
      : (
          await db.query<EventRow>(NEW_EVENTS_SQL, [
            behind.map((row) => row.room),
            behind.map((row) => row.session_id),
            behind.map((row) => String(basis.lastSeqOf(row.session_id))),
            limits.eventsPerLoad,
          ])
        ).rows;
  const archived = (await db.query<SummaryRow>(ARCHIVED_SQL, [limits.archivedListed])).rows;
  const unnamed = archived.filter((row) => !basis.hasAgents(row.id)).slice(0, limits.agentsPerRefresh);
  const whole =
    unnamed.length === 0
      ? []
      : (await db.query<{ id: string; session: Session }>(WHOLE_SQL, [unnamed.map((row) => row.room), unnamed.map((row) => row.id)])).rows;
  return { live, events, archived, whole };
}

/** Where one session's page reads from: after which event, how many, in which room (unknown: the room of its first event), and whether its archived form too. */
export interface SessionRead {
  after: number;
  limit: number;
  room: string | undefined;
  withArchived: boolean;
}

/**
 * One session's events after `after` (of one room only: an id two instances both chose is
 * read in the room of its first event) and, when asked and there is one, its archived form.
 */
export async function readSession(db: pg.ClientBase, id: SessionId, read: SessionRead): Promise<{ events: EventRow[]; archived: Session | undefined }> {
  const found = (await db.query<EventRow>(SESSION_EVENTS_SQL, [id, String(read.after), read.limit, read.room ?? null])).rows;
  const room = read.room ?? found[0]?.room;
  const events = found.filter((row) => row.room === room);
  if (!read.withArchived || room === undefined) return { events, archived: undefined };
  const whole = (await db.query<{ session: Session }>(ONE_ARCHIVED_SQL, [room, id])).rows[0];
  return { events, archived: whole?.session };
}

/** A row as a logged event, or undefined when it is not an input of its session (never stepped). */
export function eventOfRow(row: EventRow): StoredEvent | undefined {
  const input = row.input as Partial<Input> | null;
  const seq = Number(row.seq);
  const at = Number(row.at);
  if (typeof input !== "object" || input === null || typeof input.kind !== "string" || input.sessionId !== row.session_id || !Number.isSafeInteger(seq) || !Number.isFinite(at)) {
    return undefined;
  }
  return { seq, sessionId: row.session_id, at, input: input as Input };
}

/** Runs `fn` in a read-only transaction (one snapshot of the database), each statement bounded by `statementTimeoutMs`. */
export function readOnly<T>(pool: pg.Pool, statementTimeoutMs: number, fn: (db: pg.ClientBase) => Promise<T>): Promise<T> {
  return withConnection(pool, async (client) => {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      await client.query("SELECT set_config('statement_timeout', $1, true)", [String(statementTimeoutMs)]);
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
  });
}
