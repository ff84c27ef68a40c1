/**
 * Solutions are judged by the coordinator's own check of the plan, not by the agent's
 * claims: a cheating claim loses to a valid plan, and only a valid plan solves a model that
 * has a formal part.
 */
import { describe, expect, it } from "vitest";
import { NO_FORMAL_MODEL, summariseFormalModel, type FormalSummary, type Verification } from "../../src/formal/index.js";
import { checkPlan, claimedPlanOf } from "../../src/session/plan-check.js";
import type { SolutionBody } from "../../src/session/types.js";
import { fixture, modelOf } from "../formal/helpers.js";
import { Driver, broadcasts, conforming, ok, onlyBroadcast, proposalInput, settings, solution } from "../support/session-fixtures.js";

const BLOCKS = modelOf(fixture("blocksworld.ttl"));
const VALID = ["unstack(C, A)", "(put-down c)", "pick-up(a)", "stack(a, b)"];
const DROPPED = ["unstack(C, A)", "pick-up(a)", "stack(a, b)"];
/** Claims everything: success, and one goal satisfied fifty times. */
const CHEAT = solution({ success: true, message: "Done, trust me.", plan: DROPPED, satisfiesGoals: Array.from({ length: 50 }, () => ({ goal: "tower", satisfied: true })) });

/** A session in its solution window; `formal` null: an analysis logged before plans were checked. */
function reasoning(formal: typeof BLOCKS | null = BLOCKS, maxRepairRounds?: number): Driver {
  const d = new Driver();
  d.start({ expectedAgents: ["cheater", "solver"], ...(maxRepairRounds !== undefined ? { settings: settings({ maxRepairRounds }) } : {}) });
  d.contribute("s1", "cheater");
  d.contribute("s1", "solver");
  d.answer("s1", ok(conforming(formal ? { formal } : {})));
  expect(d.session().phase).toBe("reasoning");
  return d;
}

describe("verified solutions", () => {
  it("checks each plan as it arrives: a claimed success with a broken plan is invalid at the step that breaks", () => {
    const d = reasoning();
    d.propose("s1", "cheater", CHEAT);
    expect(d.session().proposals[0]?.verification).toMatchObject({ verdict: "invalid", step: 2, failed: "(handempty)" });
  });

  it("marks a claim the check refutes: success claimed for a broken plan, goals claimed for a plan that falls short", () => {
    const d = reasoning();
    d.propose("s1", "cheater", CHEAT);
    expect(d.session().proposals[0]?.verification?.refutedClaim).toBe("It claims success, but the plan is invalid at step 2.");
    const short = solution({ success: false, plan: ["unstack(C, A)", "(put-down c)"], satisfiesGoals: [{ goal: "tower", satisfied: true }] });
    d.propose("s1", "solver", short);
    const v = d.session().proposals.find((p) => p.agent === "solver")?.verification;
    expect(v).toMatchObject({ verdict: "invalid", step: 3 });
    expect(v?.refutedClaim).toMatch(/^It claims a goal satisfied, but \(on a b\) is false at the end\.$/);
  });

  it("makes no claim-refutation for an honest failure or a valid plan", () => {
    const d = reasoning();
    d.propose("s1", "cheater", solution({ success: false, plan: DROPPED }));
    d.propose("s1", "solver", solution({ success: true, plan: VALID, satisfiesGoals: [{ goal: "tower", satisfied: true }] }));
    expect(d.session().proposals.map((p) => p.verification?.refutedClaim)).toEqual([undefined, undefined]);
  });

  it("counts the free-text parts in the summary as not machine-checkable, never guessing at them", () => {
    const informal = modelOf(`${fixture("blocksworld.ttl")}
<#quiet> a mfr:Constraint ; mfr:constraintType "noise" ; mfr:appliesTo "problem" ; mfr:constraintExpression "Keep the noise down after ten." .
<#tidy> a mfr:Goal ; rdfs:label "tidy" ; mfr:expression "The room looks tidy." .`);
    expect(informal.notMachineCheckable).toHaveLength(2);
    const d = reasoning(informal);
    d.propose("s1", "cheater", solution({ success: true, plan: VALID }));
    const done = onlyBroadcast(d.propose("s1", "solver", solution({ success: true, plan: VALID })), "SessionComplete");
    expect(done.status).toBe("solved");
    expect(done.summary).toContain("Not machine-checkable: 2 free-text parts (1 constraint, 1 expression); plans are not checked there.");
  });

  it("waits for a planner that never models (the reference solver) before closing the solution window", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["modeler"], expectedSolvers: ["Solver"] });
    d.contribute("s1", "modeler");
    d.answer("s1", ok(conforming({ formal: BLOCKS })));
    // The only contributor answers at once; without the planner's proposal the window stays open.
    d.propose("s1", "modeler", { success: false, message: "I only model." });
    expect(d.session().phase).toBe("reasoning");
    const done = onlyBroadcast(d.propose("s1", "Solver", solution({ success: true, message: "Found.", plan: VALID })), "SessionComplete");
    expect(done.status).toBe("solved");
    expect(done.solutions.map((p) => [p.agent, p.verification?.verdict])).toEqual([
      ["Solver", "valid"],
      ["modeler", "unverifiable"],
    ]);
  });

  it("with a valid plan already in, repairs the invalid plans of agents it asked, never a stranger's", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["planner"], expectedSolvers: ["Solver"], settings: settings({ maxRepairRounds: 1 }) });
    d.contribute("s1", "planner");
    d.answer("s1", ok(conforming({ formal: BLOCKS })));
    d.propose("s1", "stranger", solution({ plan: DROPPED }));
    d.propose("s1", "Solver", solution({ plan: VALID }));
    const effects = d.propose("s1", "planner", solution({ plan: DROPPED }));
    const repair = onlyBroadcast(effects, "SolutionRequest");
    expect(repair).toMatchObject({ round: 2, requestedAgents: ["planner"] });
    expect(Object.keys(repair.issues ?? {})).toEqual(["planner"]);
    const done = onlyBroadcast(d.propose("s1", "planner", solution({ plan: VALID })), "SessionComplete");
    // Both valid and four steps long: the agent that was asked ranks first.
    expect(done.solutions.map((p) => [p.agent, p.verification?.verdict])).toEqual([
      ["planner", "valid"],
      ["Solver", "valid"],
      ["stranger", "invalid"],
    ]);
  });

  it("ranks the valid plan first whatever the other claims, and the session is solved by it", () => {
    const d = reasoning();
    d.propose("s1", "cheater", CHEAT);
    const effects = d.propose("s1", "solver", solution({ success: true, message: "Four moves.", plan: VALID }));
    const done = onlyBroadcast(effects, "SessionComplete");
    expect(done.status).toBe("solved");
    expect(done.solutions.map((p) => [p.agent, p.verification?.verdict])).toEqual([
      ["solver", "valid"],
      ["cheater", "invalid"],
    ]);
    expect(done.summary).toMatch(/Solutions, best first \(2\):\n {2}solver: valid, 4 steps\n {2}cheater: invalid at step 2: \(handempty\) is false/);
  });

  it("only invalid plans: the session fails, however loudly they claim success, and says why", () => {
    const d = reasoning();
    d.propose("s1", "cheater", CHEAT);
    const effects = d.propose("s1", "solver", solution({ success: true, plan: ["pick-up(b)"] }));
    const done = onlyBroadcast(effects, "SessionComplete");
    expect(done.status).toBe("failed");
    expect(done.reason).toContain("cheater: invalid at step 2: (handempty) is false");
  });

  it("a model with no formal part is judged by claims, and says it could not check", () => {
    const d = reasoning(NO_FORMAL_MODEL);
    d.propose("s1", "cheater", CHEAT);
    const done = onlyBroadcast(d.propose("s1", "solver", solution({ success: false })), "SessionComplete");
    expect(done.status).toBe("solved");
    expect(done.solutions[0]?.verification?.verdict).toBe("unverifiable");
  });

  it("sessions logged before plans were checked replay as they were: no verification at all", () => {
    const d = reasoning(null);
    const effects = d.propose("s1", "cheater", CHEAT);
    expect(d.session().proposals[0]?.verification).toBeUndefined();
    expect(effects.length).toBeGreaterThan(0);
  });
});

describe("repair rounds", () => {
  it("asks the proposers of invalid plans to repair them, with what failed; a repaired valid plan solves the session", () => {
    const d = reasoning(BLOCKS, 1);
    d.propose("s1", "cheater", CHEAT);
    const closed = d.propose("s1", "solver", solution({ success: true, plan: ["pick-up(b)"] }));
    expect(broadcasts(closed, "SessionComplete")).toEqual([]);
    const repair = onlyBroadcast(closed, "SolutionRequest");
    expect(repair).toMatchObject({ round: 2, requestedAgents: ["cheater", "solver"] });
    expect(repair.issues?.cheater?.[0]).toMatch(/^Step 2 \(pick-up\(a\)\)/);
    expect(d.session().solutionRound).toBe(2);
    // The cheater repairs; the window waits for the other proposer asked to repair.
    expect(broadcasts(d.propose("s1", "cheater", solution({ success: true, plan: VALID })), "SessionComplete")).toEqual([]);
    const done = onlyBroadcast(d.propose("s1", "solver", solution({ success: true, plan: ["pick-up(b)"] })), "SessionComplete");
    expect(done.status).toBe("solved");
    expect(done.solutions.map((p) => [p.agent, p.verification?.verdict])).toEqual([
      ["cheater", "valid"],
      ["solver", "invalid"],
    ]);
  });

  it("is bounded: still invalid after the last repair round, the session fails", () => {
    const d = reasoning(BLOCKS, 1);
    d.propose("s1", "cheater", CHEAT);
    d.propose("s1", "solver", solution({ success: true, plan: ["pick-up(b)"] }));
    d.propose("s1", "cheater", CHEAT);
    const last = d.propose("s1", "solver", solution({ success: true, plan: ["pick-up(b)"] }));
    expect(onlyBroadcast(last, "SessionComplete").status).toBe("failed");
    expect(broadcasts(last, "SolutionRequest")).toEqual([]);
  });
});


describe("plans checked in the model worker", () => {
  /** Only the summary of the formal model reaches the core now; the worker holds the model. */
  const SUMMARY = summariseFormalModel(BLOCKS, "d".repeat(64));
  /** What the worker answers for a proposal: the shared pure check on the model it holds. */
  const checked = (body: SolutionBody): Verification => checkPlan(BLOCKS, claimedPlanOf(body));

  function reasoningOnSummary(summary: FormalSummary = SUMMARY): Driver {
    const d = new Driver();
    d.start({ expectedAgents: ["cheater", "solver"] });
    d.contribute("s1", "cheater");
    d.contribute("s1", "solver");
    d.answer("s1", ok(conforming({ formalSummary: summary })));
    expect(d.session().phase).toBe("reasoning");
    return d;
  }

  it("records the check the proposal input carries, and judges the session by it", () => {
    const d = reasoningOnSummary();
    // A check the core could not have made itself (it holds no formal model): taken as it is.
    const given: Verification = { verdict: "invalid", reason: "Step 1 is wrong.", step: 1, refutedClaim: "It claims success, but the plan is invalid at step 1." };
    d.feed({ ...proposalInput("s1", "cheater", CHEAT), verification: given });
    expect(d.session().proposals[0]?.verification).toEqual(given);
    const body = solution({ success: true, plan: VALID });
    const done = onlyBroadcast(d.feed({ ...proposalInput("s1", "solver", body), verification: checked(body) }), "SessionComplete");
    expect(done.status).toBe("solved");
    expect(done.solutions.map((p) => [p.agent, p.verification?.verdict])).toEqual([
      ["solver", "valid"],
      ["cheater", "invalid"],
    ]);
  });

  it("an old log (the formal model in the analysis, proposals without a check) replays to the verdicts a new log records", () => {
    const bodies = [CHEAT, solution({ success: false, plan: ["unstack(C, A)", "(put-down c)"], satisfiesGoals: [{ goal: "tower", satisfied: true }] })];
    const old = reasoning(BLOCKS);
    const fresh = reasoningOnSummary();
    const oldEffects = bodies.map((body, i) => old.propose("s1", ["cheater", "solver"][i] as string, body));
    const freshEffects = bodies.map((body, i) => fresh.feed({ ...proposalInput("s1", ["cheater", "solver"][i] as string, body), verification: checked(body) }));
    expect(old.session().proposals.map((p) => p.verification?.verdict)).toEqual(["invalid", "invalid"]);
    expect(old.session().proposals).toEqual(fresh.session().proposals);
    expect(oldEffects).toEqual(freshEffects);
  });

  it("reports the free-text parts from the summary as it did from the model", () => {
    const informal = modelOf(`${fixture("blocksworld.ttl")}
<#quiet> a mfr:Constraint ; mfr:constraintType "noise" ; mfr:appliesTo "problem" ; mfr:constraintExpression "Keep the noise down after ten." .
<#tidy> a mfr:Goal ; rdfs:label "tidy" ; mfr:expression "The room looks tidy." .`);
    const d = reasoningOnSummary(summariseFormalModel(informal, "e".repeat(64)));
    const body = solution({ success: true, plan: VALID });
    d.feed({ ...proposalInput("s1", "cheater", body), verification: checkPlan(informal, claimedPlanOf(body)) });
    const done = onlyBroadcast(d.feed({ ...proposalInput("s1", "solver", body), verification: checkPlan(informal, claimedPlanOf(body)) }), "SessionComplete");
    expect(done.status).toBe("solved");
    expect(done.summary).toContain("Not machine-checkable: 2 free-text parts (1 constraint, 1 expression); plans are not checked there.");
  });
});
