/**
 * What the room view says of a candidate (src/session/room-view.ts), which decides who is asked
 * for contributions and who is awaited in the solution window: only real evidence answers
 * requests, a planner that never models is a solver only, and a declared model kind makes a modeller.
 */
import { describe, expect, it } from "vitest";
import { answersRequests, declaresSomething, solvesOnly, type Candidate, type EvidenceKind } from "../../src/session/room-view.js";

function candidate(over: Partial<Candidate> & { evidence?: EvidenceKind[] } = {}): Candidate {
  return {
    nick: "agent",
    evidence: [],
    contributions: 0,
    proposals: 0,
    declared: { capabilities: "", kinds: [], description: "", modes: "" },
    offers: "",
    needsApproval: false,
    ...over,
  };
}

const KIND = "http://purl.org/stuff/mfr/ActionDefinition";

describe("answersRequests", () => {
  it("takes a profile, Lingue features or protocol messages as evidence; a consensus alone, or nothing, is not", () => {
    for (const kind of ["profile", "disco", "protocol"] as const) expect(answersRequests(candidate({ evidence: [kind] }))).toBe(true);
    expect(answersRequests(candidate({ evidence: ["consensus"] }))).toBe(false);
    expect(answersRequests(candidate())).toBe(false);
  });
});

describe("solvesOnly", () => {
  it("is an agent that has proposed but never contributed", () => {
    expect(solvesOnly(candidate({ evidence: ["protocol"], proposals: 2 }))).toBe(true);
    expect(solvesOnly(candidate({ evidence: ["protocol"], proposals: 2, contributions: 1 }))).toBe(false);
  });

  it("is a profile that declares plan generation and no model kind", () => {
    const planner = candidate({ evidence: ["profile"], declared: { capabilities: "Plan generation, PDDL", kinds: [], description: "", modes: "" } });
    expect(solvesOnly(planner)).toBe(true);
    // A declared model kind makes a modeller, whatever else it says or did.
    expect(solvesOnly({ ...planner, declared: { ...planner.declared, kinds: [KIND] } })).toBe(false);
    expect(solvesOnly({ ...planner, proposals: 3, declared: { ...planner.declared, kinds: [KIND] } })).toBe(false);
  });

  it("needs evidence that it answers requests at all", () => {
    expect(solvesOnly(candidate({ evidence: ["consensus"], proposals: 2 }))).toBe(false);
    expect(solvesOnly(candidate({ proposals: 2 }))).toBe(false);
  });
});

describe("declaresSomething", () => {
  it("is true when any declared field is non-empty", () => {
    expect(declaresSomething(candidate())).toBe(false);
    const declared = { capabilities: "", kinds: [] as string[], description: "", modes: "" };
    expect(declaresSomething(candidate({ declared: { ...declared, capabilities: "scheduling" } }))).toBe(true);
    expect(declaresSomething(candidate({ declared: { ...declared, kinds: [KIND] } }))).toBe(true);
    expect(declaresSomething(candidate({ declared: { ...declared, description: "a planner" } }))).toBe(true);
    expect(declaresSomething(candidate({ declared: { ...declared, modes: "prolog program" } }))).toBe(true);
  });
});
