/**
 * Agent evidence written in batches. Evidence changes with every protocol message (a count
 * and the time last seen); written one change at a time it was ten SQLite commits per
 * session, each putting two 4 KiB pages into the WAL and later through a checkpoint
 * (bench/load.ts). Rows are kept as the catalog last held them and written together, in one
 * transaction, at most once per `delayMs` and when the coordinator stops.
 *
 * What a kill -9 can lose is the last `delayMs` of evidence: counts and last-seen times a
 * little behind, or an agent first seen in that second. Evidence is learned again from the
 * agent's next message, so nothing a session needs depends on it.
 */
import type { Logger } from "pino";
import type { EvidenceJournal, EvidenceRow } from "./evidence.js";

/** Where batched rows go: the store (store/session-store.ts). */
export interface EvidenceStore {
  loadEvidence(): EvidenceRow[];
  /** Writes the rows in one transaction. */
  saveEvidenceRows(rows: readonly EvidenceRow[]): void;
}

/** How long a change may wait before it is written. */
export const EVIDENCE_FLUSH_MS = 1000;

export class BatchedEvidence implements EvidenceJournal {
  /** The newest row per identity and kind, not yet written. */
  private readonly pending = new Map<string, EvidenceRow>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: EvidenceStore,
    private readonly log: Logger,
    private readonly delayMs = EVIDENCE_FLUSH_MS,
  ) {}

  loadEvidence(): EvidenceRow[] {
    return this.store.loadEvidence();
  }

  saveEvidence(row: EvidenceRow): void {
    this.pending.set(`${row.identity}\u0000${row.kind}`, row);
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.flush(), this.delayMs);
    // Pending evidence never keeps the process alive; stop() flushes it.
    this.timer.unref();
  }

  /** Rows waiting to be written (for tests). */
  get waiting(): number {
    return this.pending.size;
  }

  /**
   * Writes what is pending now. A failed write (disk full, store closed) keeps the rows, newer
   * changes replace them, and the next change tries again.
   */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    try {
      // Synchronous: nothing can change `pending` while the rows are written.
      this.store.saveEvidenceRows(rows);
      this.pending.clear();
    } catch (err) {
      this.log.error({ err, rows: rows.length }, "agent evidence could not be saved; kept for the next try");
    }
  }
}
