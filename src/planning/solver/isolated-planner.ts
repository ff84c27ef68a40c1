/**
 * A Planner whose Z3 runs in a child process of its own. Z3's WebAssembly build aborts the
 * whole process when its heap cannot grow (2 GiB), and a large or hostile model can make it
 * grow that far; in a child, that costs one answer ("gave up: the planner stopped"), and the
 * next call starts a fresh child. A call that overruns its own time limit by a grace period is
 * ended the same way. Calls run one at a time, as on one Z3 instance.
 *
 * Each search starts in a new process. Z3's heuristics depend on every term its context has
 * seen, so on a long-lived instance the time a search takes depended on the searches before
 * it (Blocksworld with 8 blocks: 1.4 s fresh, over 60 s after a few other problems), and its
 * memory only grows. Starting Z3 costs a few hundred milliseconds; checks of given plans,
 * which are small, share one process.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FormalModel } from "../../formal/index.js";
import { DEFAULT_CHECK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, type PlanSearchOptions, type PlanSearchOutcome, type Planner } from "./index.js";

export type PlannerRequest =
  | { id: number; op: "solve"; model: FormalModel; options: PlanSearchOptions }
  | { id: number; op: "check"; model: FormalModel; plan: readonly string[]; options: { timeoutMs?: number } };

export type PlannerReply = { ready: true } | { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export interface IsolatedPlannerOptions {
  /** The child's entry module; the compiled planner-process.js beside this file by default. */
  entry?: string;
  /** Extra time a call may take past its own limit before the child is stopped. */
  graceMs?: number;
  /** The child's V8 heap limit in MiB (Z3's heap is WebAssembly memory, outside it). */
  maxOldSpaceMb?: number;
}

const DEFAULT_GRACE_MS = 10_000;
const STARTUP_TIMEOUT_MS = 30_000;

type Ended = { ended: string };
/** A request before it is numbered (Omit that keeps the union apart). */
type Unnumbered<T> = T extends unknown ? Omit<T, "id"> : never;

export function createIsolatedPlanner(options: IsolatedPlannerOptions = {}): Planner {
  return new IsolatedPlanner(options);
}

class IsolatedPlanner implements Planner {
  private child: ChildProcess | null = null;
  private ready: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  /** Whether the current child has served any call (then the next search gets a new one). */
  private served = false;
  private closed = false;
  private readonly waiting = new Map<number, (reply: PlannerReply | Ended) => void>();

  constructor(private readonly options: IsolatedPlannerOptions) {}

  async solve(model: FormalModel, options: PlanSearchOptions = {}): Promise<PlanSearchOutcome> {
    const started = Date.now();
    const limit = (options.timeoutMs ?? DEFAULT_TIMEOUT_MS) + (this.options.graceMs ?? DEFAULT_GRACE_MS);
    const answer = await this.call({ op: "solve", model, options }, limit, true);
    if ("ended" in answer) return { kind: "gave-up", reason: `the planner stopped (${answer.ended}); a smaller model or horizon may work`, horizonTried: 0, elapsedMs: Date.now() - started };
    if (!answer.ok) return { kind: "cannot-help", reason: `the planner failed: ${answer.error}` };
    return answer.result as PlanSearchOutcome;
  }

  async checkPlan(model: FormalModel, plan: readonly string[], options: { timeoutMs?: number } = {}): Promise<"valid" | "invalid" | "unknown"> {
    const limit = (options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS) + (this.options.graceMs ?? DEFAULT_GRACE_MS);
    const answer = await this.call({ op: "check", model, plan, options }, limit);
    if ("ended" in answer || !answer.ok) return "unknown";
    return answer.result as "valid" | "invalid" | "unknown";
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopChild("the planner was closed");
    await this.queue.catch(() => undefined);
  }

  /** One request at a time; the reply, or why the child ended before giving one. */
  private call(request: Unnumbered<PlannerRequest>, limitMs: number, search = false): Promise<Extract<PlannerReply, { id: number }> | Ended> {
    const run = async (): Promise<Extract<PlannerReply, { id: number }> | Ended> => {
      if (this.closed) return { ended: "the planner was closed" };
      if (search && this.served) this.stopChild("a new search starts afresh");
      const started = await this.start().then(
        () => null,
        (err: unknown) => ({ ended: `it could not start: ${err instanceof Error ? err.message : String(err)}` }),
      );
      if (started) return started;
      this.served = true;
      const id = this.nextId++;
      return new Promise((resolve) => {
        const timer = setTimeout(() => this.stopChild(`it overran its time limit of ${Math.round(limitMs / 1000)} s`), limitMs);
        this.waiting.set(id, (reply) => {
          clearTimeout(timer);
          this.waiting.delete(id);
          resolve(reply as Extract<PlannerReply, { id: number }> | Ended);
        });
        this.child?.send({ ...request, id } as PlannerRequest);
      });
    };
    const next = this.queue.then(run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    const entry = this.options.entry ?? fileURLToPath(new URL("./planner-process.js", import.meta.url));
    const execArgv = this.options.maxOldSpaceMb ? [`--max-old-space-size=${this.options.maxOldSpaceMb}`] : [];
    const child = fork(entry, [], { stdio: ["ignore", "ignore", "pipe", "ipc"], execArgv });
    this.child = child;
    this.served = false;
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr = `${stderr}${d.toString()}`.slice(-2_000)));
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no answer from the planner process")), STARTUP_TIMEOUT_MS);
      child.on("message", (message: PlannerReply) => {
        if ("ready" in message) {
          clearTimeout(timer);
          resolve();
          return;
        }
        this.waiting.get(message.id)?.(message);
      });
      child.on("exit", (code, signal) => {
        clearTimeout(timer);
        const why = describeExit(code, signal, stderr);
        reject(new Error(why));
        if (this.child === child) {
          this.child = null;
          this.ready = null;
        }
        for (const settle of [...this.waiting.values()]) settle({ ended: why });
      });
    });
    return this.ready;
  }

  private stopChild(why: string): void {
    const child = this.child;
    if (!child) return;
    this.child = null;
    this.ready = null;
    for (const settle of [...this.waiting.values()]) settle({ ended: why });
    child.kill("SIGKILL");
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  if (/Cannot enlarge memory|\bOOM\b|out of memory/i.test(stderr)) return "it ran out of memory";
  // Any other fault of the WebAssembly code (it names itself on stderr) is told as it is.
  const fault = /RuntimeError: ([^\n]{1,200})/.exec(stderr);
  if (fault) return `it crashed inside Z3: ${fault[1] as string}`;
  if (signal) return `it was ended by ${signal}`;
  return `it exited with code ${code ?? "?"}`;
}
