/**
 * The journal: durable storage of sessions, as the session host needs it. The host owns this
 * interface and a store implements it (store/session-store.ts, the SQLite one), so a second
 * store is one new module that implements it, not edits through the host.
 *
 * The rule it keeps: an input is appended before it is applied, and a completed session is
 * archived and leaves memory. Without a journal, sessions live in memory only
 * (host/journal-keeper.ts).
 */
import type { Session } from "../session/types.js";
import type { Input } from "../session/step-io.js";
import type { BlobRef } from "./journal-records.js";
import type { HeardRecord } from "./heard.js";
import type { SentRecord } from "./journal-records.js";

/** A session that has left memory: enough to list it and show its status. */
export interface ArchivedSummary {
  id: string;
  problem: string;
  status: string;
  startedAt: number;
  completedAt: number;
}

/**
 * Durable storage of sessions (the SQLite store implements it). Inputs are appended before
 * they are applied; completed sessions are archived and leave memory.
 */
export interface SessionJournal {
  /**
   * Returns the input's sequence number in the log. `heard`: the room message the input came
   * from, recorded in the same transaction (host/heard.ts), so it is never taken in twice.
   *
   * A store whose writes cross a network (PostgreSQL: store/pg/pg-room-store.ts) returns a
   * Promise that resolves once the input is durable; appends resolve in call order, and the
   * host carries out the step's effects only then (SessionHost.apply). Such a store notes
   * the message as heard at once, so it is not taken in twice while the write is on its way.
   */
  append(sessionId: string, input: Input, at: number, heard?: HeardRecord): number | Promise<number>;
  /** Notes that a stanza of the step of `eventSeq` was handed to the connection. */
  recordSent(record: SentRecord): void;
  /** What was recorded as handed to the connection for one session, to find a crash's unsent tail. */
  sentOf(sessionId: string): SentRecord[];
  /** Events at or below this were logged before sends were recorded. */
  sentTrackedAfter(): number;
  /** Keeps a completed session in the archive (it then leaves the log of live sessions). */
  archive(session: Session): void;
  /** Keeps a text export needs (the validation report) beside the session. */
  saveArtefact(sessionId: string, kind: string, content: string): void;
  /**
   * Notes that a value of the session (a text, or an object kept as JSON) is already stored
   * as a blob, written by the model worker: the log and the archive refer to it instead of
   * writing it again on the main thread. Optional: without it, values are written inline.
   */
  adoptBlob?(sessionId: string, value: string | object, ref: BlobRef): void;
  /** Keeps an artefact whose text the model worker already stored as the blob `digest`. */
  saveArtefactBlob?(sessionId: string, kind: string, digest: string): void;
  /** A completed session as archived, for its status and for answers to late input. */
  archivedSession(id: string): Session | undefined;
  /** The newest archived sessions first, at most `limit`. */
  listArchived(limit: number): ArchivedSummary[];
  /** Whether a session id was ever used (live or archived). */
  knows(id: string): boolean;
}
