import { describe, expect, it } from "vitest";
import { asksUs, readSolutionRequest } from "../../../src/agents/reference-solver/request.js";

const MFR = "http://purl.org/stuff/mfr/";

describe("reading a SolutionRequest", () => {
  it("reads the fields it acts on, full-IRI or short message type, field or attribute", () => {
    const json = JSON.stringify({ messageType: `${MFR}SolutionRequest`, sessionId: "s1", model: "<a> <b> <c> .", timestamp: "x" });
    expect(readSolutionRequest(json, undefined)).toEqual({ sessionId: "s1", model: "<a> <b> <c> .", modelParts: 0, round: 1, requestedAgents: undefined });
    const parts = JSON.stringify({ sessionId: "s2", model: "", modelParts: 3, round: 2, requestedAgents: ["Solver"] });
    expect(readSolutionRequest(parts, "SolutionRequest")).toMatchObject({ sessionId: "s2", modelParts: 3, round: 2, requestedAgents: ["Solver"] });
  });

  it("is null for other messages and for anything malformed, never a throw", () => {
    expect(readSolutionRequest(JSON.stringify({ messageType: `${MFR}SessionComplete`, sessionId: "s1" }), undefined)).toBeNull();
    expect(readSolutionRequest("{not json", "SolutionRequest")).toBeNull();
    expect(readSolutionRequest("[]", "SolutionRequest")).toBeNull();
    expect(readSolutionRequest(JSON.stringify({ sessionId: 5 }), "SolutionRequest")).toBeNull();
    expect(readSolutionRequest(`${"[".repeat(10_000)}${"]".repeat(10_000)}`, "SolutionRequest")).toBeNull();
  });

  it("answers the first round always, a repair round only when it names us", () => {
    const first = { sessionId: "s", model: "", modelParts: 0, round: 1, requestedAgents: ["other"] };
    expect(asksUs(first, "Solver")).toBe(true);
    expect(asksUs({ ...first, round: 2 }, "Solver")).toBe(false);
    expect(asksUs({ ...first, round: 2, requestedAgents: ["solver"] }, "Solver")).toBe(true);
    expect(asksUs({ ...first, round: 2, requestedAgents: undefined }, "Solver")).toBe(true);
  });
});
