/**
 * Solutions are judged by the coordinator's own check of the plan, not by the agent's
 * claims: a cheating claim loses to a valid plan, and only a valid plan solves a model that
 * has a formal part.
 */
import { describe, expect, it } from "vitest";
import { NO_FORMAL_MODEL } from "../../src/formal/index.js";
import { fixture, modelOf } from "../formal/helpers.js";
import { Driver, broadcasts, conforming, ok, onlyBroadcast, settings, solution } from "../support/session-fixtures.js";

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
    expect(done.summary).toMatch(/Verdicts:\n {2}solver: valid, 4 steps\n {2}cheater: invalid at step 2: \(handempty\) is false/);
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

