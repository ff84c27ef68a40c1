/**
 * The demo's story rests on these facts about the sample problem: the planner's first plan is
 * caught at the step where the third crate does not fit, and its repaired plan is valid.
 */
import { describe, expect, it } from "vitest";
import { SAMPLE_CONTRIBUTIONS, SAMPLE_PLANS } from "../../examples/agents/sample-problem.js";
import { simulatePlan } from "../../src/formal/index.js";
import { modelOf } from "../formal/helpers.js";

const model = modelOf(`${SAMPLE_CONTRIBUTIONS.modeler}\n${SAMPLE_CONTRIBUTIONS.planner}`);

describe("the demo's sample problem", () => {
  it("reads as a fully formal model apart from the one free-text constraint", () => {
    expect(model.findings).toEqual([]);
    expect(model.actions.map((a) => [a.name, a.informal])).toEqual([
      ["drive", []],
      ["load", []],
      ["unload", []],
    ]);
    expect(model.objects.map((o) => o.symbol)).toEqual(["c1", "c2", "c3", "depot", "truck1", "warehouse"]);
  });

  it("catches the one-trip plan at step 3, where the third crate does not fit", () => {
    expect(simulatePlan(model, SAMPLE_PLANS.oneTrip)).toMatchObject({ verdict: "invalid", step: 3, failed: "(< (load truck1) (capacity truck1))" });
  });

  it("accepts the two-trip repair", () => {
    expect(simulatePlan(model, SAMPLE_PLANS.twoTrips).verdict).toBe("valid");
  });
});
