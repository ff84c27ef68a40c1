/**
 * Runs the model pipeline (parse, merge, validate) on a worker thread, so that a large model
 * never blocks the XMPP connection (which must keep answering pings). Every failure — a job
 * over its time budget, a crashed worker, a closed worker — comes back as `{ ok: false }`,
 * never as a rejected promise.
 *
 * Jobs run one at a time, in order. A job's clock starts when the worker begins it (not
 * while it waits in line, nor while a fresh worker loads), so one slow model cannot make
 * the jobs behind it time out. A job over its budget gets its worker terminated; the next
 * job starts a fresh one.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { AnalysisJob, ModelAnalysis } from "./analysis.js";
import type { CheckRequest, ContributionCheck, WorkerReply, WorkerRequest, WorkerSetup } from "./worker-protocol.js";

export type { CheckRequest, ContributionCheck } from "./worker-protocol.js";

export interface ModelWorkerOptions {
  /** The SHACL shapes file (see `defaultShapesPath()` in shapes.ts). */
  shapesPath: string;
  /** Longest a single job may run before its worker is terminated. */
  timeoutMs: number;
  /** Longest a fresh worker may take to load before jobs fail. Default 30 s. */
  startupTimeoutMs?: number;
}

export type AnalyseAnswer = { ok: true; analysis: ModelAnalysis } | { ok: false; error: string };
export type CheckAnswer = { ok: true; check: ContributionCheck } | { ok: false; error: string };

type Outcome = { ok: true; reply: WorkerReply } | { ok: false; error: string };

interface Job {
  request: WorkerRequest;
  settle: (outcome: Outcome) => void;
}

/** One worker thread and what it is doing; replaced wholesale after a timeout or crash. */
interface Thread {
  worker: Worker;
  ready: boolean;
  timer: ReturnType<typeof setTimeout> | null;
}

const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;

/**
 * Where the compiled worker script is. Node 20 worker threads cannot load TypeScript, so:
 * - running compiled (dist/src/model/model-worker.js): the sibling analysis-worker.js;
 * - running from source (src/model/model-worker.ts, e.g. under vitest): the copy that
 *   `npm run build` emits at <repo>/dist/src/model/analysis-worker.js (`npm test` builds first).
 */
export function analysisWorkerScript(): string {
  const here = import.meta.url;
  const script = here.endsWith(".js")
    ? new URL("./analysis-worker.js", here)
    : new URL("../../dist/src/model/analysis-worker.js", here);
  return fileURLToPath(script);
}

export class ModelWorker {
  private readonly options: ModelWorkerOptions;
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private thread: Thread | null = null;
  private nextId = 1;
  private closed = false;

  constructor(options: ModelWorkerOptions) {
    this.options = options;
  }

  /** Parses one contribution on its own: syntax, size, and what it would add. */
  async check(request: CheckRequest): Promise<CheckAnswer> {
    const outcome = await this.run({ id: this.nextId++, kind: "check", ...request });
    if (!outcome.ok) return outcome;
    if (outcome.reply.kind === "checked") return { ok: true, check: outcome.reply.check };
    return { ok: false, error: unexpected(outcome.reply) };
  }

  /** Parses, merges, validates and serialises a session's model. */
  async analyse(job: AnalysisJob): Promise<AnalyseAnswer> {
    const outcome = await this.run({ id: this.nextId++, kind: "analyse", job });
    if (!outcome.ok) return outcome;
    if (outcome.reply.kind === "analysed") return { ok: true, analysis: outcome.reply.analysis };
    return { ok: false, error: unexpected(outcome.reply) };
  }

  /** Stops the worker; pending and later jobs answer with an error. */
  async close(): Promise<void> {
    this.closed = true;
    this.failAll("the model worker was closed");
    const thread = this.thread;
    this.thread = null;
    if (thread) {
      clearTimer(thread);
      await thread.worker.terminate();
    }
  }

  private run(request: WorkerRequest): Promise<Outcome> {
    if (this.closed) return Promise.resolve({ ok: false, error: "the model worker was closed" });
    return new Promise((resolve) => {
      this.queue.push({ request, settle: resolve });
      this.pump();
    });
  }

  /** Starts the next job when the worker is free, starting a worker first if needed. */
  private pump(): void {
    if (this.closed || this.current !== null || this.queue.length === 0) return;
    const thread = this.thread ?? this.startThread();
    if (thread === null || !thread.ready) return; // the "ready" message will pump again
    const job = this.queue.shift();
    if (job === undefined) return;
    this.current = job;
    const what = job.request.kind === "analyse" ? "validation" : "checking the contribution";
    thread.timer = setTimeout(
      () => this.retire(thread, `${what} took longer than ${this.options.timeoutMs} ms`),
      this.options.timeoutMs,
    );
    thread.worker.postMessage(job.request);
  }

  private startThread(): Thread | null {
    const script = analysisWorkerScript();
    if (!existsSync(script)) {
      this.failAll(`the model worker script ${script} is missing: run \`npm run build\` first`);
      return null;
    }
    const setup: WorkerSetup = { shapesPath: this.options.shapesPath };
    const worker = new Worker(script, { workerData: setup });
    // Idle workers must not keep the process alive; a running job's timer does.
    worker.unref();
    const thread: Thread = { worker, ready: false, timer: null };
    this.thread = thread;
    const startupMs = this.options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    thread.timer = setTimeout(() => this.retire(thread, `the model worker did not start within ${startupMs} ms`), startupMs);
    worker.on("message", (reply: WorkerReply) => this.onReply(thread, reply));
    worker.on("messageerror", (error) => this.retire(thread, `a model worker reply could not be read: ${error.message}`));
    worker.on("error", (error) => this.retire(thread, `the model worker crashed: ${error.message}`));
    worker.on("exit", (code) => this.retire(thread, `the model worker stopped unexpectedly (exit code ${code})`));
    return thread;
  }

  private onReply(thread: Thread, reply: WorkerReply): void {
    if (thread !== this.thread) return;
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
    const job = this.current;
    if (job === null || job.request.id !== reply.id) return; // a reply to a job already failed
    clearTimer(thread);
    this.current = null;
    job.settle(reply.kind === "failed" ? { ok: false, error: reply.error } : { ok: true, reply });
    this.pump();
  }

  /**
   * Gives up on a worker (timeout, crash, failed start): terminates it, fails the job it was
   * running — or, if it never became ready, the jobs waiting for it, since a worker that
   * cannot start would fail them all the same — and lets the next job start a fresh one.
   */
  private retire(thread: Thread, error: string): void {
    if (thread !== this.thread) return;
    this.thread = null;
    clearTimer(thread);
    // terminate() settles once the thread is gone; nothing to wait for, nothing to report.
    void thread.worker.terminate();
    const job = this.current;
    this.current = null;
    if (job) job.settle({ ok: false, error });
    else if (!thread.ready) this.failAll(error);
    this.pump();
  }

  private failAll(error: string): void {
    const jobs = this.current ? [this.current, ...this.queue] : [...this.queue];
    this.current = null;
    this.queue.length = 0;
    for (const job of jobs) job.settle({ ok: false, error });
  }
}

function clearTimer(thread: Thread): void {
  if (thread.timer !== null) clearTimeout(thread.timer);
  thread.timer = null;
}

function unexpected(reply: WorkerReply): string {
  return `the model worker answered with an unexpected "${reply.kind}"`;
}
