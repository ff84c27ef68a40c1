/**
 * The shapes that cross the store's edge: what goes in, what comes back out.
 */
import type { CompletionStatus, Session, SessionId } from "../session/types.js";
import type { Input } from "../session/step-io.js";

/** One logged input, as replay needs it: `at` is the `now` the core saw. */
export interface StoredEvent {
  seq: number;
  sessionId: SessionId;
  at: number;
  input: Input;
}

/** One stanza the coordinator handed to the connection, as the sent-record keeps it. */
export interface SentRecord {
  sessionId: SessionId;
  /** The logged input whose step produced it. */
  eventSeq: number;
  /** Its place among that step's stanzas (0-based). */
  position: number;
  at: number;
  /** The whole stanza's digest (host/outgoing.ts, `stanzaDigest`). */
  digest: string;
  what: string;
  /**
   * The digest of what the stanza decides, its wording left out (host/decisive-digest.ts);
   * absent in records written before it was kept (schema v8, PostgreSQL migration 5).
   */
  decisive?: string;
  /**
   * The build that sent it (build-info.ts): the store writes its own when the record has
   * none. Absent in records written before build ids were kept.
   */
  build?: string;
}

/** A build and how many of a session's inputs it logged; `build` undefined: inputs logged before build ids were kept. */
export interface BuildCount {
  build: string | undefined;
  inputs: number;
}

/** A completed session out of memory: enough to list it, and to age it out. */
export interface ArchivedSummary {
  id: SessionId;
  problem: string;
  status: CompletionStatus;
  startedAt: number;
  completedAt: number;
}

/** The summary plus the final session as the core left it (for mfr-status and export). */
export interface ArchivedSession extends ArchivedSummary {
  session: Session;
}

/** `model-trig` (the merged model, one named graph per contribution) and `validation` (a report, JSON) are what export reads. */
export type ArtefactKind = "model-trig" | "validation" | (string & NonNullable<unknown>);

/** One saved artefact as read back: `content` is the text, also when it was stored as a blob; `at` in ms since the epoch. */
export interface Artefact {
  id: number;
  sessionId: SessionId;
  kind: ArtefactKind;
  at: number;
  content: string;
}

/** A page of `listArchived`: at most `limit` (a whole number ≥ 0, else RangeError) sessions, newest first. */
export interface ListArchivedOptions {
  limit: number;
  /** Only sessions started strictly before this instant (ms): the next page after the oldest one shown. */
  before?: number;
}

/**
 * What `prune` deletes: archived sessions older than `maxAgeMs` or beyond the newest `maxCount`
 * (either or both; with neither, no archived session goes), judged at `now` (ms since the epoch).
 */
export interface PruneOptions {
  /** Archived sessions completed longer ago than this go. */
  maxAgeMs?: number;
  /** Beyond the newest this many archived sessions (by completion), the rest go. */
  maxCount?: number;
  now: number;
}

const STATUSES: ReadonlySet<string> = new Set<CompletionStatus>(["solved", "failed", "timed-out", "cancelled"]);

/**
 * Whether a value is one of the four completion statuses. Guards the archive both ways: a
 * record with another status is refused on writing, a row with one is reported as corrupt on reading.
 */
export function isCompletionStatus(value: unknown): value is CompletionStatus {
  return typeof value === "string" && STATUSES.has(value);
}

/** The archive record for a session the core has completed; refuses one still running. */
export function archiveRecordOf(session: Session): ArchivedSession {
  if (session.phase !== "complete" || session.completion === null) {
    throw new TypeError(`session ${session.id} is still ${session.phase}; only completed sessions are archived`);
  }
  return {
    id: session.id,
    problem: session.problem,
    status: session.completion.status,
    startedAt: session.startedAt,
    completedAt: session.completion.at,
    session,
  };
}

/**
 * Where an archived session's model is the analysis of its last validation (the same object,
 * as the core leaves it), the archive holds it once: `model` is stored as this mark and put
 * back on reading. Written out twice, the model's Turtle was a third of an archived session
 * and of the main thread's writing per session (bench/load.ts).
 */
const MODEL_IS_LAST_ANALYSIS = { $mfrModel: "last validation" } as const;

/** The session as the archive row holds it (see MODEL_IS_LAST_ANALYSIS). */
export function archivedForm(session: Session): Session | (Omit<Session, "model"> & { model: typeof MODEL_IS_LAST_ANALYSIS }) {
  const last = session.validations[session.validations.length - 1]?.outcome;
  return session.model !== null && last?.ok === true && last.analysis === session.model ? { ...session, model: MODEL_IS_LAST_ANALYSIS } : session;
}

/** The session from its archive row's form: the mark replaced by the last validation's analysis. */
export function fromArchivedForm(stored: Session): Session {
  const model: unknown = stored.model;
  if (typeof model !== "object" || model === null || (model as Record<string, unknown>).$mfrModel !== MODEL_IS_LAST_ANALYSIS.$mfrModel) return stored;
  const last = stored.validations[stored.validations.length - 1]?.outcome;
  return { ...stored, model: last?.ok === true ? last.analysis : null };
}

/** How a stored text is read back: as the text itself, or parsed as JSON. */
export type BlobForm = "text" | "json";

/** What an event or archived session holds in place of a large value (its text is in store/blobs.ts). */
export interface BlobRef {
  digest: string;
  as: BlobForm;
}

/** Below this many characters a text is cheaper to keep inline than to refer to. */
export const BLOB_MIN_CHARS = 64 * 1024;

/**
 * Whether a text is stored as a blob at all: smaller ones stay inline in their events, so
 * writing them as blobs too would be work nobody reads (in a burst of small sessions, six
 * blob writes per session of the model worker's time).
 */
export function worthABlob(text: string): boolean {
  return text.length >= BLOB_MIN_CHARS;
}
