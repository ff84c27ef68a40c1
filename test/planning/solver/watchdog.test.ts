/** The guard around each Z3 check: it must end a check that runs out of memory or is asked to stop. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedCheck, loadZ3 } from "../../../src/planning/solver/z3.js";
import type { Z3Instance, Z3Solver } from "../../../src/planning/solver/z3.js";

let z3: Z3Instance;
beforeAll(async () => {
  z3 = await loadZ3();
});
afterAll(async () => {
  await z3.close();
});

/** Ten pigeons in nine holes: unsatisfiable, and slow enough to prove that a guard gets to act. */
function pigeonholes(): Z3Solver {
  const { ctx } = z3;
  const solver = new ctx.Solver();
  const holes = 9;
  const sits = (pigeon: number, hole: number) => ctx.Bool.const(`p${pigeon}_${hole}`);
  for (let i = 0; i <= holes; i += 1) solver.add(ctx.Or(...Array.from({ length: holes }, (_, j) => sits(i, j))));
  for (let j = 0; j < holes; j += 1) {
    for (let a = 0; a <= holes; a += 1) for (let b = a + 1; b <= holes; b += 1) solver.add(ctx.Not(ctx.And(sits(a, j), sits(b, j))));
  }
  return solver;
}

describe("guardedCheck", () => {
  it("interrupts a check once Z3 holds more memory than the budget", async () => {
    const started = Date.now();
    const answer = await guardedCheck({ ...z3, allocatedBytes: () => 1e12 }, pigeonholes(), [], { deadline: Date.now() + 60_000 });
    expect(answer).toEqual({ answer: "unknown", reason: "memory" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("interrupts a check when asked to stop, and gives up at the deadline", async () => {
    let stop = false;
    setTimeout(() => (stop = true), 300);
    expect(await guardedCheck(z3, pigeonholes(), [], { deadline: Date.now() + 60_000, stopped: () => stop })).toEqual({ answer: "unknown", reason: "stopped" });
    expect(await guardedCheck(z3, pigeonholes(), [], { deadline: Date.now() + 300 })).toEqual({ answer: "unknown", reason: "timeout" });
  });
});
