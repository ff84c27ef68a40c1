/**
 * The store as the coordinator uses it, whichever it is: the embedded SQLite store
 * (store/session-store.ts) or one room unit's part of the shared PostgreSQL database
 * (store/pg/pg-room-store.ts). The host's journal, the heard log, agent evidence, the
 * restore, the health probe and the pruning. Declared here, below both stores, so that the
 * host and its retention depend on what a store does, not on which one it is.
 */
import type { EvidenceStore } from "../agent-choice/evidence-batch.js";
import type { HeardLog } from "./heard.js";
import type { SessionJournal } from "./journal.js";
import type { PruneOptions, StoredEvent } from "./journal-records.js";

/** What the coordinator needs of its durable store. */
export interface CoordinatorStore extends SessionJournal, HeardLog, EvidenceStore {
  /** The inputs of the sessions not yet archived, in log order: what the restore replays. */
  liveEvents(): StoredEvent[];
  /** True when the store takes no writes (a second process beside a running coordinator). */
  readonly isReadonly: boolean;
  /** Why the store would not take the next input, in one line, or undefined when it would. */
  writeProblem(): string | undefined;
  /** Deletes archived sessions past the retention bounds; how many went. */
  prune(options: PruneOptions): number | Promise<number>;
}
