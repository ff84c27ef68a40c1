/**
 * Loading and closing Z3 (the `z3-solver` WebAssembly build), and the few Boolean connectives the
 * encoding needs. Z3 starts worker threads that keep Node alive, so every instance must be
 * closed; loading takes a few hundred milliseconds, so an instance is meant to be reused.
 */
import type { Arith, Bool, Context, Solver } from "z3-solver";
import { FinalizerGate, withGatedFinalizers } from "./z3-finalizers.js";

export type Z3Name = "planner";
export type Z3Context = Context<Z3Name>;
export type Z3Bool = Bool<Z3Name>;
export type Z3Arith = Arith<Z3Name>;
export type Z3Solver = Solver<Z3Name>;

/** A Boolean term, or a JS constant folded before it ever reaches Z3 (keeps terms small). */
export type B = Z3Bool | boolean;

export interface Z3Instance {
  ctx: Z3Context;
  /** Z3's own estimate of the memory it holds, in bytes. */
  allocatedBytes(): number;
  /**
   * Runs a Z3 call that works on a worker thread (a check) with no Z3 object freed meanwhile
   * (see z3-finalizers.ts). Every such call goes through here.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Stops Z3's worker threads so the process can exit. */
  close(): Promise<void>;
}

/**
 * Z3's WebAssembly heap cannot grow past 2 GiB, and running out aborts the whole process
 * (Z3's own memory_max_size aborts too in this build). A check is interrupted well before.
 */
export const MEMORY_BUDGET_BYTES = 1_200_000_000;
const WATCH_INTERVAL_MS = 200;

export type CheckAnswer = { answer: "sat" | "unsat" } | { answer: "unknown"; reason: string };

/** When a check must end early: the wall clock, and a request to stop (the planner closing). */
export interface CheckLimits {
  /** Wall-clock instant (ms since epoch). */
  deadline: number;
  stopped?: () => boolean;
}

/**
 * One `check` under the deadline, the memory budget and the stop request. Z3 runs the check
 * on a worker thread, so this thread can watch and interrupt it; any Z3 error is an "unknown".
 * Reasons: "timeout", "memory", "stopped", or Z3's own.
 */
export async function guardedCheck(z3: Z3Instance, solver: Z3Solver, assumptions: readonly Z3Bool[], limits: CheckLimits): Promise<CheckAnswer> {
  const remaining = limits.deadline - Date.now();
  if (remaining <= 0) return { answer: "unknown", reason: "timeout" };
  if (limits.stopped?.() === true) return { answer: "unknown", reason: "stopped" };
  let cut: "memory" | "stopped" | undefined;
  const watch = setInterval(() => {
    if (cut === undefined && z3.allocatedBytes() > MEMORY_BUDGET_BYTES) cut = "memory";
    else if (cut === undefined && limits.stopped?.() === true) cut = "stopped";
    // Repeated on every tick: an interrupt that arrives before the worker starts is lost.
    if (cut !== undefined) z3.ctx.interrupt();
  }, WATCH_INTERVAL_MS);
  try {
    solver.set("timeout", Math.max(1, Math.ceil(remaining)));
    const answer = await z3.exclusive(() => solver.check(...assumptions));
    if (cut !== undefined) return { answer: "unknown", reason: cut };
    return answer === "unknown" ? { answer, reason: solver.reasonUnknown() } : { answer };
  } catch (e) {
    return { answer: "unknown", reason: cut ?? `error: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    clearInterval(watch);
  }
}

export async function loadZ3(): Promise<Z3Instance> {
  // Imported lazily: only a process that plans pays for loading the WebAssembly module.
  const z3 = await import("z3-solver");
  const gate = new FinalizerGate();
  const api = await withGatedFinalizers(gate, () => z3.init());
  const ctx = new api.Context<Z3Name>("planner");
  return {
    ctx,
    allocatedBytes: () => Number(api.Z3.get_estimated_alloc_size()),
    exclusive: (work) => gate.exclusive(work),
    close: async () => {
      try {
        await z3.killThreads(api.em);
      } catch {
        // Waiting for the workers timed out; they were told to stop, which is what matters.
        (api.em as { PThread?: { terminateAllThreads(): void } }).PThread?.terminateAllThreads();
      }
    },
  };
}

/** Boolean connectives that fold JS constants. */
export class Logic {
  constructor(readonly ctx: Z3Context) {}

  and(...parts: B[]): B {
    const terms: Z3Bool[] = [];
    for (const p of parts) {
      if (p === false) return false;
      if (p !== true) terms.push(p);
    }
    if (terms.length === 0) return true;
    return terms.length === 1 ? (terms[0] as Z3Bool) : this.ctx.And(...terms);
  }

  or(...parts: B[]): B {
    const terms: Z3Bool[] = [];
    for (const p of parts) {
      if (p === true) return true;
      if (p !== false) terms.push(p);
    }
    if (terms.length === 0) return false;
    return terms.length === 1 ? (terms[0] as Z3Bool) : this.ctx.Or(...terms);
  }

  not(p: B): B {
    return typeof p === "boolean" ? !p : this.ctx.Not(p);
  }

  implies(a: B, b: B): B {
    if (a === false || b === true) return true;
    if (a === true) return b;
    if (b === false) return this.ctx.Not(a);
    return this.ctx.Implies(a, b);
  }

  /** As a Z3 term, for the API calls that take no JS constant. */
  term(p: B): Z3Bool {
    return typeof p === "boolean" ? this.ctx.Bool.val(p) : p;
  }
}
