/**
 * The session journal on the shared PostgreSQL database: the asynchronous counterpart of
 * the SQLite store (store/session-store.ts) for ONE room unit, written only by the instance
 * that owns the room's lease (room-lease.ts), at the epoch it claimed it under.
 *
 * The rules it keeps:
 *  - Every write (an append with its heard keys, a sent record, an archive) runs in its own
 *    transaction through `withFence(room, epoch)`: once another instance has claimed the
 *    room, a late write of this one fails with FencedOut and writes nothing.
 *  - An input and the room message it came from are recorded in one transaction, as the
 *    SQLite store does, so a crash never keeps the one without the other.
 *  - Appends keep their call order: sequence numbers increase in the order `append` was
 *    called, even when calls overlap (see `append`).
 *  - Archiving a session stores it and takes its events out of replay in one transaction.
 *
 *  - Artefacts (what export reads back) are kept in order, each write fenced.
 *  - Pruning removes archived sessions of this room by age and by count, as the SQLite
 *    store's `prune`, in one fenced transaction; a session with live events is never touched.
 *
 * Its reads are PgRoomReader's (pg-room-reader.ts). Tables: migrations 2 and 3 in
 * migrations.ts. Not yet here (the SQLite store has them): blobs, presence and agent
 * evidence.
 */
import type pg from "pg";
import type { Session, SessionId } from "../../session/types.js";
import type { Input } from "../../session/step-io.js";
import type { SessionJournal } from "../../host/journal.js";
import { HEARD_KEPT_MS } from "../heard-log.js";
import type { HeardRecord } from "../../host/heard.js";
import { archivedForm, archiveRecordOf, isCompletionStatus } from "../../host/journal-records.js";
import type {
  ArchivedSession,
  ArchivedSummary,
  Artefact,
  ArtefactKind,
  ListArchivedOptions,
  PruneOptions,
  SentRecord,
  StoredEvent,
} from "../../host/journal-records.js";
import { runningBuildId } from "../../base/build-info.js";
import { numberOf, PgRoomReader } from "./pg-room-reader.js";
import { withConnection } from "./pool.js";
import { withFence } from "./room-lease.js";

/**
 * The session journal's operations, each returning a Promise: what the session host would
 * need from a store whose writes cross a network (PostgreSQL). The same meaning as
 * SessionJournal (host/journal.ts), plus the reads replay and the heard log need.
 */
export interface AsyncSessionJournal {
  /**
   * Appends an input (and, in the same transaction, the keys of the room message it came
   * from); resolves with its sequence number once it is durable. Sequence numbers increase
   * in call order.
   */
  append(sessionId: SessionId, input: Input, at: number, heard?: HeardRecord): Promise<number>;
  /** Notes that a stanza of the step of `eventSeq` was handed to the connection. */
  recordSent(record: SentRecord): Promise<void>;
  /** What was recorded as handed to the connection for one session, in the order it was recorded. */
  sentOf(sessionId: SessionId): Promise<SentRecord[]>;
  /** Events at or below this were logged before sends were recorded. */
  sentTrackedAfter(): Promise<number>;
  /** Keeps a completed session in the archive; its events leave replay in the same transaction. */
  archive(session: Session): Promise<void>;
  /** A completed session as archived, or undefined. */
  archivedSession(id: SessionId): Promise<Session | undefined>;
  /**
   * The newest archived sessions first (by start), at most `limit`; with `before`, only those
   * started strictly before it (the next page after the oldest one shown). A bare number is
   * the limit.
   */
  listArchived(options: ListArchivedOptions | number): Promise<ArchivedSummary[]>;
  /** Whether a session id was ever used (live or archived). */
  knows(id: SessionId): Promise<boolean>;
  /** Every event of the sessions not archived, in sequence order: what replay feeds the core. */
  liveEvents(): Promise<StoredEvent[]>;
  /** Whether a message with any of these keys was taken in from the room before. */
  heardBefore(room: string, keys: readonly string[]): Promise<boolean>;
  /** Every event of one session, archived or not, in sequence order (what verify reads). */
  eventsOf(sessionId: SessionId): Promise<StoredEvent[]>;
  /** Every session id that has events, archived or live, in code-point order (for checks over a whole store). */
  sessionIds(): Promise<SessionId[]>;
  /** Keeps an artefact export needs (the merged TriG, a validation report); resolves with its id, which increases in save order. */
  saveArtefact(sessionId: SessionId, kind: ArtefactKind, content: string): Promise<number>;
  /** The session's artefacts, oldest first; only those of one kind if given. */
  artefacts(sessionId: SessionId, kind?: ArtefactKind): Promise<Artefact[]>;
  /**
   * Deletes archived sessions (with their events, sent records and artefacts) completed more
   * than `maxAgeMs` before `now`, or beyond the newest `maxCount` by completion; a session
   * with live events is never touched. Resolves with how many sessions went.
   */
  prune(options: PruneOptions): Promise<number>;
}

/**
 * What `asyncJournalOf` wraps: the SQLite store, or anything with its journal, replay reads,
 * paged listing, artefacts (saveArtefact returning the id) and prune.
 */
export type SyncJournalWithReplay = Omit<SessionJournal, "append" | "saveArtefact" | "listArchived"> & {
  append(sessionId: SessionId, input: Input, at: number, heard?: HeardRecord): number;
  liveEvents(): StoredEvent[];
  heardBefore(room: string, keys: readonly string[]): boolean;
  listArchived(options: ListArchivedOptions | number): ArchivedSummary[];
  eventsOf(sessionId: SessionId): StoredEvent[];
  sessionIds(): SessionId[];
  saveArtefact(sessionId: SessionId, kind: ArtefactKind, content: string): number;
  artefacts(sessionId: SessionId, kind?: ArtefactKind): Artefact[];
  prune(options: PruneOptions): number;
};

/**
 * The synchronous journal (the SQLite store) seen through the asynchronous interface, so
 * one contract holds both stores to the same meaning. Each call runs synchronously at once
 * (so call order is write order, as with PgJournal) and its result or error comes back as
 * a Promise.
 */
export function asyncJournalOf(store: SyncJournalWithReplay): AsyncSessionJournal {
  const run = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
  return {
    append: (sessionId, input, at, heard) => run(() => store.append(sessionId, input, at, heard)),
    recordSent: (record) => run(() => store.recordSent(record)),
    sentOf: (sessionId) => run(() => store.sentOf(sessionId)),
    sentTrackedAfter: () => run(() => store.sentTrackedAfter()),
    archive: (session) => run(() => store.archive(session)),
    archivedSession: (id) => run(() => store.archivedSession(id)),
    listArchived: (options) => run(() => store.listArchived(options)),
    knows: (id) => run(() => store.knows(id)),
    liveEvents: () => run(() => store.liveEvents()),
    heardBefore: (room, keys) => run(() => store.heardBefore(room, keys)),
    eventsOf: (sessionId) => run(() => store.eventsOf(sessionId)),
    sessionIds: () => run(() => store.sessionIds()),
    saveArtefact: (sessionId, kind, content) => run(() => store.saveArtefact(sessionId, kind, content)),
    artefacts: (sessionId, kind) => run(() => store.artefacts(sessionId, kind)),
    prune: (options) => run(() => store.prune(options)),
  };
}

/**
 * One write as a step of a transaction: run on the transaction's client, after the fence
 * (withFence) and before the commit. A PgJournal runs each of its writes as a transaction of
 * its own; the room store (pg-room-store.ts) runs several in one, in order.
 */
export type WriteOp<T> = (tx: pg.ClientBase) => Promise<T>;

/** Records the keys of a message heard in a room (a key already there keeps its first instant). */
export async function insertHeard(tx: pg.ClientBase, heard: HeardRecord): Promise<void> {
  if (heard.keys.length === 0) return;
  await tx.query(
    "INSERT INTO journal_heard (room, key, at) SELECT $1, key, $3 FROM unnest($2::text[]) AS key ON CONFLICT (room, key) DO NOTHING",
    [heard.room, [...heard.keys], heard.at],
  );
}

/** Where a PgJournal writes: its database, and the room unit it owns at `epoch`. */
export interface PgJournalOptions {
  readonly pool: pg.Pool;
  /** The room unit: the lease's key in room_leases, and the tag on every row written. */
  readonly room: string;
  /** The epoch of this instance's lease on the room; every write is fenced by it. */
  readonly epoch: number;
  /** The clock for archived_at and an artefact's at (ms since the epoch). Default Date.now. */
  readonly now?: () => number;
  /**
   * The rooms (JIDs) of the unit whose messages may be recorded as heard with an input: the
   * primary room with its log and phase rooms. Default: just `room`.
   */
  readonly heardRooms?: readonly string[];
  /** The build id written with each input and sent record (default: the running build's, build-info.ts). */
  readonly build?: string;
}

/**
 * The session journal of one room unit on PostgreSQL, for the instance that owns the room
 * at `epoch` (see the module comment for the rules it keeps). Its reads are PgRoomReader's
 * (pg-room-reader.ts), not fenced: they see what was committed, whoever owns the room now.
 */
export class PgJournal extends PgRoomReader implements AsyncSessionJournal {
  readonly epoch: number;
  /** The build id this journal writes with each input and sent record. */
  readonly build: string;
  private readonly now: () => number;
  private readonly heardRooms: readonly string[];
  /**
   * The tail of the appends in flight. Each append starts only after the one before it has
   * settled (committed or failed), so appends take their sequence numbers, and commit, in
   * the order `append` was called, even when callers do not wait for each other: without
   * this, two overlapping appends on two pooled connections could take their numbers in
   * either order, and replay would apply one session's inputs out of order.
   */
  private appends: Promise<unknown> = Promise.resolve();

  constructor(options: PgJournalOptions) {
    super(options.pool, options.room);
    this.epoch = options.epoch;
    this.build = options.build ?? runningBuildId();
    this.now = options.now ?? Date.now;
    this.heardRooms = options.heardRooms ?? [options.room];
  }

  /**
   * Appends an input, with the keys of the room message it came from in the same fenced
   * transaction; resolves with its global sequence number once committed. Live (replayed)
   * when it starts a session or the session has live events in this room, as in the SQLite
   * store. Rejects with FencedOut, writing nothing, once another instance owns the room.
   */
  append(sessionId: SessionId, input: Input, at: number, heard?: HeardRecord): Promise<number> {
    let op: WriteOp<number>;
    try {
      op = this.appendOp(sessionId, input, at, heard);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const next = this.appends.then(() => this.fenced(op));
    // The chain goes on after a failed append too; the caller sees the failure through `next`.
    this.appends = next.catch(() => undefined);
    return next;
  }

  /**
   * The append as a step of a transaction the caller runs, fenced (PgRoomStore batches
   * several into one commit). Checks its arguments now: throws a TypeError for an input of
   * another session or a heard record of a room not the unit's.
   */
  appendOp(sessionId: SessionId, input: Input, at: number, heard?: HeardRecord): WriteOp<number> {
    if (input.sessionId !== sessionId) throw new TypeError(`append: input is for session ${input.sessionId}, not ${sessionId}`);
    if (heard !== undefined && !this.heardRooms.includes(heard.room)) {
      throw new TypeError(`append: heard record is for room ${heard.room}, not one of room ${this.room}'s`);
    }
    // JSON drops properties whose value is undefined, as in the SQLite store.
    const text = JSON.stringify(input);
    return async (tx) => {
      if (heard !== undefined) await insertHeard(tx, heard);
      const result = await tx.query<{ seq: string }>(
        `INSERT INTO journal_events (room, session_id, kind, at, live, epoch, input, build)
         VALUES ($1, $2, $3, $4,
           $3 = 'start' OR EXISTS (SELECT 1 FROM journal_events WHERE room = $1 AND session_id = $2 AND live),
           $5, $6::json, $7)
         RETURNING seq::text AS seq`,
        [this.room, sessionId, input.kind, at, this.epoch, text, this.build],
      );
      return numberOf(result.rows[0]!.seq, "sequence number");
    };
  }

  /** Records a stanza handed to the connection, fenced like every write; with this journal's build unless the record names one. */
  async recordSent(record: SentRecord): Promise<void> {
    await this.fenced(this.recordSentOp(record));
  }

  /** `recordSent` as a step of a fenced transaction the caller runs. */
  recordSentOp(record: SentRecord): WriteOp<void> {
    return async (tx) => {
      await tx.query(
        "INSERT INTO journal_sent (room, session_id, event_seq, position, at, digest, what, decisive, build) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        [this.room, record.sessionId, record.eventSeq, record.position, record.at, record.digest, record.what, record.decisive ?? null, record.build ?? this.build],
      );
    };
  }

  /**
   * Stores a completed session and takes its events in this room out of replay, in one
   * fenced transaction; archiving the same id again replaces it. Refuses a running session.
   */
  async archive(session: Session): Promise<void> {
    await this.fenced(this.archiveOp(session));
  }

  /** `archive` as a step of a fenced transaction the caller runs; refuses a running session now (TypeError). */
  archiveOp(session: Session): WriteOp<void> {
    const record: ArchivedSession = archiveRecordOf(session);
    if (!isCompletionStatus(record.status)) throw new TypeError(`archive: unknown completion status ${String(record.status)}`);
    const text = JSON.stringify(archivedForm(record.session));
    const archivedAt = this.now();
    return async (tx) => {
      await tx.query(
        `INSERT INTO journal_archived (room, id, problem, status, started_at, completed_at, archived_at, session)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::json)
         ON CONFLICT (room, id) DO UPDATE SET problem = EXCLUDED.problem, status = EXCLUDED.status,
           started_at = EXCLUDED.started_at, completed_at = EXCLUDED.completed_at,
           archived_at = EXCLUDED.archived_at, session = EXCLUDED.session`,
        [this.room, record.id, record.problem, record.status, record.startedAt, record.completedAt, archivedAt, text],
      );
      await tx.query("UPDATE journal_events SET live = false WHERE room = $1 AND session_id = $2 AND live", [this.room, record.id]);
    };
  }

  /**
   * Keeps an artefact of a session in this room, at this journal's clock, in a fenced
   * transaction; resolves with its id (increasing in commit order). Rejects with FencedOut,
   * writing nothing, once another instance owns the room.
   */
  async saveArtefact(sessionId: SessionId, kind: ArtefactKind, content: string): Promise<number> {
    return this.fenced(this.saveArtefactOp(sessionId, kind, content));
  }

  /** `saveArtefact` as a step of a fenced transaction the caller runs (its instant is read now). */
  saveArtefactOp(sessionId: SessionId, kind: ArtefactKind, content: string): WriteOp<number> {
    const at = this.now();
    return async (tx) => {
      const result = await tx.query<{ id: string }>(
        `INSERT INTO journal_artefacts (room, session_id, kind, at, epoch, content)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text AS id`,
        [this.room, sessionId, kind, at, this.epoch, content],
      );
      return numberOf(result.rows[0]!.id, "artefact id");
    };
  }

  /**
   * Deletes this room's archived sessions completed more than `maxAgeMs` before `now`, or
   * beyond the newest `maxCount` by completion (ties by id), with their events, sent records
   * and artefacts, as the SQLite store's `prune`; an archived id with live events (started
   * again) is left whole. Heard keys of this room older than HEARD_KEPT_MS go too. One fenced
   * transaction: rejects with FencedOut, deleting nothing, once another instance owns the
   * room. Resolves with how many sessions went.
   */
  async prune(options: PruneOptions): Promise<number> {
    return this.fenced(this.pruneOp(options));
  }

  /** `prune` as a step of a fenced transaction the caller runs; checks its options now (RangeError). */
  pruneOp(options: PruneOptions): WriteOp<number> {
    const { maxAgeMs, maxCount, now } = options;
    if (maxAgeMs !== undefined && !(maxAgeMs >= 0)) throw new RangeError(`prune: maxAgeMs must be ≥ 0, got ${maxAgeMs}`);
    if (maxCount !== undefined && !(Number.isInteger(maxCount) && maxCount >= 0)) throw new RangeError(`prune: maxCount must be a whole number ≥ 0, got ${maxCount}`);
    if (!Number.isFinite(now)) throw new RangeError(`prune: now must be a finite instant, got ${now}`);
    const cutoff = maxAgeMs === undefined ? null : now - maxAgeMs;
    return async (tx) => {
      await tx.query("DELETE FROM journal_heard WHERE room = ANY($1::text[]) AND at < $2::double precision", [[...this.heardRooms], now - HEARD_KEPT_MS]);
      const doomed = await tx.query<{ id: string }>(
        `SELECT a.id FROM journal_archived AS a
         WHERE a.room = $1
           AND (($2::double precision IS NOT NULL AND a.completed_at < $2::double precision)
             OR ($3::bigint IS NOT NULL AND a.id IN (
                  SELECT b.id FROM journal_archived AS b WHERE b.room = $1
                  ORDER BY b.completed_at DESC, b.id COLLATE "C" DESC OFFSET $3::bigint)))
           AND NOT EXISTS (SELECT 1 FROM journal_events AS e WHERE e.room = $1 AND e.session_id = a.id AND e.live)
         FOR UPDATE OF a`,
        [this.room, cutoff, maxCount ?? null],
      );
      const ids = doomed.rows.map((row) => row.id);
      if (ids.length === 0) return 0;
      await tx.query("DELETE FROM journal_events WHERE room = $1 AND session_id = ANY($2::text[]) AND NOT live", [this.room, ids]);
      await tx.query("DELETE FROM journal_sent WHERE room = $1 AND session_id = ANY($2::text[])", [this.room, ids]);
      await tx.query("DELETE FROM journal_artefacts WHERE room = $1 AND session_id = ANY($2::text[])", [this.room, ids]);
      await tx.query("DELETE FROM journal_archived WHERE room = $1 AND id = ANY($2::text[])", [this.room, ids]);
      return ids.length;
    };
  }

  /** Runs `fn` in a transaction fenced by this journal's room and epoch, on a connection of its own. */
  private fenced<T>(fn: (tx: pg.ClientBase) => Promise<T>): Promise<T> {
    return withConnection(this.pool, (client) => withFence(client, this.room, this.epoch, fn));
  }
}
