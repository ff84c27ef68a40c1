/**
 * One room unit's part of the shared PostgreSQL database, as the coordinator that owns the
 * unit's lease uses it (src/fleet/): the same store the SQLite file is to a single
 * coordinator (host/coordinator-store.ts), with writes that cross a network.
 *
 * How it stays both synchronous for the host and safe:
 *  - Reads come from memory, loaded once when the room is taken over (`open`): the live
 *    sessions' inputs and sent records, the heard keys of the catch-up window, the rooms'
 *    presence, the newest archived sessions, the agent evidence; and every session id in the
 *    database, in a set the instance's units share (known-session-ids.ts). While this instance holds the lease, nobody else writes the unit's rows
 *    (every write is fenced by the epoch), so memory and database cannot drift apart.
 *  - Writes go to memory at once and to the database through ONE queue (write-queue.ts),
 *    in call order, in transactions fenced by the lease's epoch: what is queued while a
 *    transaction is under way is committed together in the next (a group commit). An
 *    append returns a Promise that resolves once the input is durable; the host carries
 *    out the input's effects only then (SessionHost.apply). A message noted as heard is
 *    heard at once, so the catch-up does not take it in twice while its write is on the way.
 *  - The first write that fails (fenced out: another instance owns the room now; or the
 *    database could not be reached) stops the queue: later writes are refused, and
 *    `onFailure` tells the owner, which gives the room up. Memory may then be ahead of the
 *    database; whoever takes the room next rebuilds from the database and catches up on the
 *    rest from the room's history, as after a crash.
 */
import type pg from "pg";
import type { Logger } from "pino";
import type { EvidenceRow } from "../../agent-choice/evidence.js";
import type { Session, SessionId } from "../../session/types.js";
import type { Input } from "../../session/step-io.js";
import type { CoordinatorStore } from "../../host/coordinator-store.js";
import { HEARD_KEPT_MS } from "../heard-log.js";
import { KnownSessionIds } from "./known-session-ids.js";
import { positionAfter, type ArchivePosition, type HeardRecord } from "../../host/heard.js";
import { archiveRecordOf, type ArchivedSummary, type PruneOptions, type SentRecord, type StoredEvent } from "../../host/journal-records.js";
import { insertHeard, PgJournal, type WriteOp } from "./pg-journal.js";
import { PgRoomReader } from "./pg-room-reader.js";
import { FencedWriteQueue } from "./write-queue.js";
import { loadEvidence, pruneEvidence, saveEvidenceOp } from "./pg-evidence.js";

/**
 * How far back heard keys are loaded: the catch-up never asks a room for more than a day
 * (catch-up/catch-up.ts, MAX_CATCH_UP_MS), plus its margin; older keys could never match.
 */
const HEARD_LOADED_MS = 2 * 24 * 60 * 60 * 1000;
/** How many archived sessions are listed (mfr-list, the web view's list). */
const ARCHIVE_LISTED = 500;
/** How many archived sessions are kept whole in memory, for mfr-status of a completed session. */
const ARCHIVE_KEPT_WHOLE = 50;

/** Where a room unit's store reads and writes. */
export interface PgRoomStoreOptions {
  readonly pool: pg.Pool;
  /** The unit's lease key: its primary room's JID. */
  readonly unit: string;
  /** The JIDs of the unit's rooms: the primary room, its log room and phase rooms. */
  readonly rooms: readonly string[];
  /** The epoch of this instance's lease on the unit; every write is fenced by it. */
  readonly epoch: number;
  readonly log: Logger;
  /** The wall clock for archive and artefact instants. Default Date.now. */
  readonly now?: () => number;
  /** The first write that failed: the owner gives the room up. Called once. */
  readonly onFailure: (err: unknown) => void;
  /** Called inside each fenced transaction, after its writes and before its commit, with their names (a test hook: src/fleet/stop-inside-write.ts). */
  readonly insideWrite?: (writes: readonly string[]) => void;
  /** The build id written with each input and sent record (default: the running build's, build-info.ts). */
  readonly build?: string;
  /** The session ids of the database, shared by every unit of the instance (default: a set of this store's own). */
  readonly known?: KnownSessionIds;
}

interface HeardRoom {
  /** Key → the instant it counted at. */
  readonly keys: Map<string, number>;
  newest: number | undefined;
  /** The archive id of the newest message taken in that had one, and its instant. */
  newestSid?: ArchivePosition | undefined;
}

/** A room unit's store on PostgreSQL, for the instance that owns it (see the module comment). */
export class PgRoomStore implements CoordinatorStore {
  readonly isReadonly = false;
  private readonly journal: PgJournal;
  /** Every write goes through it (write-queue.ts). */
  private readonly queue: FencedWriteQueue;
  private readonly unit: string;

  private constructor(
    options: PgRoomStoreOptions,
    private readonly events: StoredEvent[],
    private readonly sent: Map<SessionId, SentRecord[]>,
    private readonly heard: Map<string, HeardRoom>,
    private readonly presence: Map<string, number>,
    private readonly known: KnownSessionIds,
    private readonly summaries: ArchivedSummary[],
    private readonly whole: Map<SessionId, Session>,
    private readonly evidence: EvidenceRow[],
  ) {
    this.unit = options.unit;
    this.queue = new FencedWriteQueue(options);
    this.journal = new PgJournal({
      pool: options.pool,
      room: options.unit,
      epoch: options.epoch,
      heardRooms: options.rooms,
      ...(options.now ? { now: options.now } : {}),
      ...(options.build !== undefined ? { build: options.build } : {}),
    });
  }

  /** Loads what the owner reads (see the module comment); rejects when the database cannot be read. */
  static async open(options: PgRoomStoreOptions): Promise<PgRoomStore> {
    const { pool, unit } = options;
    const rooms = [...new Set([unit, ...options.rooms])];
    const now = (options.now ?? Date.now)();
    const reader = new PgRoomReader(pool, unit);
    const events = await reader.liveEvents();
    const liveIds = [...new Set(events.map((e) => e.sessionId))];
    const sent = new Map<SessionId, SentRecord[]>();
    for (const id of liveIds) sent.set(id, await reader.sentOf(id));
    const heard = new Map<string, HeardRoom>(rooms.map((room) => [room, { keys: new Map(), newest: undefined }]));
    const heardRows = await pool.query<{ room: string; key: string; at: string }>(
      "SELECT room, key, at::text AS at FROM journal_heard WHERE room = ANY($1::text[]) AND at >= $2",
      [rooms, now - HEARD_LOADED_MS],
    );
    for (const row of heardRows.rows) {
      const entry = heard.get(row.room);
      if (!entry) continue;
      const at = Number(row.at);
      entry.keys.set(row.key, at);
      entry.newestSid = positionAfter(entry.newestSid, [row.key], at);
    }
    const newest = await pool.query<{ room: string; at: string }>("SELECT room, max(at)::text AS at FROM journal_heard WHERE room = ANY($1::text[]) GROUP BY room", [rooms]);
    for (const row of newest.rows) {
      const entry = heard.get(row.room);
      if (entry) entry.newest = Number(row.at);
    }
    const presenceRows = await pool.query<{ room: string; until: string }>("SELECT room, until::text AS until FROM room_presence WHERE room = ANY($1::text[])", [rooms]);
    const presence = new Map(presenceRows.rows.map((row) => [row.room, Number(row.until)]));
    const known = options.known ?? new KnownSessionIds(pool);
    await known.refresh();
    const summaries = await reader.listArchived(ARCHIVE_LISTED);
    const whole = new Map<SessionId, Session>();
    // Oldest first, as `archive` adds them: the oldest kept whole is the first to make room.
    for (const summary of summaries.slice(0, ARCHIVE_KEPT_WHOLE).reverse()) {
      const session = await reader.archivedSession(summary.id);
      if (session) whole.set(summary.id, session);
    }
    const evidence = await loadEvidence(pool);
    return new PgRoomStore({ ...options, rooms }, events, sent, heard, presence, known, summaries, whole, evidence);
  }

  // ---- the host's journal (host/journal.ts) -----------------------------------------

  /** Queues the input (with the message it came from); resolves with its sequence number once durable. */
  append(sessionId: SessionId, input: Input, at: number, heard?: HeardRecord): Promise<number> {
    this.known.add(sessionId);
    if (heard) this.noteHeard(heard);
    let op: WriteOp<number>;
    try {
      op = this.journal.appendOp(sessionId, input, at, heard);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return this.write(`append ${input.kind}`, op);
  }

  /** Notes a stanza handed to the connection: in memory now, in the database in queue order. */
  recordSent(record: SentRecord): void {
    const list = this.sent.get(record.sessionId) ?? [];
    list.push({ ...record, build: record.build ?? this.journal.build });
    this.sent.set(record.sessionId, list);
    void this.write("sent record", this.journal.recordSentOp(record)).catch(() => undefined);
  }

  /** What was recorded as sent for a session (loaded at takeover for the live ones, and since). */
  sentOf(sessionId: string): SentRecord[] {
    return [...(this.sent.get(sessionId) ?? [])];
  }

  /** 0: the shared store recorded sends from its first event. */
  sentTrackedAfter(): number {
    return 0;
  }

  /** Keeps a completed session: listed and kept whole in memory at once, archived in the database in queue order. */
  archive(session: Session): void {
    const record = archiveRecordOf(session);
    const { session: _whole, ...summary } = record;
    const at = this.summaries.findIndex((s) => s.id === record.id);
    if (at >= 0) this.summaries.splice(at, 1);
    this.summaries.unshift(summary);
    this.summaries.sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    if (this.summaries.length > ARCHIVE_LISTED) this.summaries.length = ARCHIVE_LISTED;
    this.whole.delete(record.id);
    this.whole.set(record.id, session);
    // The oldest kept whole goes first (a Map keeps insertion order).
    while (this.whole.size > ARCHIVE_KEPT_WHOLE) this.whole.delete(this.whole.keys().next().value as string);
    this.sent.delete(record.id);
    void this.write("archive", this.journal.archiveOp(session)).catch(() => undefined);
  }

  /** Keeps an artefact export reads (queued; nothing of it is read back by the owner). */
  saveArtefact(sessionId: string, kind: string, content: string): void {
    void this.write("artefact", this.journal.saveArtefactOp(sessionId, kind, content)).catch(() => undefined);
  }

  /** An archived session of the unit, among the newest ARCHIVE_KEPT_WHOLE (older ones: `export`, or the database). */
  archivedSession(id: string): Session | undefined {
    return this.whole.get(id);
  }

  /** The unit's newest archived sessions, newest start first, at most `limit` (and ARCHIVE_LISTED). */
  listArchived(limit: number): ArchivedSummary[] {
    return this.summaries.slice(0, Math.max(0, limit));
  }

  /** Whether the id was used in any room of the database (as loaded at takeover, and since by this instance). */
  knows(id: string): boolean {
    return this.known.has(id);
  }

  /** The live sessions' inputs as loaded at takeover, for the restore. */
  liveEvents(): StoredEvent[] {
    return this.events;
  }

  // ---- the heard log (host/heard.ts) -----------------------------------------------------

  /** Whether a message with any of these keys was taken in from the room (within the loaded window, or since). */
  heardBefore(room: string, keys: readonly string[]): boolean {
    const entry = this.heard.get(room);
    return entry !== undefined && keys.some((key) => entry.keys.has(key));
  }

  /** Notes a message taken in that became no input: heard at once, written in queue order. */
  recordHeard(heard: HeardRecord): void {
    this.noteHeard(heard);
    void this.write("heard", (tx) => insertHeard(tx, heard)).catch(() => undefined);
  }

  /** The instant the newest message taken in from the room counted at: where the next catch-up starts. */
  lastHeardAt(room: string): number | undefined {
    return this.heard.get(room)?.newest;
  }

  /** The archive id of the newest message taken in from the room that had one (of the keys loaded: the catch-up window). */
  lastStanzaId(room: string): string | undefined {
    return this.heard.get(room)?.newestSid?.id;
  }

  /** Notes that the room was heard until `at` (it never moves back). */
  markPresent(room: string, at: number): void {
    const until = Math.max(at, this.presence.get(room) ?? at);
    this.presence.set(room, until);
    void this.write("presence", async (tx) => {
      await tx.query("INSERT INTO room_presence (room, until) VALUES ($1, $2) ON CONFLICT (room) DO UPDATE SET until = GREATEST(room_presence.until, EXCLUDED.until)", [room, until]);
    }).catch(() => undefined);
  }

  /** Until when some owner heard the room. */
  presentUntil(room: string): number | undefined {
    return this.presence.get(room);
  }

  // ---- agent evidence (agent-choice/evidence-batch.ts) ---------------------------------------------

  /** The evidence rows as loaded at takeover (the catalog reads them once). */
  loadEvidence(): EvidenceRow[] {
    return this.evidence;
  }

  /** Writes a batch of agent evidence (shared by every instance) in one fenced transaction, in queue order. */
  saveEvidenceRows(rows: readonly EvidenceRow[]): void {
    // In one order on every instance (pg-evidence.ts): evidence rows are shared.
    void this.write("evidence", saveEvidenceOp(rows)).catch(() => undefined);
  }

  // ---- health and retention ---------------------------------------------------------------

  /** Why the next input would not be kept: a write has failed (the room is being given up). */
  writeProblem(): string | undefined {
    if (!this.queue.failed) return undefined;
    const why = this.queue.failure instanceof Error ? this.queue.failure.message : String(this.queue.failure);
    return `the shared database refused a write for room ${this.unit} (${why}); the room is being handed over`;
  }

  /**
   * Prunes the unit's archive (PgJournal.prune), and agent evidence not seen within the age
   * or beyond MAX_EVIDENCE_ROWS, as the SQLite store does; memory follows.
   */
  prune(options: PruneOptions): Promise<number> {
    const cutoff = options.maxAgeMs === undefined ? null : options.now - options.maxAgeMs;
    for (const entry of this.heard.values()) {
      for (const [key, at] of entry.keys) if (at < options.now - HEARD_KEPT_MS) entry.keys.delete(key);
    }
    const prune = this.journal.pruneOp(options);
    return this.write("prune", async (tx) => {
      // What was archived before the prune: only those of them that are gone after it leave
      // memory, not a session archived in memory while the prune waited for its turn.
      const listed = await this.archivedIdsIn(tx);
      const pruned = await prune(tx);
      await pruneEvidence(tx, cutoff);
      if (pruned > 0) {
        const left = new Set(await this.archivedIdsIn(tx));
        const gone = new Set(listed.filter((id) => !left.has(id)));
        for (let i = this.summaries.length - 1; i >= 0; i--) if (gone.has(this.summaries[i]!.id)) this.summaries.splice(i, 1);
        for (const id of [...this.whole.keys()]) if (gone.has(id)) this.whole.delete(id);
      }
      return pruned;
    });
  }

  /** The ids of the unit's newest archived sessions as listed (ARCHIVE_LISTED), read in the transaction. */
  private async archivedIdsIn(tx: pg.ClientBase): Promise<string[]> {
    const result = await tx.query<{ id: string }>(
      `SELECT id FROM journal_archived AS a WHERE room = $1 ORDER BY a.started_at DESC, a.id COLLATE "C" DESC LIMIT $2`,
      [this.unit, ARCHIVE_LISTED],
    );
    return result.rows.map((row) => row.id);
  }

  /** Resolves once every write queued so far has settled (before the lease is released on hand-over). */
  drained(): Promise<void> {
    return this.queue.drained();
  }

  /** Takes no more writes; resolves once those queued before it have settled. */
  close(): Promise<void> {
    return this.queue.close();
  }

  /** Queues a write (write-queue.ts): in call order, group-committed, fenced; refused after the first failure or `close`. */
  private write<T>(what: string, op: WriteOp<T>): Promise<T> {
    return this.queue.write(what, op);
  }

  private noteHeard(heard: HeardRecord): void {
    let entry = this.heard.get(heard.room);
    if (!entry) {
      entry = { keys: new Map(), newest: undefined };
      this.heard.set(heard.room, entry);
    }
    for (const key of heard.keys) if (!entry.keys.has(key)) entry.keys.set(key, heard.at);
    entry.newest = Math.max(entry.newest ?? heard.at, heard.at);
    entry.newestSid = positionAfter(entry.newestSid, heard.keys, heard.at);
  }
}
