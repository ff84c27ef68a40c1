import { describe, expect, it } from "vitest";
import { createPlanner } from "../../../src/planning/solver/index.js";
import { fixture, modelOf } from "../../formal/helpers.js";

const model = modelOf(fixture("blocksworld.ttl"));

describe("a planner's life", () => {
  it("runs overlapping calls one after the other, and refuses work once closed", async () => {
    const planner = await createPlanner();
    const [a, b, c] = await Promise.all([planner.solve(model), planner.checkPlan(model, ["unstack(c, a)"]), planner.solve(model, { maxSteps: 2, method: "smt" })]);
    expect(a.kind).toBe("plan");
    expect(b).toBe("invalid");
    expect(c.kind).toBe("no-plan");
    await planner.close();
    await planner.close();
    await expect(planner.solve(model)).rejects.toThrow("closed");
  });

  it("keeps one planner working when another is closed", async () => {
    const first = await createPlanner();
    const second = await createPlanner();
    await first.close();
    expect((await second.solve(model)).kind).toBe("plan");
    await second.close();
  });
});

describe("closing while busy", () => {
  it("interrupts the running search and refuses what was queued", async () => {
    const planner = await createPlanner();
    // Goal forbidden by a constraint, many steps allowed: the search would run to its time limit.
    const hopeless = modelOf(`${fixture("blocksworld.ttl").replace('"(<= (moves) 4)"', '"(>= (moves) 0)"')}\n<#never> a mfr:Constraint ; mfr:constraintExpression "(not (on a b))" .`);
    const running = planner.solve(hopeless, { maxSteps: 10_000, timeoutMs: 60_000 });
    const queued = planner.checkPlan(model, []);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await planner.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await running).toMatchObject({ kind: "gave-up", reason: expect.stringMatching(/^the search was stopped \(the planner is closing\)/) as unknown });
    await expect(queued).rejects.toThrow("closed");
  });
});
