/**
 * One coordinator's share of a model worker pool that several coordinators use: a fleet
 * instance runs a coordinator per room it owns, and a pool of threads per room would grow
 * with the rooms (each thread loads the shapes and keeps a heap of its own) rather than with
 * the work. The share passes its jobs to the common pool, counts its own refusals, and leaves
 * the pool running when its coordinator stops: the pool's owner closes it.
 */
import type { AnalyseAnswer, AnalyseOptions, CheckAnswer, JobOptions, VerifyAnswer } from "../analysis/model-jobs.js";
import type { AnalysisJob } from "../analysis/analysis.js";
import type { CheckRequest, VerifyRequest } from "../analysis/worker-protocol.js";
import type { ModelPool } from "../host/model-service.js";

/** See the module comment. */
export class ModelShare implements ModelPool {
  private closed = false;

  /** `onQueueFull` hears each of this share's jobs refused for the pool's full queue. */
  constructor(
    private readonly pool: ModelPool,
    private readonly onQueueFull: () => void,
  ) {}

  /** The common pool's threads, at most. */
  get workers(): number {
    return this.pool.workers;
  }

  /** Jobs waiting in the common pool, of every share. */
  get queued(): number {
    return this.pool.queued;
  }

  warmUp(): void {
    this.pool.warmUp();
  }

  check(request: CheckRequest, options: JobOptions = {}): Promise<CheckAnswer> {
    if (this.closed) return Promise.resolve({ ok: false, error: "the model worker was closed" });
    return this.pool.check(request, { ...options, onQueueFull: this.onQueueFull });
  }

  analyse(job: AnalysisJob, options: AnalyseOptions = {}): Promise<AnalyseAnswer> {
    if (this.closed) return Promise.resolve({ ok: false, error: "the model worker was closed" });
    return this.pool.analyse(job, { ...options, onQueueFull: this.onQueueFull });
  }

  verify(request: VerifyRequest, options: JobOptions = {}): Promise<VerifyAnswer> {
    if (this.closed) return Promise.resolve({ ok: false, error: "the model worker was closed" });
    return this.pool.verify(request, { ...options, onQueueFull: this.onQueueFull });
  }

  /** This coordinator asks for nothing more; the common pool and the other shares' jobs go on. */
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
