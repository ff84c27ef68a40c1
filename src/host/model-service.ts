/**
 * The model work the host asks of the model workers: contribution checks, analyses and plan
 * checks. ModelWorker (a pool of worker threads) provides it; a fake may, in tests.
 *
 * The rule it keeps: jobs of one session are asked for with the session id as `key`, so they
 * keep their order.
 */
import type { AnalyseAnswer, AnalyseOptions, CheckAnswer, JobOptions, VerifyAnswer } from "../analysis/model-jobs.js";
import type { CheckRequest, VerifyRequest } from "../analysis/worker-protocol.js";
import type { AnalysisJob } from "../analysis/analysis.js";

/**
 * The model work the host needs; ModelWorker (a pool of worker threads) provides it (a fake
 * may, in tests). Jobs of one session are asked for with the session id as `key` (they keep
 * their order); `onStart` is called when a worker begins a job, which a fake may never do.
 */
export interface ModelService {
  /** Checks one contribution (or one part of one) alone: syntax, limits, what it adds. */
  check(request: CheckRequest, options?: JobOptions): Promise<CheckAnswer>;
  /** Merges, validates and summarises a session's model. */
  analyse(job: AnalysisJob, options?: AnalyseOptions): Promise<AnalyseAnswer>;
  /** Checks a proposal's plan against the session's formal model, which only the workers hold. */
  verify(request: VerifyRequest, options?: JobOptions): Promise<VerifyAnswer>;
}

/** The pool that does the model work, as the coordinator that owns it watches, warms and closes it. */
export interface ModelPool extends ModelService {
  /** Threads in the pool, at most. */
  readonly workers: number;
  /** Jobs waiting for a thread (a gauge on /metrics). */
  readonly queued: number;
  /** Starts the threads now, so the first contributions do not wait for them to load the shapes. */
  warmUp(): void;
  /** Ends the threads; jobs still asked for fail. */
  close(): Promise<void>;
}
