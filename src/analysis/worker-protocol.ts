/**
 * Messages between ModelWorker (main thread) and analysis-worker.ts (the worker thread).
 * Plain data only: everything crosses the thread boundary by structured clone.
 */
import type { FormalSummary, Verification } from "../formal/index.js";
import type { ClaimedPlan } from "../session/plan-check.js";
import type { AnalysisJob, ModelAnalysis } from "./analysis.js";
import type { ItemCounts } from "../rdf/merge.js";
import type { ParseError } from "../rdf/parse.js";
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

/**
 * A model analysis as it crosses to the main thread. The formal model stays in the worker
 * that read it (and in the store): copying its object graph to the main thread took 119 ms
 * at 100k triples. Only its summary and digest go; plans are checked in a worker (`verify`).
 */
export interface AnalysedModel extends Omit<ModelAnalysis, "formal"> {
  formal: FormalSummary;
  /**
   * The formal model's JSON, only when the worker could not store it (no store, or the write
   * failed): the main thread keeps the text (a string is copied between threads cheaply, and
   * never parsed there) and sends it with the verify jobs of the session.
   */
  formalJson?: string;
}

/** One proposal's plan to check against the session's formal model (session/plan-check.ts). */
export interface VerifyRequest {
  sessionId: string;
  /** The formal model's digest (`FormalSummary.digest`). */
  digest: string;
  claim: ClaimedPlan;
  /**
   * The formal model's JSON, when the main thread holds it (see `AnalysedModel.formalJson`):
   * read only if this worker has no copy of the model. Without it, a worker without a copy
   * reads the model from the store.
   */
  formalJson?: string;
}

/** Digests of what an analysis stored as blobs (store/blobs.ts): the journal refers to them. */
export interface StoredAnalysis {
  /** Only for a model large enough to be kept as a blob (store/blobs.ts, `worthABlob`). */
  modelTurtle?: string;
  /** The formal model as JSON; only a model with a formal part (plans are checked against no other). */
  formal?: string;
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

/** A job as posted to a model thread; `id` pairs it with its reply. Plain data: it is copied between threads. */
export type WorkerRequest =
  /** `splits`: the part sizes the model will be sent in, split here rather than on the main thread. */
  | { id: number; kind: "analyse"; job: AnalysisJob; splits?: SplitKey[] }
  | ({ id: number; kind: "check" } & CheckRequest)
  | ({ id: number; kind: "verify" } & VerifyRequest);

/** The pool asks for the next message of a reply in pieces (reply-pieces.ts) once it has read one. */
export interface NextPiece {
  kind: "next-piece";
  id: number;
}

/**
 * A model thread's messages to the pool: `ready` (or `startup-failed`) once after loading,
 * then one reply per request, paired by `id`; a large analysis reply is preceded by its
 * pieces (reply-pieces.ts), which are not WorkerReplies.
 */
export type WorkerReply =
  | { kind: "ready" }
  | { kind: "startup-failed"; error: string }
  | ({ id: number; kind: "analysed"; analysis: AnalysedModel } & Stored<StoredAnalysis>)
  | ({ id: number; kind: "checked"; check: ContributionCheck } & Stored<string>)
  | { id: number; kind: "verified"; verification: Verification }
  | { id: number; kind: "failed"; error: string };

/** What the worker needs at start. */
export interface WorkerSetup {
  shapesPath: string;
  /** The coordinator's store file, when it has one: large texts are written there once, from the worker. */
  storePath?: string;
}
