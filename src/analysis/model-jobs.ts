/**
 * The jobs the model workers take and the answers they give, as the host asks for them
 * (host/model-service.ts): typed here, below both, so the host depends on the jobs and not on
 * the threads that run them (model-workers/model-worker.ts).
 */
import type { Verification } from "../formal/index.js";
import type { SplitKey } from "../protocol/split-memo.js";
import type { AnalysedModel, ContributionCheck, Stored, StoredAnalysis } from "./worker-protocol.js";

/** Why a job failed: `timedOut` when it ran past its budget (typed, so nobody matches text). */
export type JobFailure = { ok: false; error: string; timedOut?: true };
/** The answer to `analyse`: the analysis and the digests of what the worker stored, or why it failed. */
export type AnalyseAnswer = ({ ok: true; analysis: AnalysedModel } & Stored<StoredAnalysis>) | JobFailure;
/** The answer to `check`: the contribution's check and the digest of its stored text, or why it failed. */
export type CheckAnswer = ({ ok: true; check: ContributionCheck } & Stored<string>) | JobFailure;
/** The answer to `verify`: the plan's verdict, or why it could not be had (a failed job is not an invalid plan). */
export type VerifyAnswer = { ok: true; verification: Verification } | JobFailure;

/** When a job is asked for: which jobs it must keep order with, and who hears when it starts. */
export interface JobOptions {
  /** Jobs with the same key run one at a time, in the order they were asked for (a session id). */
  key?: string;
  /** Called once, when a thread begins the job (its time budget starts then). */
  onStart?: () => void;
  /** Called instead of the pool's own listener when the job is refused for a full queue (a shared pool's user counts its own). */
  onQueueFull?: () => void;
}

/** An analysis may also split the model it makes, for the part sizes it will be sent in. */
export interface AnalyseOptions extends JobOptions {
  splits?: SplitKey[];
}
