/**
 * The model pool's waiting jobs (model-worker.ts): one line per rank, and per key the jobs of
 * that key in the order they were asked for. The next job is found without walking the whole
 * line: in a burst of sessions thousands of checks wait, and a walk per job handed out was
 * quadratic.
 */

/** Lower runs first (model-worker.ts, `rankOf`). */
export type Rank = 0 | 1 | 2;

/** What the queue needs of a job: its rank, and its key (jobs of one session share one, so they run in order). */
export interface Queued {
  rank: Rank;
  /** Jobs with the same key run one at a time, in the order they were asked for. */
  key: string | undefined;
}

/**
 * The waiting jobs of the model pool: lower rank first, oldest first within a rank, and never
 * two jobs of one key at once nor out of order. Owned by ModelWorker; not thread-safe (one event loop).
 */
export class JobQueue<J extends Queued> {
  private readonly lines: [J[], J[], J[]] = [[], [], []];
  private readonly byKey = new Map<string, J[]>();
  private count = 0;

  /** How many jobs wait, of every rank (running jobs are not counted: they were taken out). */
  get length(): number {
    return this.count;
  }

  /** Queues a job behind every waiting job of its rank and, if it has a key, behind the earlier jobs of that key. */
  push(job: J): void {
    this.lines[job.rank].push(job);
    if (job.key !== undefined) {
      const own = this.byKey.get(job.key);
      if (own === undefined) this.byKey.set(job.key, [job]);
      else own.push(job);
    }
    this.count++;
  }

  /**
   * The next job to run: the oldest of the lowest rank whose key has no job running
   * (`running`) and no earlier job waiting. Undefined when every waiting job must wait.
   */
  next(running: ReadonlySet<string>): J | undefined {
    const at = this.find(running);
    return at === undefined ? undefined : (this.lines[at.rank][at.index] as J);
  }

  /** Takes out `next(running)`. */
  take(running: ReadonlySet<string>): J | undefined {
    const at = this.find(running);
    if (at === undefined) return undefined;
    const [job] = this.lines[at.rank].splice(at.index, 1) as [J];
    this.forget(job);
    return job;
  }

  private find(running: ReadonlySet<string>): { rank: Rank; index: number } | undefined {
    for (const rank of [0, 1, 2] as const) {
      const line = this.lines[rank];
      for (let index = 0; index < line.length; index++) {
        const job = line[index] as J;
        if (job.key !== undefined && (running.has(job.key) || this.byKey.get(job.key)?.[0] !== job)) continue;
        return { rank, index };
      }
    }
    return undefined;
  }

  /** Takes out every waiting job. */
  drain(): J[] {
    const all = this.lines.flatMap((line) => line.splice(0));
    this.byKey.clear();
    this.count = 0;
    return all;
  }

  private forget(job: J): void {
    this.count--;
    if (job.key === undefined) return;
    const own = this.byKey.get(job.key);
    own?.shift();
    if (own?.length === 0) this.byKey.delete(job.key);
  }
}
