/**
 * Sessions on disk: the durable input log that rebuilds live sessions at start, the archive
 * of completed ones (so memory stays flat however many have run), the artefacts export
 * needs, and retention. Synchronous on purpose: `append` must have reached the log before
 * the input is acted on, and better-sqlite3 makes one append a few microseconds.
 */
import type BetterSqlite3 from "better-sqlite3";
import { accessSync, constants } from "node:fs";
import { join, resolve } from "node:path";
import type { Input, Session, SessionId } from "../session/types.js";
import { openReadonly, openWritable } from "./database-file.js";
import type { OpenFileOptions } from "./database-file.js";
import { corrupted, errorCode, StoreError } from "./errors.js";
import { acquireProcessLock } from "./process-lock.js";
import type { ProcessLock } from "./process-lock.js";
import { archivedForm, archiveRecordOf, fromArchivedForm, isCompletionStatus } from "../host/journal-records.js";
import type { ArchivedSession, ArchivedSummary, Artefact, ArtefactKind, BuildCount, ListArchivedOptions, PruneOptions, SentRecord, StoredEvent } from "../host/journal-records.js";
import { migrate, refuseNewer, schemaVersion, SCHEMA_VERSION } from "./schema.js";
import type { EvidenceRow } from "../agent-choice/evidence.js";
import { prepareEvidence } from "./agent-evidence.js";
import { HEARD_KEPT_MS, prepareHeard } from "./heard-log.js";
import type { HeardRecord } from "../host/heard.js";
import { BlobReader } from "./blobs.js";
import type { BlobRef } from "../host/journal-records.js";
import { decodeWithBlobs, DurableValues, MissingBlobError, MissingEventTextError, type ReadEventInput } from "./blob-json.js";
import type { SessionJournal } from "../host/journal.js";
import { prepareArchive, type ArchivedRow, type SummaryRow } from "./archive-statements.js";
import { ensureDirectory, fileIdentity, type FileIdentity } from "./data-directory.js";
import { runningBuildId } from "../base/build-info.js";

export const DATABASE_FILE = "mfr-coordinator.sqlite";

/** How `SessionStore.open` opens the store: writable with the data directory's lock (the default), or read-only beside a running coordinator. */
export interface OpenOptions extends OpenFileOptions {
  /** Clock for archive and artefact timestamps (tests pass a fake one). */
  now?: () => number;
  /** Read an existing store next to a running coordinator (export, listing): no lock, no writes. */
  readonly?: boolean;
  /** The build id written with each input and sent record (default: the running build's, build-info.ts). */
  build?: string;
}

interface EventRow {
  seq: number;
  session_id: string;
  at: number;
  input: string;
}

interface SentRow {
  session_id: string;
  event_seq: number;
  position: number;
  at: number;
  digest: string;
  what: string;
  decisive: string | null;
  build: string | null;
}

/** A sent row as a record: the columns a row of an earlier build lacks (NULL) are left out. */
function sentRecordOf(r: SentRow): SentRecord {
  return {
    sessionId: r.session_id,
    eventSeq: r.event_seq,
    position: r.position,
    at: r.at,
    digest: r.digest,
    what: r.what,
    ...(r.decisive !== null ? { decisive: r.decisive } : {}),
    ...(r.build !== null ? { build: r.build } : {}),
  };
}

/**
 * The coordinator's one store (see the header): opened with `open`, one writer per data
 * directory (a process lock), any number of read-only readers. Every write throws once the
 * store is closed or if it was opened read-only; a corrupt row reads as a StoreError.
 */
export class SessionStore implements SessionJournal {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly evidence: ReturnType<typeof prepareEvidence>;
  private readonly heard: ReturnType<typeof prepareHeard>;
  private readonly archiveStatements: ReturnType<typeof prepareArchive>;
  /** An input and the room message it came from, in one transaction. */
  private readonly appendHeard: (run: () => number) => number;
  private readonly blobs: BlobReader;
  /** Values of live sessions the model worker already stored as blobs: rows refer to them. */
  private readonly durable = new DurableValues();
  /** The file as opened (device and inode), to notice it being moved, deleted or replaced. */
  private readonly opened: FileIdentity | undefined;
  private closed = false;

  private constructor(
    private readonly db: BetterSqlite3.Database,
    /** The database file, for messages. */
    readonly path: string,
    private readonly now: () => number,
    private readonly lock: ProcessLock | undefined,
    /** The build id this store writes with each input and sent record. */
    readonly build: string,
  ) {
    this.statements = prepare(db);
    this.evidence = prepareEvidence(db);
    this.heard = prepareHeard(db);
    this.archiveStatements = prepareArchive(db);
    this.appendHeard = db.transaction((run: () => number) => run());
    this.blobs = new BlobReader(db);
    this.opened = fileIdentity(path);
  }

  /**
   * Opens `<dataDir>/mfr-coordinator.sqlite`, creating the directory and an empty store if
   * there is none, and holds the data directory for this process until `close`. Every
   * failure is a StoreError with a one-line message; an existing file is never replaced.
   */
  static open(dataDir: string, opts: OpenOptions = {}): SessionStore {
    const dir = resolve(dataDir);
    const path = join(dir, DATABASE_FILE);
    const now = opts.now ?? Date.now;
    const build = opts.build ?? runningBuildId();
    if (opts.readonly) return SessionStore.openReadonly(path, now, build, opts);
    ensureDirectory(dir);
    const lock = acquireProcessLock(dir, now);
    try {
      const db = openWritable(path, opts);
      try {
        migrate(db, path, now);
        return new SessionStore(db, path, now, lock, build);
      } catch (error) {
        db.close();
        throw error;
      }
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  private static openReadonly(path: string, now: () => number, build: string, opts: OpenFileOptions): SessionStore {
    const db = openReadonly(path, opts);
    try {
      const version = schemaVersion(db, path);
      refuseNewer(version, path);
      if (version === 0) {
        throw new StoreError("missing", `${path} holds no coordinator data yet; start the coordinator once to create its store`);
      }
      if (version < SCHEMA_VERSION) {
        throw new StoreError("unwritable", `${path} uses an older schema (v${version}) that a read-only open cannot upgrade; start the coordinator once to migrate it`);
      }
      return new SessionStore(db, path, now, undefined, build);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  // ---- the durable log ------------------------------------------------------------------

  /**
   * Appends one input and returns its sequence number. When this returns, the input is in
   * the WAL and survives a crash of this process.
   *
   * An input is "live" (replayed at start) if it starts a session or belongs to one that
   * has live events; inputs for archived or unknown sessions are kept for history but not
   * replayed, since the core ignores them as well.
   */
  append(sessionId: SessionId, input: Input, at: number, heard?: HeardRecord): number {
    this.writable();
    if (input.sessionId !== sessionId) {
      throw new TypeError(`append: input is for session ${input.sessionId}, not ${sessionId}`);
    }
    // JSON drops properties whose value is undefined (e.g. `jid: undefined`); the core reads
    // a missing property and an undefined one alike, so replay is unaffected.
    const row = { sessionId, kind: input.kind, at, input: this.durable.encode(sessionId, input), build: this.build };
    const run = (): number => Number(this.statements.append.run(row).lastInsertRowid);
    const seq = heard
      ? this.appendHeard(() => {
          this.heard.record(heard);
          return run();
        })
      : run();
    this.durable.noteEventTexts(sessionId, seq, input);
    return seq;
  }

  // ---- what was heard from the rooms (heard-log.ts) ---------------------------------------

  /** Whether a message with any of these keys was taken in from the room before. */
  heardBefore(room: string, keys: readonly string[]): boolean {
    return this.heard.has(room, keys);
  }

  /** Notes a message taken in that became no input (a command answered, chatter, a refusal). */
  recordHeard(heard: HeardRecord): void {
    this.writable();
    this.heard.record(heard);
  }

  /** The instant the newest message taken in from the room counted at. */
  lastHeardAt(room: string): number | undefined {
    return this.heard.newest(room);
  }

  /** Notes that the coordinator heard the room (in it and caught up) until `at`. */
  markPresent(room: string, at: number): void {
    this.writable();
    this.heard.markPresent(room, at);
  }

  /**
   * The latest instant noted by `markPresent` for the room (it never moves back), or undefined
   * if none is kept; a join asks the room for history since then when nothing was heard.
   */
  presentUntil(room: string): number | undefined {
    return this.heard.presentUntil(room);
  }

  /**
   * Notes that `value` of the session (a text, or an object kept as JSON) is already stored
   * as the blob `ref` (the model worker wrote it, see blobs.ts): events and the archive
   * refer to it from now on instead of holding it.
   */
  adoptBlob(sessionId: SessionId, value: string | object, ref: BlobRef): void {
    this.durable.adopt(sessionId, value, ref);
  }

  /** A blob's text (store/blobs.ts), e.g. a formal model's JSON by the digest in its summary; undefined when it is missing. */
  blobText(sessionId: SessionId, digest: string): string | undefined {
    return this.blobs.text(sessionId, digest);
  }

  /** Every event of the sessions not archived, in the order they were appended: what replay feeds the core. */
  liveEvents(): StoredEvent[] {
    // What is read back is stored already: the rebuilt sessions' rows keep referring to it.
    return (this.statements.liveEvents.all() as EventRow[]).map((row) => this.eventOf(row, true));
  }

  /** Every event of one session, archived or not, in order. */
  eventsOf(sessionId: SessionId): StoredEvent[] {
    return (this.statements.eventsOf.all(sessionId) as EventRow[]).map((row) => this.eventOf(row));
  }

  /** True if the id was ever used (logged or archived): new session ids must avoid it. */
  knows(sessionId: SessionId): boolean {
    return this.statements.knows.get({ sessionId }) !== undefined;
  }

  // ---- the sent-record -----------------------------------------------------------------

  /** Notes that a stanza produced by event `eventSeq` was handed to the connection, with this store's build unless the record names one. */
  recordSent(record: SentRecord): void {
    this.writable();
    this.statements.recordSent.run({ ...record, decisive: record.decisive ?? null, build: record.build ?? this.build });
  }

  /** What was recorded as sent for one session, in the order it was sent; `decisive` and `build` only where the row has them. */
  sentOf(sessionId: SessionId): SentRecord[] {
    const rows = this.statements.sentOf.all(sessionId) as SentRow[];
    return rows.map(sentRecordOf);
  }

  /** The builds that logged the session's inputs, in the order each first did, with how many each logged; `undefined`: before build ids were kept. */
  inputBuildsOf(sessionId: SessionId): BuildCount[] {
    const rows = this.statements.inputBuildsOf.all(sessionId) as Array<{ build: string | null; inputs: number }>;
    return rows.map((r) => ({ build: r.build ?? undefined, inputs: r.inputs }));
  }

  /** Events with a sequence number above this have their sends recorded; older ones predate the record. */
  sentTrackedAfter(): number {
    return (this.statements.sentTrackedAfter.get() as { after_seq: number } | undefined)?.after_seq ?? 0;
  }

  /** Every session id that has events, archived or live (for checks over a whole store). */
  sessionIds(): SessionId[] {
    return (this.statements.sessionIds.all() as Array<{ session_id: string }>).map((r) => r.session_id);
  }

  // ---- the archive ----------------------------------------------------------------------

  /**
   * Stores a completed session and takes its events out of replay, in one transaction: a
   * crash leaves it either live (rebuilt, then archived again) or archived, never lost.
   * Accepts the Session itself or a prepared record; archiving the same id again replaces it.
   */
  archive(sessionOrRecord: Session | ArchivedSession): void {
    this.writable();
    const record = "session" in sessionOrRecord ? sessionOrRecord : archiveRecordOf(sessionOrRecord);
    if (!isCompletionStatus(record.status)) throw new TypeError(`archive: unknown completion status ${String(record.status)}`);
    this.archiveStatements.archiveTx({
      id: record.id,
      problem: record.problem,
      status: record.status,
      startedAt: record.startedAt,
      completedAt: record.completedAt,
      archivedAt: this.now(),
      session: this.durable.encode(record.id, archivedForm(record.session), { eventTexts: true }),
    });
    this.durable.forget(record.id);
  }

  /** The final state of an archived session (what mfr-status shows), or undefined. */
  archivedSession(id: SessionId): Session | undefined {
    return this.archivedRecord(id)?.session;
  }

  /** An archived session with its summary, its stored texts read back from its events; undefined if not archived. */
  archivedRecord(id: SessionId): ArchivedSession | undefined {
    const row = this.archiveStatements.archived.get(id) as ArchivedRow | undefined;
    if (!row) return undefined;
    // The texts it refers to are in its own events; each event is read once.
    const inputs = new Map<number, unknown>();
    const readEvent: ReadEventInput = (sessionId, seq) => {
      if (!inputs.has(seq)) {
        const event = this.statements.eventAt.get(seq) as EventRow | undefined;
        inputs.set(seq, event !== undefined && event.session_id === sessionId ? this.eventOf(event).input : undefined);
      }
      return inputs.get(seq);
    };
    return { ...this.summaryOf(row), session: fromArchivedForm(this.parse<Session>(row.id, row.session, `archived session ${row.id}`, false, readEvent)) };
  }

  /** Newest first by start (as mfr-list shows them); pass `before` to page on. A bare number is the limit. */
  listArchived(options: ListArchivedOptions | number): ArchivedSummary[] {
    const { limit, before } = typeof options === "number" ? { limit: options, before: undefined } : options;
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`listArchived: limit must be a whole number ≥ 0, got ${limit}`);
    const rows = this.archiveStatements.listArchived.all({ limit, before: before ?? null }) as SummaryRow[];
    return rows.map((row) => this.summaryOf(row));
  }

  /** How many sessions the archive holds (pruned ones are gone). */
  countArchived(): number {
    return (this.archiveStatements.countArchived.get() as { n: number }).n;
  }

  // ---- artefacts ------------------------------------------------------------------------

  /** Keeps something export needs (the merged TriG, a validation report); all are kept, in order. */
  saveArtefact(sessionId: SessionId, kind: ArtefactKind, content: string): number {
    this.writable();
    return Number(this.statements.saveArtefact.run({ sessionId, kind, at: this.now(), content }).lastInsertRowid);
  }

  /** Keeps an artefact whose content the model worker already stored as the blob `digest` (a text). */
  saveArtefactBlob(sessionId: SessionId, kind: ArtefactKind, digest: string): number {
    this.writable();
    return Number(this.statements.saveArtefactBlob.run({ sessionId, kind, at: this.now(), digest }).lastInsertRowid);
  }

  /** The session's artefacts, oldest first; only those of one kind if given. */
  artefacts(sessionId: SessionId, kind?: ArtefactKind): Artefact[] {
    const rows = this.statements.artefacts.all({ sessionId, kind: kind ?? null }) as Array<{ id: number; session_id: string; kind: string; at: number; content: string; blob: string | null }>;
    return rows.map((r) => {
      const content = r.blob === null ? r.content : this.blobs.text(r.session_id, r.blob);
      if (content === undefined) throw corrupted(this.path, `artefact ${r.id} refers to stored text ${r.blob?.slice(0, 12) ?? ""}…, which is missing`);
      return { id: r.id, sessionId: r.session_id, kind: r.kind, at: r.at, content };
    });
  }

  // ---- agent evidence -------------------------------------------------------------------

  /** Every evidence row, least recently seen first (the catalog's EvidenceJournal). */
  loadEvidence(): EvidenceRow[] {
    return this.evidence.load();
  }

  /** Writes one row as the catalog holds it now. */
  saveEvidence(row: EvidenceRow): void {
    this.writable();
    this.evidence.save(row);
  }

  /** Writes several rows in one transaction (the coordinator batches them: agent-choice/evidence-batch.ts). */
  saveEvidenceRows(rows: readonly EvidenceRow[]): void {
    this.writable();
    this.evidence.saveAll(rows);
  }

  // ---- health ---------------------------------------------------------------------------

  /**
   * Why the store would not take the next input, in one line, or undefined when it would.
   * A real write (the heartbeat row, committed) meets what an append meets: the write lock,
   * the WAL, a full disk, an I/O error, a file system gone read-only. The file is also looked
   * at by name, since an open SQLite file keeps taking writes after it was made read-only,
   * moved or deleted, and those writes would not be there after a restart.
   */
  writeProblem(): string | undefined {
    try {
      this.writable();
      const now = fileIdentity(this.path);
      if (now === undefined) return `the store file ${this.path} is gone (moved or deleted while open); what is written now would be lost at restart`;
      if (this.opened && (now.dev !== this.opened.dev || now.ino !== this.opened.ino)) return `the store file ${this.path} was replaced while open; what is written now would be lost at restart`;
      // As root this always passes (root writes anyway); for anyone else it names a chmod.
      accessSync(this.path, constants.W_OK);
      this.statements.heartbeat.run({ at: this.now() });
      return undefined;
    } catch (error) {
      const code = errorCode(error);
      return `cannot write the store ${this.path} (${code ? `${code}: ` : ""}${error instanceof Error ? error.message : String(error)})`;
    }
  }

  // ---- retention ------------------------------------------------------------------------

  /**
   * Deletes archived sessions (with their events and artefacts) completed more than
   * `maxAgeMs` before `now`, or beyond the newest `maxCount`. A session with live events is
   * never touched. Returns how many sessions went. Agent evidence not seen within `maxAgeMs`
   * goes too.
   */
  prune(options: PruneOptions): number {
    this.writable();
    const { maxAgeMs, maxCount, now } = options;
    if (maxAgeMs !== undefined && !(maxAgeMs >= 0)) throw new RangeError(`prune: maxAgeMs must be ≥ 0, got ${maxAgeMs}`);
    if (maxCount !== undefined && !(Number.isInteger(maxCount) && maxCount >= 0)) throw new RangeError(`prune: maxCount must be a whole number ≥ 0, got ${maxCount}`);
    const cutoff = maxAgeMs === undefined ? null : now - maxAgeMs;
    // Evidence ages out with the archive: an agent not seen for as long is forgotten.
    this.evidence.prune(cutoff);
    this.heard.prune(now - HEARD_KEPT_MS);
    return this.archiveStatements.pruneTx({ cutoff, maxCount: maxCount ?? null });
  }

  /**
   * Copies the whole database to `destination` with SQLite's online backup API: a
   * consistent snapshot taken page by page while this or another connection keeps writing
   * (a plain file copy under WAL can miss commits still in the -wal file). Works on a
   * read-only store, so a backup runs beside the coordinator. See backup.ts.
   */
  async copyTo(destination: string): Promise<void> {
    if (this.closed) throw new Error(`the store ${this.path} is closed`);
    await this.db.backup(destination);
  }

  /** Checkpoints and closes the database, then lets the next coordinator in. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.close();
    } finally {
      this.lock?.release();
    }
  }

  /** True when opened with `readonly` (no lock held): every write throws. */
  get isReadonly(): boolean {
    return this.lock === undefined;
  }

  // ---- helpers --------------------------------------------------------------------------

  private writable(): void {
    if (this.closed) throw new Error(`the store ${this.path} is closed`);
    if (this.isReadonly) throw new Error(`the store ${this.path} was opened read-only`);
  }

  private eventOf(row: EventRow, live = false): StoredEvent {
    const input = this.parse<Input>(row.session_id, row.input, `event ${row.seq}`, live);
    if (typeof input !== "object" || input === null || typeof input.kind !== "string" || input.sessionId !== row.session_id) {
      throw corrupted(this.path, `event ${row.seq} is not an input of session ${row.session_id}`);
    }
    // A rebuilt session's archive refers to the texts its events hold, as a live one's does.
    if (live) this.durable.noteEventTexts(row.session_id, row.seq, input);
    return { seq: row.seq, sessionId: row.session_id, at: row.at, input };
  }

  private summaryOf(row: SummaryRow): ArchivedSummary {
    if (!isCompletionStatus(row.status)) throw corrupted(this.path, `archived session ${row.id} has unknown status ${row.status}`);
    return { id: row.id, problem: row.problem, status: row.status, startedAt: row.started_at, completedAt: row.completed_at };
  }

  /**
   * Rows were written by this module as JSON, large values as blob references; one that does
   * not parse, or refers to a blob that is not there, means the file was damaged or edited.
   * With `adopt`, the values read back are noted as stored (a live session's rows keep referring to them).
   */
  private parse<T>(sessionId: SessionId, text: string, what: string, adopt = false, readEvent?: ReadEventInput): T {
    try {
      const read = (id: string, digest: string): string | undefined => this.blobs.text(id, digest);
      return decodeWithBlobs<T>(sessionId, text, read, adopt ? (value, ref) => this.durable.adopt(sessionId, value, ref) : undefined, readEvent);
    } catch (error) {
      if (error instanceof MissingBlobError || error instanceof MissingEventTextError) throw corrupted(this.path, `${what}: ${error.message}`, error);
      throw corrupted(this.path, `${what} is not valid JSON`, error);
    }
  }
}

/** Every statement, prepared once: an append is then one bind and one step. */
function prepare(db: BetterSqlite3.Database) {
  return {
    append: db.prepare(`
        INSERT INTO events (session_id, kind, at, live, input, build)
        VALUES (@sessionId, @kind, @at,
          @kind = 'start' OR EXISTS (SELECT 1 FROM events WHERE session_id = @sessionId AND live = 1),
          @input, @build)`),
    liveEvents: db.prepare("SELECT seq, session_id, at, input FROM events WHERE live = 1 ORDER BY seq"),
    eventsOf: db.prepare("SELECT seq, session_id, at, input FROM events WHERE session_id = ? ORDER BY seq"),
    eventAt: db.prepare("SELECT seq, session_id, at, input FROM events WHERE seq = ?"),
    knows: db.prepare("SELECT 1 FROM events WHERE session_id = @sessionId UNION ALL SELECT 1 FROM archived_sessions WHERE id = @sessionId LIMIT 1"),
    recordSent: db.prepare(
      "INSERT INTO sent (session_id, event_seq, position, at, digest, what, decisive, build) VALUES (@sessionId, @eventSeq, @position, @at, @digest, @what, @decisive, @build)",
    ),
    sentOf: db.prepare("SELECT session_id, event_seq, position, at, digest, what, decisive, build FROM sent WHERE session_id = ? ORDER BY seq"),
    inputBuildsOf: db.prepare("SELECT build, count(*) AS inputs FROM events WHERE session_id = ? GROUP BY build ORDER BY min(seq)"),
    sentTrackedAfter: db.prepare("SELECT after_seq FROM sent_tracking WHERE id = 1"),
    sessionIds: db.prepare("SELECT DISTINCT session_id FROM events ORDER BY session_id"),
    heartbeat: db.prepare("INSERT INTO heartbeat (id, at) VALUES (1, @at) ON CONFLICT (id) DO UPDATE SET at = excluded.at"),
    saveArtefact: db.prepare("INSERT INTO artefacts (session_id, kind, at, content) VALUES (@sessionId, @kind, @at, @content)"),
    saveArtefactBlob: db.prepare("INSERT INTO artefacts (session_id, kind, at, content, blob) VALUES (@sessionId, @kind, @at, '', @digest)"),
    artefacts: db.prepare("SELECT id, session_id, kind, at, content, blob FROM artefacts WHERE session_id = @sessionId AND (@kind IS NULL OR kind = @kind) ORDER BY id"),
  };
}
