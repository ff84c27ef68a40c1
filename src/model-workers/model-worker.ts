/**
 * Runs the model pipeline (parse, merge, validate) and the checks of plans on a pool of worker
 * threads, so that a large model never blocks the XMPP connection (which must keep answering
 * pings) and several sessions validate at once. Every failure — a job over its time budget, a crashed worker, a
 * closed pool, a full queue — comes back as `{ ok: false }`, never as a rejected promise.
 *
 * Jobs wait in line (job-queue.ts) and each thread runs one at a time, so a free thread takes
 * the next job: the least busy thread always gets the work. Small validations go first, then
 * checks of single contributions and of plans, then larger validations (see `rankOf`). Jobs with the same `key` (a session's) run
 * in the order they were asked for, never two at once, so a later analysis of a session never
 * overtakes an earlier one. A job's clock starts when a thread begins it (not while it waits
 * in line, nor while a fresh thread loads), and `onStart` says when that is, so the session's
 * validation deadline can count work, not waiting. A job over its budget gets its thread
 * terminated; a crashed thread fails only its own job; either is replaced on demand.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { AnalysisJob } from "../analysis/analysis.js";
import type { CheckRequest, NextPiece, Stored, VerifyRequest, WorkerReply, WorkerRequest, WorkerSetup } from "../analysis/worker-protocol.js";
import { ReplyPieces, type ReplyPiece } from "../analysis/reply-pieces.js";
import { JobQueue, type Rank } from "./job-queue.js";
import type { AnalyseAnswer, AnalyseOptions, CheckAnswer, JobFailure, JobOptions, VerifyAnswer } from "../analysis/model-jobs.js";

export type { AnalysedModel, CheckRequest, ContributionCheck, Stored, StoredAnalysis, VerifyRequest } from "../analysis/worker-protocol.js";
export type { AnalyseAnswer, AnalyseOptions, CheckAnswer, JobFailure, JobOptions, VerifyAnswer } from "../analysis/model-jobs.js";

/** How the pool is sized and bounded; `shapesPath` and `timeoutMs` are required, the rest have defaults. */
export interface ModelWorkerOptions {
  /** The SHACL shapes file (see `defaultShapesPath()` in shapes.ts). */
  shapesPath: string;
  /** Longest a single job may run before its worker is terminated. */
  timeoutMs: number;
  /** Longest a fresh worker may take to load before jobs fail. Default 30 s. */
  startupTimeoutMs?: number;
  /** Worker threads in the pool. Default 1; `defaultWorkerCount()` sizes it to the machine. */
  workers?: number;
  /** Most jobs that may wait for a thread; more are refused at once. Default unbounded. */
  maxQueued?: number;
  /** Told of each job refused because the queue was full (the operations metrics count them). */
  onQueueFull?: () => void;
  /** The coordinator's store file: the workers write large texts there themselves (store/blobs.ts). */
  storePath?: string;
}

type Outcome = { ok: true; reply: WorkerReply } | JobFailure;

interface Job {
  request: WorkerRequest;
  rank: Rank;
  key: string | undefined;
  onStart: (() => void) | undefined;
  settle: (outcome: Outcome) => void;
}

/** One worker thread and the job it runs; replaced wholesale after a timeout or crash. */
interface Thread {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  /** The pieces of its job's reply that have arrived (reply-pieces.ts). */
  pieces: ReplyPieces;
  timer: ReturnType<typeof setTimeout> | null;
}

const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;

/** A job's kind as its timeout message names it ("… took longer than N ms"). */
const JOB_WHAT: Record<WorkerRequest["kind"], string> = {
  analyse: "validation",
  check: "checking the contribution",
  verify: "checking the plan",
};

/**
 * The young generation of each model thread. A model analysis allocates millions of short-lived
 * terms and quads; V8's default young generation (16 MiB semi-spaces) makes it scavenge every
 * few milliseconds and promote what is still being built. Measured with a 1.5k-triple analysis
 * in a worker: 47 ms with the default, 46 ms at 48 MiB, 21 ms at 96 MiB, 21 ms at 192 MiB; at
 * 100k triples about 10 % faster. The cost is at most this much more memory per thread.
 */
export const YOUNG_GENERATION_MB = 96;

/**
 * One thread per core but one: the main thread keeps a core, so the connection answers while
 * models are validated. Measured with bench/load on 2 cores: 2 workers did worse than 1
 * (5.4 against 10.4 sessions/s, on a shared machine), as they took the main thread's core.
 */
export function defaultWorkerCount(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * Where the compiled worker script is. Node 20 worker threads cannot load TypeScript, so:
 * - running compiled (dist/src/model-workers/model-worker.js): the sibling analysis-worker.js;
 * - running from source (src/model-workers/model-worker.ts, e.g. under vitest): the copy that
 *   `npm run build` emits at <repo>/dist/src/model-workers/analysis-worker.js (`npm test` builds first).
 */
export function analysisWorkerScript(): string {
  const here = import.meta.url;
  const script = here.endsWith(".js")
    ? new URL("./analysis-worker.js", here)
    : new URL("../../dist/src/model-workers/analysis-worker.js", here);
  return fileURLToPath(script);
}

/** About 7k triples of Turtle: a validation of tens of milliseconds. */
export const SMALL_VALIDATION_CHARS = 256 * 1024;

/**
 * The rank a job runs in, lowest first:
 * 0. a small validation (at most SMALL_VALIDATION_CHARS of Turtle): it takes about as long
 *    as a few checks, and run at once, just after its contributions were checked, it reuses
 *    them as the worker parsed them (parsed-contributions.ts) and completes its session;
 * 1. short jobs (checks of contributions and of plans): a window waits for them;
 * 2. a larger validation: it takes far longer, and its clock only starts when it begins, so
 *    short jobs never queue behind it.
 */
function rankOf(request: WorkerRequest): Rank {
  if (request.kind !== "analyse") return 1;
  let chars = 0;
  for (const c of request.job.contributions) chars += c.turtle.length;
  return chars <= SMALL_VALIDATION_CHARS ? 0 : 2;
}

/**
 * The pool of model threads the shell owns, one per coordinator (see the header for its rules).
 * Every method answers; none throws or rejects: failures come back as `{ ok: false }`.
 */
export class ModelWorker {
  private readonly options: ModelWorkerOptions;
  private readonly size: number;
  private readonly queue = new JobQueue<Job>();
  private readonly threads = new Set<Thread>();
  private nextId = 1;
  private closed = false;

  constructor(options: ModelWorkerOptions) {
    this.options = options;
    this.size = Math.max(1, Math.floor(options.workers ?? 1));
  }

  /** Threads in the pool (at most; they start as work arrives or on `warmUp`). */
  get workers(): number {
    return this.size;
  }

  /** Jobs waiting for a thread. */
  get queued(): number {
    return this.queue.length;
  }

  /** Starts every thread now, so the first jobs do not wait for the shapes to load. */
  warmUp(): void {
    while (!this.closed && this.threads.size < this.size) {
      if (this.startThread() === null) return;
    }
  }

  /** Parses one contribution on its own: syntax, size, and what it would add. */
  async check(request: CheckRequest, options: JobOptions = {}): Promise<CheckAnswer> {
    const outcome = await this.run({ id: this.nextId++, kind: "check", ...request }, options);
    if (!outcome.ok) return outcome;
    if (outcome.reply.kind === "checked") return { ok: true, check: outcome.reply.check, ...storedOf(outcome.reply) };
    return { ok: false, error: unexpected(outcome.reply) };
  }

  /** Parses, merges, validates and serialises a session's model. */
  async analyse(job: AnalysisJob, options: AnalyseOptions = {}): Promise<AnalyseAnswer> {
    const { splits, ...jobOptions } = options;
    const outcome = await this.run({ id: this.nextId++, kind: "analyse", job, ...(splits?.length ? { splits } : {}) }, jobOptions);
    if (!outcome.ok) return outcome;
    if (outcome.reply.kind === "analysed") return { ok: true, analysis: outcome.reply.analysis, ...storedOf(outcome.reply) };
    return { ok: false, error: unexpected(outcome.reply) };
  }

  /**
   * Checks one proposal's plan against a session's formal model, in whichever thread is free:
   * one that holds the model (it analysed it, or checked a plan against it) uses its copy;
   * another reads it from `formalJson` or the store (see VerifyRequest).
   */
  async verify(request: VerifyRequest, options: JobOptions = {}): Promise<VerifyAnswer> {
    const outcome = await this.run({ id: this.nextId++, kind: "verify", ...request }, options);
    if (!outcome.ok) return outcome;
    if (outcome.reply.kind === "verified") return { ok: true, verification: outcome.reply.verification };
    return { ok: false, error: unexpected(outcome.reply) };
  }

  /** Stops the workers; pending and later jobs answer with an error. */
  async close(): Promise<void> {
    this.closed = true;
    this.failAll("the model worker was closed");
    const threads = [...this.threads];
    this.threads.clear();
    for (const thread of threads) clearTimer(thread);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  private run(request: WorkerRequest, options: JobOptions): Promise<Outcome> {
    if (this.closed) return Promise.resolve({ ok: false, error: "the model worker was closed" });
    const max = this.options.maxQueued;
    if (max !== undefined && this.queue.length >= max) {
      (options.onQueueFull ?? this.options.onQueueFull)?.();
      return Promise.resolve({ ok: false, error: `the model workers are busy (${this.queue.length} jobs waiting, the most allowed); try again in a moment` });
    }
    return new Promise((resolve) => {
      this.queue.push({ request, rank: rankOf(request), key: options.key, onStart: options.onStart, settle: resolve });
      this.pump();
    });
  }

  /** Hands waiting jobs to free threads, starting threads up to the pool size as needed. */
  private pump(): void {
    if (this.closed) return;
    while (this.queue.length > 0) {
      // Never a job whose key has a job running or an earlier job waiting (order within a key
      // is kept); among the others, by rank (see `rankOf`), then the oldest.
      const running = new Set<string>();
      for (const t of this.threads) if (t.job?.key !== undefined) running.add(t.job.key);
      const thread = this.freeThread();
      // A "ready" message or a finished job will pump again; a thread is started only for a job that could run.
      if (thread === null) {
        if (this.queue.next(running) !== undefined) this.grow();
        return;
      }
      const job = this.queue.take(running);
      if (job === undefined) return;
      this.begin(thread, job);
    }
  }

  /** A ready thread without a job, if there is one. */
  private freeThread(): Thread | null {
    for (const thread of this.threads) if (thread.ready && thread.job === null) return thread;
    return null;
  }

  /** Work is waiting and every thread is busy or loading: start one more, if the pool is not full. */
  private grow(): void {
    const loading = [...this.threads].filter((t) => !t.ready).length;
    if (this.threads.size < this.size && loading < this.queue.length) this.startThread();
  }

  private begin(thread: Thread, job: Job): void {
    thread.job = job;
    const what = JOB_WHAT[job.request.kind];
    thread.timer = setTimeout(
      () => this.retire(thread, `${what} took longer than ${this.options.timeoutMs} ms`, true),
      this.options.timeoutMs,
    );
    thread.worker.postMessage(job.request);
    try {
      job.onStart?.();
    } catch {
      // The listener's failure is its own; the job runs regardless.
    }
  }

  private startThread(): Thread | null {
    const script = analysisWorkerScript();
    if (!existsSync(script)) {
      this.failWaiting(`the model worker script ${script} is missing: run \`npm run build\` first`);
      return null;
    }
    const setup: WorkerSetup = { shapesPath: this.options.shapesPath, ...(this.options.storePath !== undefined ? { storePath: this.options.storePath } : {}) };
    const worker = new Worker(script, { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    // Idle workers must not keep the process alive; a running job's timer does.
    worker.unref();
    const thread: Thread = { worker, ready: false, job: null, pieces: new ReplyPieces(), timer: null };
    this.threads.add(thread);
    const startupMs = this.options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    thread.timer = setTimeout(() => this.retire(thread, `the model worker did not start within ${startupMs} ms`), startupMs);
    worker.on("message", (reply: WorkerReply | ReplyPiece) => (reply.kind === "piece" ? this.onPiece(thread, reply) : this.onReply(thread, reply)));
    worker.on("messageerror", (error) => this.retire(thread, `a model worker reply could not be read: ${error.message}`));
    worker.on("error", (error) => this.retire(thread, `the model worker crashed: ${error.message}`));
    worker.on("exit", (code) => this.retire(thread, `the model worker stopped unexpectedly (exit code ${code})`));
    return thread;
  }

  private onReply(thread: Thread, reply: WorkerReply): void {
    if (!this.threads.has(thread)) return;
    if (reply.kind === "ready") {
      clearTimer(thread);
      thread.ready = true;
      this.pump();
      return;
    }
    if (reply.kind === "startup-failed") {
      this.retire(thread, reply.error);
      return;
    }
    const job = thread.job;
    if (job === null || job.request.id !== reply.id) return; // a reply to a job already failed
    clearTimer(thread);
    thread.job = null;
    const whole = thread.pieces.assemble(reply);
    // Let go of the pieces now (at 1M, a model's worth of text), not when the next job begins.
    thread.pieces = new ReplyPieces();
    job.settle(whole.kind === "failed" ? { ok: false, error: whole.error } : { ok: true, reply: whole });
    this.pump();
  }

  /** A piece of the reply to the job the thread runs; pieces of a job already failed are dropped. */
  private onPiece(thread: Thread, piece: ReplyPiece): void {
    if (!this.threads.has(thread) || thread.job?.request.id !== piece.id) return;
    if (thread.pieces.empty) {
      // The work is done: what is left is the transfer, under a deadline of its own, so a
      // result that is ready is not thrown away because the main thread was slow to read it.
      clearTimer(thread);
      thread.timer = setTimeout(() => this.retire(thread, `the reply of the model worker did not arrive within ${this.options.timeoutMs} ms of its first piece`), this.options.timeoutMs);
    }
    thread.pieces.add(piece);
    // One piece at a time: the next is read in a task of its own, after whatever else is waiting.
    const next: NextPiece = { kind: "next-piece", id: piece.id };
    thread.worker.postMessage(next);
  }

  /**
   * Gives up on a thread (timeout, crash, failed start): terminates it and fails the job it
   * was running — or, if it never became ready, the jobs waiting, since a thread that cannot
   * start would fail them all the same — and lets the next job start a fresh one.
   */
  private retire(thread: Thread, error: string, timedOut = false): void {
    if (!this.threads.delete(thread)) return;
    clearTimer(thread);
    // terminate() settles once the thread is gone; nothing to wait for, nothing to report.
    void thread.worker.terminate();
    const job = thread.job;
    thread.job = null;
    if (job) job.settle(timedOut ? { ok: false, error, timedOut: true } : { ok: false, error });
    else if (!thread.ready) this.failWaiting(error);
    this.pump();
  }

  /** Fails every job that waits for a thread (running jobs carry on). */
  private failWaiting(error: string): void {
    for (const job of this.queue.drain()) job.settle({ ok: false, error });
  }

  /** Fails every job, running or waiting. */
  private failAll(error: string): void {
    for (const thread of this.threads) {
      const job = thread.job;
      thread.job = null;
      job?.settle({ ok: false, error });
    }
    this.failWaiting(error);
  }
}

function clearTimer(thread: Thread): void {
  if (thread.timer !== null) clearTimeout(thread.timer);
  thread.timer = null;
}

/** Only the fields present, so answers without a store look as they always did. */
function storedOf<T>(reply: Stored<T>): Stored<T> {
  return {
    ...(reply.stored !== undefined ? { stored: reply.stored } : {}),
    ...(reply.storeError !== undefined ? { storeError: reply.storeError } : {}),
  };
}

function unexpected(reply: WorkerReply): string {
  return `the model worker answered with an unexpected "${reply.kind}"`;
}
