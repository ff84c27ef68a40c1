/**
 * Sessions on disk: the durable input log that rebuilds live sessions at start, the archive
 * of completed ones (so memory stays flat however many have run), the artefacts export
 * needs, and retention. Synchronous on purpose: `append` must have reached the log before
 * the input is acted on, and better-sqlite3 makes one append a few microseconds.
 */
import type BetterSqlite3 from "better-sqlite3";
import { join, resolve } from "node:path";
import type { Session, SessionId } from "../session/types.js";
import type { Input } from "../session/step-io.js";
import type { OpenFileOptions } from "./database-file.js";
import type { ProcessLock } from "./process-lock.js";
import { archiveRecordOf } from "../host/journal-records.js";
import type { ArchivedSession, ArchivedSummary, Artefact, ArtefactKind, BuildCount, ListArchivedOptions, PruneOptions, SentRecord, StoredEvent } from "../host/journal-records.js";
import type { EvidenceRow } from "../agent-choice/evidence.js";
import { prepareEvidence } from "./agent-evidence.js";
import { HEARD_KEPT_MS, prepareHeard } from "./heard-log.js";
import type { HeardRecord } from "../host/heard.js";
import { BlobReader } from "./blobs.js";
import type { BlobRef } from "../host/journal-records.js";
import type { SessionJournal } from "../host/journal.js";
import { ArchivedSessions } from "./archived-sessions.js";
import { runningBuildId } from "../base/build-info.js";
import { openStoreDatabase } from "./store-opening.js";
import { StoredValues } from "./stored-values.js";
import { EventLog } from "./event-log.js";
import { SentLog } from "./sent-log.js";
import { Artefacts } from "./artefacts.js";
import { WriteProbe } from "./write-probe.js";

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

/**
 * The coordinator's one store (see the header): opened with `open`, one writer per data
 * directory (a process lock), any number of read-only readers. Every write throws once the
 * store is closed or if it was opened read-only; a corrupt row reads as a StoreError.
 * Each table family has its own part: the input log (event-log.ts), the sent-record
 * (sent-log.ts), the heard log (heard-log.ts), the archive (archived-sessions.ts),
 * artefacts (artefacts.ts) and agent evidence (agent-evidence.ts); the values their rows
 * refer to are stored-values.ts's, the health check write-probe.ts's.
 */
export class SessionStore implements SessionJournal {
  private readonly values: StoredValues;
  private readonly events: EventLog;
  private readonly sent: SentLog;
  private readonly artefactRows: Artefacts;
  private readonly evidence: ReturnType<typeof prepareEvidence>;
  private readonly heard: ReturnType<typeof prepareHeard>;
  private readonly archived: ArchivedSessions;
  private readonly probe: WriteProbe;
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
    this.values = new StoredValues(path, new BlobReader(db));
    this.events = new EventLog(db, path, this.values, build);
    this.sent = new SentLog(db, build);
    this.artefactRows = new Artefacts(db, path, this.values);
    this.evidence = prepareEvidence(db);
    this.heard = prepareHeard(db);
    this.archived = new ArchivedSessions(db, path, this.values, this.events, now);
    this.probe = new WriteProbe(db, path, now);
  }

  /**
   * Opens `<dataDir>/mfr-coordinator.sqlite`, creating the directory and an empty store if
   * there is none, and holds the data directory for this process until `close`. Every
   * failure is a StoreError with a one-line message; an existing file is never replaced.
   * How the file is opened: store-opening.ts.
   */
  static open(dataDir: string, opts: OpenOptions = {}): SessionStore {
    const dir = resolve(dataDir);
    const path = join(dir, DATABASE_FILE);
    const now = opts.now ?? Date.now;
    const build = opts.build ?? runningBuildId();
    return openStoreDatabase({ dir, path, now, readonly: opts.readonly === true }, opts, (db, lock) => new SessionStore(db, path, now, lock, build));
  }

  // ---- the durable log (event-log.ts) -----------------------------------------------------

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
    // The room message it came from is recorded in the same transaction.
    return this.events.append(sessionId, input, at, heard ? () => this.heard.record(heard) : undefined);
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

  /** The archive id of the newest message taken in from the room that had one. */
  lastStanzaId(room: string): string | undefined {
    return this.heard.newestStanzaId(room);
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

  // ---- stored values (stored-values.ts) ---------------------------------------------------

  /**
   * Notes that `value` of the session (a text, or an object kept as JSON) is already stored
   * as the blob `ref` (the model worker wrote it, see blobs.ts): events and the archive
   * refer to it from now on instead of holding it.
   */
  adoptBlob(sessionId: SessionId, value: string | object, ref: BlobRef): void {
    this.values.adopt(sessionId, value, ref);
  }

  /** A blob's text (store/blobs.ts), e.g. a formal model's JSON by the digest in its summary; undefined when it is missing. */
  blobText(sessionId: SessionId, digest: string): string | undefined {
    return this.values.blobText(sessionId, digest);
  }

  /** Every event of the sessions not archived, in the order they were appended: what replay feeds the core. */
  liveEvents(): StoredEvent[] {
    return this.events.live();
  }

  /** Every event of one session, archived or not, in order. */
  eventsOf(sessionId: SessionId): StoredEvent[] {
    return this.events.of(sessionId);
  }

  /** True if the id was ever used (logged or archived): new session ids must avoid it. */
  knows(sessionId: SessionId): boolean {
    return this.events.knows(sessionId);
  }

  // ---- the sent-record (sent-log.ts) ------------------------------------------------------

  /** Notes that a stanza produced by event `eventSeq` was handed to the connection, with this store's build unless the record names one. */
  recordSent(record: SentRecord): void {
    this.writable();
    this.sent.record(record);
  }

  /** What was recorded as sent for one session, in the order it was sent; `decisive` and `build` only where the row has them. */
  sentOf(sessionId: SessionId): SentRecord[] {
    return this.sent.of(sessionId);
  }

  /** The builds that logged the session's inputs, in the order each first did, with how many each logged; `undefined`: before build ids were kept. */
  inputBuildsOf(sessionId: SessionId): BuildCount[] {
    return this.events.inputBuildsOf(sessionId);
  }

  /** Events with a sequence number above this have their sends recorded; older ones predate the record. */
  sentTrackedAfter(): number {
    return this.sent.trackedAfterSeq();
  }

  /** Every session id that has events, archived or live (for checks over a whole store). */
  sessionIds(): SessionId[] {
    return this.events.sessionIds();
  }

  // ---- the archive (archived-sessions.ts) -------------------------------------------------

  /**
   * Stores a completed session and takes its events out of replay, in one transaction: a
   * crash leaves it either live (rebuilt, then archived again) or archived, never lost.
   * Accepts the Session itself or a prepared record; archiving the same id again replaces it.
   */
  archive(sessionOrRecord: Session | ArchivedSession): void {
    this.writable();
    this.archived.put("session" in sessionOrRecord ? sessionOrRecord : archiveRecordOf(sessionOrRecord));
  }

  /** The final state of an archived session (what mfr-status shows), or undefined. */
  archivedSession(id: SessionId): Session | undefined {
    return this.archivedRecord(id)?.session;
  }

  /** An archived session with its summary, its stored texts read back from its events; undefined if not archived. */
  archivedRecord(id: SessionId): ArchivedSession | undefined {
    return this.archived.record(id);
  }

  /** Newest first by start (as mfr-list shows them); pass `before` to page on. A bare number is the limit. */
  listArchived(options: ListArchivedOptions | number): ArchivedSummary[] {
    return this.archived.list(options);
  }

  /** How many sessions the archive holds (pruned ones are gone). */
  countArchived(): number {
    return this.archived.count();
  }

  // ---- artefacts (artefacts.ts) -----------------------------------------------------------

  /** Keeps something export needs (the merged TriG, a validation report); all are kept, in order. */
  saveArtefact(sessionId: SessionId, kind: ArtefactKind, content: string): number {
    this.writable();
    return this.artefactRows.add(sessionId, kind, this.now(), content);
  }

  /** Keeps an artefact whose content the model worker already stored as the blob `digest` (a text). */
  saveArtefactBlob(sessionId: SessionId, kind: ArtefactKind, digest: string): number {
    this.writable();
    return this.artefactRows.addBlob(sessionId, kind, this.now(), digest);
  }

  /** The session's artefacts, oldest first; only those of one kind if given. */
  artefacts(sessionId: SessionId, kind?: ArtefactKind): Artefact[] {
    return this.artefactRows.of(sessionId, kind);
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

  /** Why the store would not take the next input, in one line, or undefined when it would (write-probe.ts). */
  writeProblem(): string | undefined {
    return this.probe.problem(() => this.writable());
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
    return this.archived.prune({ cutoff, maxCount: maxCount ?? null });
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
}
