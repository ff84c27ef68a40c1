import { describe, expect, it } from "vitest";
import { createPlanner } from "../../src/solver/index.js";
import { fixture, modelOf } from "../formal/helpers.js";

const model = modelOf(fixture("blocksworld.ttl"));

describe("a planner's life", () => {
  it("runs overlapping calls one after the other, and refuses work once closed", async () => {
    const planner = await createPlanner();
    const [a, b, c] = await Promise.all([planner.solve(model), planner.checkPlan(model, ["unstack(c, a)"]), planner.solve(model, { maxSteps: 2 })]);
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
