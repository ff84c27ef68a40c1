/**
 * The archive of SessionStore as records, on one open database: a completed session stored
 * (its events taken out of replay in the same transaction, archive-statements.ts), read back
 * whole with the texts it refers to in its own events, listed newest first, counted and
 * pruned. The rules kept here: only a completion status is archived, and a row whose
 * status is none reads as a corrupt store. Writes are the caller's to guard.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Session, SessionId } from "../session/types.js";
import { archivedForm, fromArchivedForm, isCompletionStatus, type ArchivedSession, type ArchivedSummary, type ListArchivedOptions } from "../host/journal-records.js";
import { corrupted } from "./errors.js";
import { prepareArchive, type ArchivedRow, type PruneBounds, type SummaryRow } from "./archive-statements.js";
import type { StoredValues } from "./stored-values.js";
import type { EventLog } from "./event-log.js";

/** The archived sessions of one store (see the header). */
export class ArchivedSessions {
  private readonly statements: ReturnType<typeof prepareArchive>;

  constructor(
    db: BetterSqlite3.Database,
    /** The database file, for messages. */
    private readonly path: string,
    private readonly values: StoredValues,
    /** Where an archived session's texts are read back from. */
    private readonly events: EventLog,
    /** The clock an archive is stamped with. */
    private readonly now: () => number,
  ) {
    this.statements = prepareArchive(db);
  }

  /** Stores a completed session (stamped now) and takes its events out of replay, in one transaction; the same id again replaces it. */
  put(record: ArchivedSession): void {
    if (!isCompletionStatus(record.status)) throw new TypeError(`archive: unknown completion status ${String(record.status)}`);
    this.statements.archiveTx({
      id: record.id,
      problem: record.problem,
      status: record.status,
      startedAt: record.startedAt,
      completedAt: record.completedAt,
      archivedAt: this.now(),
      session: this.values.encode(record.id, archivedForm(record.session), { eventTexts: true }),
    });
    this.values.forget(record.id);
  }

  /** An archived session with its summary; undefined if not archived. */
  record(id: SessionId): ArchivedSession | undefined {
    const row = this.statements.archived.get(id) as ArchivedRow | undefined;
    if (!row) return undefined;
    // The texts it refers to are in its own events; each event is read once.
    const session = this.values.decode<Session>(row.id, row.session, `archived session ${row.id}`, false, this.events.inputReader());
    return { ...this.summaryOf(row), session: fromArchivedForm(session) };
  }

  /** Newest first by start; pass `before` to page on. A bare number is the limit. */
  list(options: ListArchivedOptions | number): ArchivedSummary[] {
    const { limit, before } = typeof options === "number" ? { limit: options, before: undefined } : options;
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`listArchived: limit must be a whole number ≥ 0, got ${limit}`);
    const rows = this.statements.listArchived.all({ limit, before: before ?? null }) as SummaryRow[];
    return rows.map((row) => this.summaryOf(row));
  }

  /** How many sessions the archive holds. */
  count(): number {
    return (this.statements.countArchived.get() as { n: number }).n;
  }

  /** Deletes the archived sessions past the bounds, with everything of theirs; returns how many went. */
  prune(bounds: PruneBounds): number {
    return this.statements.pruneTx(bounds);
  }

  private summaryOf(row: SummaryRow): ArchivedSummary {
    if (!isCompletionStatus(row.status)) throw corrupted(this.path, `archived session ${row.id} has unknown status ${row.status}`);
    return { id: row.id, problem: row.problem, status: row.status, startedAt: row.started_at, completedAt: row.completed_at };
  }
}
