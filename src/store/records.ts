/**
 * The shapes that cross the store's edge: what goes in, what comes back out.
 */
import type { CompletionStatus, Input, Session, SessionId } from "../session/types.js";

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
  digest: string;
  what: string;
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

export interface Artefact {
  id: number;
  sessionId: SessionId;
  kind: ArtefactKind;
  at: number;
  content: string;
}

export interface ListArchivedOptions {
  limit: number;
  /** Only sessions started strictly before this instant (ms): the next page after the oldest one shown. */
  before?: number;
}

export interface PruneOptions {
  /** Archived sessions completed longer ago than this go. */
  maxAgeMs?: number;
  /** Beyond the newest this many archived sessions (by completion), the rest go. */
  maxCount?: number;
  now: number;
}

const STATUSES: ReadonlySet<string> = new Set<CompletionStatus>(["solved", "failed", "timed-out", "cancelled"]);

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
