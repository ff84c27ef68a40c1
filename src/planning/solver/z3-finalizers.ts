/**
 * Keeps z3-solver's finalizers away from a running check.
 *
 * The `z3-solver` package frees Z3 objects from a FinalizationRegistry: when the JS garbage
 * collector drops a wrapper (a term, a model), its callback calls `Z3_dec_ref` at once, on the
 * main thread. A check, meanwhile, runs on a worker thread over the same Z3 context, and a Z3
 * context is not thread-safe: a term freed while the check walks its terms corrupts Z3's
 * memory. We saw it on Blocksworld with 8 blocks, where the heuristic search leaves garbage
 * behind for the collector: in about one process in five the SMT search then crashed with
 * "memory access out of bounds" in `ast_manager::delete_node`, or never returned.
 *
 * The registry z3-solver creates while it starts is therefore one whose callbacks wait while
 * a check runs, and run, in the order they came, as soon as it has ended. Nothing is dropped;
 * an object is only freed a little later.
 */

/** Defers finalizer callbacks while Z3 works on a worker thread. */
export class FinalizerGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  /** A finalizer's callback: now, or once the running checks have ended. */
  release(callback: () => void): void {
    if (this.running > 0) this.waiting.push(callback);
    else callback();
  }

  /** Runs `work` (a Z3 call that runs on a worker thread) with finalizers held back. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      if (this.running === 0) for (const callback of this.waiting.splice(0)) callback();
    }
  }

  /** Callbacks held back (for tests). */
  get held(): number {
    return this.waiting.length;
  }
}

/**
 * Runs `start` (z3-solver's `init`, which creates its registry) with a FinalizationRegistry
 * whose callbacks go through `gate`. The global is restored before this returns; a registry
 * someone else creates meanwhile is gated too, which only delays its callbacks while a check
 * runs.
 */
export async function withGatedFinalizers<T>(gate: FinalizerGate, start: () => Promise<T>): Promise<T> {
  const Original = globalThis.FinalizationRegistry;
  class GatedRegistry<H> extends Original<H> {
    constructor(cleanup: (held: H) => void) {
      super((held) => gate.release(() => cleanup(held)));
    }
  }
  globalThis.FinalizationRegistry = GatedRegistry as FinalizationRegistryConstructor;
  try {
    return await start();
  } finally {
    globalThis.FinalizationRegistry = Original;
  }
}
