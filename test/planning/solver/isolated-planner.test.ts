/**
 * The planner's process boundary: a child that dies (Z3 out of memory) or hangs costs one
 * answer, never the agent; every search gets a new child; checks share one.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { NO_FORMAL_MODEL, type FormalModel } from "../../../src/formal/index.js";
import { createIsolatedPlanner } from "../../../src/planning/solver/isolated-planner.js";
import type { Planner } from "../../../src/planning/solver/index.js";

const FAKE = fileURLToPath(new URL("../../fixtures/planner/fake-planner-process.mjs", import.meta.url));
const planners: Planner[] = [];
afterEach(async () => {
  for (const p of planners.splice(0)) await p.close();
});

function behaving(mode: string): FormalModel {
  return { ...NO_FORMAL_MODEL, objects: [{ symbol: mode, types: [], nodes: [] }] };
}

function planner(graceMs = 10_000): Planner {
  const p = createIsolatedPlanner({ entry: FAKE, graceMs });
  planners.push(p);
  return p;
}

describe("the planner in a process of its own", () => {
  it("turns a child that runs out of memory into a 'gave up' answer, and the next call works", async () => {
    const p = planner();
    const crashed = await p.solve(behaving("crash"), { timeoutMs: 1_000 });
    expect(crashed).toMatchObject({ kind: "gave-up", reason: "the planner stopped (it ran out of memory); a smaller model or horizon may work" });
    expect(await p.solve(behaving("fine"))).toMatchObject({ kind: "cannot-help" });
    expect(await p.checkPlan(behaving("crash"), [])).toBe("unknown");
    expect(await p.checkPlan(behaving("fine"), [])).toBe("valid");
  });

  it("names a fault of Z3's WebAssembly code as one, not as running out of memory", async () => {
    const p = planner();
    expect(await p.solve(behaving("fault"), { timeoutMs: 1_000 })).toMatchObject({
      kind: "gave-up",
      reason: expect.stringContaining("the planner stopped (it crashed inside Z3: memory access out of bounds)"),
    });
    expect(await p.solve(behaving("fine"))).toMatchObject({ kind: "cannot-help" });
  });

  it("stops a child that overruns its time limit by the grace period", async () => {
    const p = planner(200);
    const started = Date.now();
    expect(await p.solve(behaving("hang"), { timeoutMs: 300 })).toMatchObject({ kind: "gave-up", reason: expect.stringContaining("overran its time limit") });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await p.solve(behaving("fine"))).toMatchObject({ kind: "cannot-help" });
  });

  it("starts every search in a new child; checks share one", async () => {
    const p = planner();
    const pidOf = async (): Promise<string> => ((await p.solve(behaving("fine"))) as { reason: string }).reason;
    const first = await pidOf();
    const second = await pidOf();
    expect(first).not.toBe(second);
    expect(await p.checkPlan(behaving("fine"), [])).toBe("valid");
    expect(await p.checkPlan(behaving("fine"), [])).toBe("valid");
  });

  it("answers 'closed' once closed, and leaves no child behind", async () => {
    const p = planner();
    await p.solve(behaving("fine"));
    await p.close();
    expect(await p.solve(behaving("fine"))).toMatchObject({ kind: "gave-up", reason: expect.stringContaining("closed") });
  });
});
