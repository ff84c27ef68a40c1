/**
 * The host's side of the journal (host/journal.ts): what it writes there — each input
 * with the room message it came from, each sent stanza, the model for export, completed
 * sessions — and what it reads back: the log replayed at restore, the unsent tail, the archive.
 *
 * The rules it keeps: an input is logged before it is applied, with its heard keys in the
 * same append, so a message is never taken in twice; a journal that fails is loud but never
 * stops a session. Without a journal, sessions live in memory only: nothing is logged, and
 * of the completed sessions the newest are kept (session-table.ts, COMPLETED_KEPT).
 */
import type { Logger } from "pino";
import type { AnalyseAnswer } from "../analysis/model-jobs.js";
import { forgetSplits } from "../protocol/split-memo.js";
import type { Session } from "../session/types.js";
import type { Input, Sessions } from "../session/step-io.js";
import type { BlobRef } from "./journal-records.js";
import type { SentRecord, StoredEvent } from "./journal-records.js";
import type { Heard } from "./heard.js";
import type { RenderContext } from "./outgoing.js";
import { replayWithSends, unsentTail, type ExpectedSend } from "./sent-check.js";
import type { ArchivedSummary, SessionJournal } from "./journal.js";
import type { SentRecorder } from "./outbox.js";
import type { SessionTable } from "./session-table.js";

/** What a restore rebuilt from the log: the sessions, how many inputs were stepped, what a crash kept from going out. */
export interface Replayed {
  state: Sessions;
  applied: number;
  unsent: ExpectedSend[];
}

/** Writes to and reads from the journal, when there is one; without one, keeps sessions in memory only. */
export class JournalKeeper implements SentRecorder {
  constructor(
    private readonly journal: SessionJournal | undefined,
    private readonly table: SessionTable,
    private readonly log: Logger,
  ) {}

  /** Whether sent stanzas are recorded (there is a journal). */
  get tracksSends(): boolean {
    return this.journal !== undefined;
  }

  /**
   * Appends the input to the durable log, with the room message it came from (marked
   * recorded once it is in); returns its sequence number, or undefined without a journal or
   * when the write failed (logged; the session goes on). A journal whose writes cross a
   * network gives a Promise of the number instead, resolved once the input is durable.
   */
  append(input: Input, at: number, heard: Heard | undefined): number | Promise<number> | undefined {
    const journal = this.journal;
    if (!journal) return undefined;
    try {
      const seq = heard ? journal.append(input.sessionId, input, at, { room: heard.room, keys: heard.keys, at: heard.at }) : journal.append(input.sessionId, input, at);
      if (heard) heard.recorded = true;
      return seq;
    } catch (err) {
      this.log.error({ err, sessionId: input.sessionId, input: input.kind }, "could not write the input to the durable log");
      return undefined;
    }
  }

  /** Notes that the connection took a stanza; a failure is logged, never thrown. */
  recordSent(record: SentRecord): void {
    try {
      this.journal?.recordSent(record);
    } catch (err) {
      this.log.error({ err, sessionId: record.sessionId }, "could not record a sent message");
    }
  }

  /** Whether a session id was ever used, as far as the journal knows (without one, never). */
  knows(id: string): boolean {
    return this.journal?.knows(id) ?? false;
  }

  /** A completed session as archived. */
  archivedSession(id: string): Session | undefined {
    return this.journal?.archivedSession(id);
  }

  /** The newest archived sessions, at most `limit` (none without a journal). */
  listArchived(limit: number): ArchivedSummary[] {
    return this.journal?.listArchived(limit) ?? [];
  }

  /** How a text the model worker stored as a blob is adopted, when the journal can refer to blobs. */
  get blobAdopter(): ((sessionId: string, value: string | object, ref: BlobRef) => void) | undefined {
    return this.journal?.adoptBlob?.bind(this.journal);
  }

  /**
   * Keeps an analysed model for export: the model text by the blob the worker stored (the
   * analysis input and the archive refer to it) and the validation report. A failure is a
   * warning: export misses it, the session does not.
   */
  keepModel(sessionId: string, answer: Extract<AnalyseAnswer, { ok: true }>): void {
    const journal = this.journal;
    if (!journal) return;
    const { stored } = answer;
    if (answer.storeError !== undefined) this.log.warn({ sessionId, error: answer.storeError }, "the model worker could not store the model; it is logged inline");
    try {
      // Stored by the worker already: the analysis input and the archive refer to it. (The
      // formal model is stored too, but only its summary comes here; export reads it by digest.)
      if (stored?.modelTurtle !== undefined && journal.adoptBlob) journal.adoptBlob(sessionId, answer.analysis.modelTurtle, { digest: stored.modelTurtle, as: "text" });
      journal.saveArtefact(sessionId, "validation", JSON.stringify(answer.analysis.validation));
    } catch (err) {
      this.log.warn({ err, sessionId }, "could not save the model for export");
    }
  }

  /** A session completed: archived with a journal; without one, the oldest completed sessions are forgotten. */
  finished(sessionId: string): void {
    if (this.journal) this.archive(sessionId);
    else this.table.forgetOldCompleted();
  }

  /** Moves a completed session from memory to the archive; if that fails it stays in memory. */
  archive(sessionId: string): void {
    const session = this.table.get(sessionId);
    if (!session || !this.journal) return;
    try {
      this.journal.archive(session);
      if (session.model) forgetSplits(session.model.modelTurtle);
      this.table.remove(sessionId);
    } catch (err) {
      this.log.error({ err, sessionId }, "could not archive the session; it stays in memory");
    }
  }

  /**
   * Steps the logged inputs exactly as live stepped them (an input the core throws on is
   * skipped and logged) and finds, per session, the tail of stanzas the sent-record does
   * not have: what a crash kept from going out.
   */
  replay(events: Iterable<StoredEvent>, render: RenderContext): Replayed {
    const replayed = replayWithSends(events, render, (err, event) =>
      this.log.error({ err, input: event.input.kind, sessionId: event.sessionId, seq: event.seq }, "an event could not be replayed; skipped"),
    );
    const unsent: ExpectedSend[] = [];
    const journal = this.journal;
    if (journal) {
      const trackedAfter = journal.sentTrackedAfter();
      for (const id of Object.keys(replayed.state.byId)) {
        unsent.push(...unsentTail(replayed.expected.filter((e) => e.outgoing.sessionId === id), journal.sentOf(id), trackedAfter));
      }
    }
    return { state: replayed.state, applied: replayed.applied, unsent };
  }
}
