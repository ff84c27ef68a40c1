/**
 * The store as the coordinator uses it, whichever it is: the embedded SQLite store
 * (store/session-store.ts) or one room unit's part of the shared PostgreSQL database
 * (store/pg/pg-room-store.ts). The host's journal, the heard log, agent evidence, the
 * restore, the health probe and the pruning; and for SQLite only, the file the model
 * workers store blobs in and the store the web view reads the archive from.
 */
import type { EvidenceStore } from "../agent-choice/evidence-batch.js";
import type { HeardLog } from "../host/heard.js";
import type { SessionJournal } from "../host/journal.js";
import { SessionStore } from "../store/index.js";
import type { PruneOptions, StoredEvent } from "../host/journal-records.js";

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

/** The embedded store, when that is what the coordinator runs on: the model workers' blob file and the web view's archive. */
export function embeddedStore(store: CoordinatorStore | undefined): SessionStore | undefined {
  return store instanceof SessionStore ? store : undefined;
}
