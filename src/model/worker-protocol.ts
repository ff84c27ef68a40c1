/**
 * Messages between ModelWorker (main thread) and analysis-worker.ts (the worker thread).
 * Plain data only: everything crosses the thread boundary by structured clone.
 */
import type { AnalysisJob, ModelAnalysis } from "./analysis.js";
import type { ItemCounts } from "./merge.js";
import type { ParseError } from "./parse.js";
import type { SplitKey } from "../protocol/split-memo.js";

/** One contribution to check on its own, as it arrives (before any merge). */
export interface CheckRequest {
  turtle: string;
  baseIri: string;
  graphIri: string;
  maxTriples: number;
  /**
   * Largest statement, in wire bytes (see protocol/model-parts.ts), that could still be sent
   * to the solvers in a model part; a contribution with a larger one is refused on arrival.
   */
  maxStatementBytes: number;
  /** Base for the IRIs blank nodes become when a model is split (how statements are measured). */
  skolemBase: string;
  /**
   * The session to keep the Turtle for: when the check passes and the worker has the store,
   * it stores the text as a blob of this session (store/blobs.ts) and answers its digest.
   */
  keepFor?: string;
}

/** Digests of what an analysis stored as blobs (store/blobs.ts): the journal refers to them. */
export interface StoredAnalysis {
  modelTurtle: string;
  modelTrig: string;
  /** The formal model as JSON. */
  formal: string;
}

/** What the worker stored for a job, or why it could not (the job's result stands either way). */
export interface Stored<T> {
  stored?: T;
  storeError?: string;
}

/** A parse outcome without the quads (they stay in the worker), plus what it would add. */
export type ContributionCheck =
  | { ok: true; tripleCount: number; counts: ItemCounts }
  | { ok: false; error: ParseError };

export type WorkerRequest =
  /** `splits`: the part sizes the model will be sent in, split here rather than on the main thread. */
  | { id: number; kind: "analyse"; job: AnalysisJob; splits?: SplitKey[] }
  | ({ id: number; kind: "check" } & CheckRequest);

export type WorkerReply =
  | { kind: "ready" }
  | { kind: "startup-failed"; error: string }
  | ({ id: number; kind: "analysed"; analysis: ModelAnalysis } & Stored<StoredAnalysis>)
  | ({ id: number; kind: "checked"; check: ContributionCheck } & Stored<string>)
  | { id: number; kind: "failed"; error: string };

/** What the worker needs at start. */
export interface WorkerSetup {
  shapesPath: string;
  /** The coordinator's store file, when it has one: large texts are written there once, from the worker. */
  storePath?: string;
}
