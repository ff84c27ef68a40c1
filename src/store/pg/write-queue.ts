/**
 * The one queue through which a room unit's store (pg-room-store.ts) writes to the shared
 * PostgreSQL database: writes run in call order, in transactions fenced by the lease's
 * epoch, and what is queued while a transaction is under way is committed together in the
 * next (a group commit). The rule kept here: the first write that fails (fenced out, or the
 * database out of reach) stops the queue for good: every later write is refused with that
 * failure, and the owner is told once, to give the room up.
 */
import type pg from "pg";
import type { Logger } from "pino";
import type { WriteOp } from "./pg-journal.js";
import { withConnection } from "./pool.js";
import { withFence } from "./room-lease.js";

/** Most writes committed in one transaction. */
const MAX_BATCH = 200;

/** A write waiting for its transaction. */
interface PendingWrite {
  readonly what: string;
  readonly op: WriteOp<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** Where a queue writes, under which lease, and whom it tells of its failure. */
export interface FencedWriteQueueOptions {
  readonly pool: pg.Pool;
  /** The unit's lease key: its primary room's JID. */
  readonly unit: string;
  /** The epoch of this instance's lease on the unit; every transaction is fenced by it. */
  readonly epoch: number;
  readonly log: Logger;
  /** The first write that failed. Called once. */
  readonly onFailure: (err: unknown) => void;
  /** Called inside each fenced transaction, after its writes and before its commit, with their names (a test hook: src/fleet/stop-inside-write.ts). */
  readonly insideWrite?: ((writes: readonly string[]) => void) | undefined;
}

/** A room unit's writes, in order, group-committed under its lease (see the module comment). */
export class FencedWriteQueue {
  private readonly pool: pg.Pool;
  private readonly unit: string;
  private readonly epoch: number;
  private readonly log: Logger;
  private readonly onFailure: (err: unknown) => void;
  private readonly insideWrite: ((writes: readonly string[]) => void) | undefined;
  /** Writes not yet in a transaction, in call order. */
  private readonly pending: PendingWrite[] = [];
  /** The flush under way, if any. */
  private flushing: Promise<void> | undefined;
  private firstFailure: unknown;
  private hasFailed = false;
  private closed = false;

  constructor(options: FencedWriteQueueOptions) {
    this.pool = options.pool;
    this.unit = options.unit;
    this.epoch = options.epoch;
    this.log = options.log;
    this.onFailure = options.onFailure;
    this.insideWrite = options.insideWrite;
  }

  /** Whether a write has failed (the queue takes no more). */
  get failed(): boolean {
    return this.hasFailed;
  }

  /** What the first failed write failed with; undefined while none has. */
  get failure(): unknown {
    return this.firstFailure;
  }

  /**
   * Queues `op`; it runs after every write queued before it, and resolves with its result
   * once committed. Writes queued while a transaction is under way go together into the
   * next one (a group commit, at most MAX_BATCH): one round of fence and commit for what a
   * burst asks for — a catch-up of hundreds of messages, a session's steps — instead of one
   * per write, with no wait added to a write that finds the queue idle. After the first
   * failure no write runs: each is refused with that failure, and the owner was told once.
   */
  write<T>(what: string, op: WriteOp<T>): Promise<T> {
    // Refused when asked for after `close`; a write queued before it still runs.
    if (this.closed) return Promise.reject(new Error(`the store of room ${this.unit} is closed`));
    if (this.hasFailed) return Promise.reject(this.failureError());
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ what, op, resolve: resolve as (value: unknown) => void, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Resolves once every write queued so far has settled. */
  async drained(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Takes no more writes; resolves once those queued before it have settled. */
  async close(): Promise<void> {
    this.closed = true;
    await this.drained();
  }

  /** Commits the pending writes, a batch at a time, in order, until none are left. */
  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        if (this.hasFailed) {
          for (const write of batch) write.reject(this.failureError());
          continue;
        }
        try {
          const results = await this.fenced(async (tx) => {
            const out: unknown[] = [];
            for (const write of batch) out.push(await write.op(tx));
            this.insideWrite?.(batch.map((write) => write.what));
            return out;
          });
          batch.forEach((write, index) => write.resolve(results[index]));
        } catch (err) {
          this.fail(err, [...new Set(batch.map((write) => write.what))]);
          for (const write of batch) write.reject(err);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** The first failure: noted, logged and told to the owner, once. */
  private fail(err: unknown, writes: string[]): void {
    if (this.hasFailed) return;
    this.hasFailed = true;
    this.firstFailure = err;
    this.log.error({ err, room: this.unit, epoch: this.epoch, writes }, "a write to the shared database failed; giving the room up");
    this.onFailure(err);
  }

  private failureError(): Error {
    return this.firstFailure instanceof Error ? this.firstFailure : new Error(String(this.firstFailure));
  }

  private fenced<T>(fn: (tx: pg.ClientBase) => Promise<T>): Promise<T> {
    return withConnection(this.pool, (client) => withFence(client, this.unit, this.epoch, fn));
  }
}
