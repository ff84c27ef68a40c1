/**
 * z3-solver frees Z3 objects from a FinalizationRegistry on the main thread, while a check runs
 * on a worker thread over the same context; the gate holds those callbacks back until the check
 * has ended (src/planning/solver/z3-finalizers.ts).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { FinalizerGate, withGatedFinalizers } from "../../../src/planning/solver/z3-finalizers.js";

const Original = globalThis.FinalizationRegistry;
afterEach(() => {
  globalThis.FinalizationRegistry = Original;
});

/** Stands in for the global registry: keeps the callback each registry was made with. */
function recordingRegistry(): { callbacks: Array<(held: unknown) => void> } {
  const callbacks: Array<(held: unknown) => void> = [];
  class Recording {
    constructor(cleanup: (held: unknown) => void) {
      callbacks.push(cleanup);
    }
  }
  globalThis.FinalizationRegistry = Recording as unknown as FinalizationRegistryConstructor;
  return { callbacks };
}

describe("FinalizerGate", () => {
  it("holds callbacks back while a call is running, and runs them in order once the last has ended", async () => {
    const gate = new FinalizerGate();
    const ran: string[] = [];
    gate.release(() => ran.push("before"));
    expect(ran).toEqual(["before"]);
    let endInner: () => void = () => undefined;
    const outer = gate.exclusive(async () => {
      gate.release(() => ran.push("a"));
      await gate.exclusive(() => new Promise<void>((resolve) => (endInner = resolve)).then(() => gate.release(() => ran.push("b"))));
      gate.release(() => ran.push("c"));
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(ran).toEqual(["before"]);
    endInner();
    await outer;
    expect(ran).toEqual(["before", "a", "b", "c"]);
    expect(gate.held).toBe(0);
  });

  it("runs what it held when the call fails too", async () => {
    const gate = new FinalizerGate();
    const ran: string[] = [];
    await expect(
      gate.exclusive(async () => {
        gate.release(() => ran.push("freed"));
        throw new Error("the check failed");
      }),
    ).rejects.toThrow("the check failed");
    expect(ran).toEqual(["freed"]);
  });
});

describe("withGatedFinalizers", () => {
  it("gates the registries created while it runs, and restores the global after, also on failure", async () => {
    const { callbacks } = recordingRegistry();
    const Recording = globalThis.FinalizationRegistry;
    const gate = new FinalizerGate();
    const freed: unknown[] = [];
    await withGatedFinalizers(gate, async () => new FinalizationRegistry<string>((held) => freed.push(held)));
    expect(globalThis.FinalizationRegistry).toBe(Recording);
    const wrapped = callbacks[0] as (held: unknown) => void;
    await gate.exclusive(async () => {
      wrapped("term");
      expect(freed).toEqual([]);
    });
    expect(freed).toEqual(["term"]);
    wrapped("model");
    expect(freed).toEqual(["term", "model"]);

    await expect(withGatedFinalizers(gate, () => Promise.reject(new Error("no wasm")))).rejects.toThrow("no wasm");
    expect(globalThis.FinalizationRegistry).toBe(Recording);
  });

  it("gates the registry z3-solver frees its objects from: nothing is freed while a call runs", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const z3 = await import("z3-solver");
    const gate = new FinalizerGate();
    const api = await withGatedFinalizers(gate, () => z3.init());
    try {
      const ctx = new api.Context("gated");
      const garbage = (): void => {
        for (let i = 0; i < 2_000; i += 1) ctx.And(ctx.Bool.const(`x${i}`), ctx.Bool.const(`y${i}`));
      };
      garbage();
      await gate.exclusive(async () => {
        gc();
        await new Promise((r) => setTimeout(r, 50));
        expect(gate.held).toBeGreaterThan(0);
      });
      expect(gate.held).toBe(0);
    } finally {
      await z3.killThreads(api.em);
    }
  });
});
