/**
 * The formal model read from what the coordinator really holds: contributions parsed, merged
 * with provenance and validated with the MFR shapes, split here between two agents.
 */
import { describe, expect, it } from "vitest";
import { mergeContributions, parseContribution, problemModelIriFor } from "../../src/rdf/index.js";
import { validateModel } from "../../src/rdf/validate.js";
import { defaultShapesPath, loadShapes } from "../../src/rdf/shapes.js";
import { readFormalModel } from "../../src/formal/model.js";
import { simulatePlan } from "../../src/formal/simulate.js";
import { fixture } from "./helpers.js";

const BASE = "https://mfr.example/sessions/s-formal/";

function contribution(agent: string, turtle: string, index: number) {
  const graphIri = `${BASE}graph/${agent}`;
  const outcome = parseContribution(turtle, { baseIri: BASE, graphIri, maxTriples: 10_000, blankNodePrefix: `c${index}_` });
  if (!outcome.ok) throw new Error(outcome.error.message);
  return { agent, graphIri, quads: outcome.quads };
}

describe("the formal model of a validated merged model", () => {
  it("conforms to the shapes, and the valid plan is valid on the merged store", async () => {
    const text = fixture("blocksworld.ttl");
    // Entities and initial state from one agent, actions, constraints and goal from the other.
    const cut = text.indexOf("<#pickUp>");
    const prefixes = text.slice(0, text.indexOf("<#blockA>"));
    const merged = mergeContributions(
      { sessionId: "s-formal", problemDescription: "Put A on B.", problemModelIri: problemModelIriFor(BASE), coordinatorGraphIri: `${BASE}graph/coordinator` },
      [contribution("alice", text.slice(0, cut), 0), contribution("bob", prefixes + text.slice(cut), 1)],
    );
    const validation = await validateModel(merged, loadShapes(defaultShapesPath()));
    expect(validation.results.filter((r) => r.severity === "Violation")).toEqual([]);
    const model = readFormalModel(merged.store);
    expect(model.findings).toEqual([]);
    expect(model.actions.every((a) => a.informal.length === 0)).toBe(true);
    expect(simulatePlan(model, ["unstack(C, A)", "(put-down c)", "pick-up(a)", "stack(a, b)"]).verdict).toBe("valid");
    expect(simulatePlan(model, ["unstack(C, A)", "pick-up(a)", "stack(a, b)"])).toMatchObject({ verdict: "invalid", step: 2, failed: "(handempty)" });
  });
});
