import { describe, expect, it } from "vitest";
import { sessionListLine, sessionStatus, sessionSummary } from "../../src/session/report.js";
import {
  Driver,
  T0,
  conforming,
  failedSolution,
  finding,
  ok,
  onlyBroadcast,
  settings,
  solution,
  violating,
} from "../support/session-fixtures.js";

const PROBLEM = "Move three crates from the depot to the warehouse with one truck.";

function lines(text: string): string[] {
  return text.split("\n");
}

describe("sessionSummary", () => {
  it("tells the whole story of a solved session in at most 15 lines", () => {
    const d = new Driver();
    d.start({ problem: PROBLEM, expectedAgents: ["alice", "bob"] });
    d.advance(2_000).contribute("s1", "alice", { check: { ok: true, tripleCount: 20, counts: { entities: 3, stateVariables: 1, actions: 2, constraints: 0, goals: 1 } } });
    d.advance(2_000).contribute("s1", "bob", { check: { ok: true, tripleCount: 5, counts: { entities: 0, stateVariables: 0, actions: 0, constraints: 2, goals: 0 } } });
    d.advance(1_000).answer("s1", ok(conforming({ warnings: 1, findings: [finding({ severity: "Warning" })] })));
    d.advance(30_000).propose("s1", "bob", failedSolution("no plan"));
    const effects = d.advance(30_000).propose(
      "s1",
      "alice",
      solution({
        message: "Delivered all crates.",
        plan: ["load c1", "drive depot warehouse", "unload c1"],
        bindings: ["?t=truck1"],
        satisfiesGoals: [
          { goal: "c1-delivered", satisfied: true },
          { goal: "c2-delivered", satisfied: false },
        ],
      }),
    );
    const done = onlyBroadcast(effects, "SessionComplete");
    const summary = done.summary;
    expect(summary).toBe(d.session().completion?.summary);
    expect(summary).toBe(sessionSummary(d.session(), d.now + 99_999)); // a completed session's summary does not age
    expect(lines(summary).length).toBeLessThanOrEqual(15);

    expect(summary).toContain(PROBLEM);
    expect(summary).toContain("solved after 1 min 5 s");
    expect(summary).toContain("alice: 3 entities, 1 state variable, 2 actions, 1 goal");
    expect(summary).toContain("bob: 2 constraints");
    expect(summary).toContain("Validation: sound after 1 round (0 violations, 1 warning)");
    expect(summary).toContain("Best solution, from alice: Delivered all crates.");
    expect(summary).toContain("1. load c1");
    expect(summary).toContain("3. unload c1");
    expect(summary).toContain("Bindings: ?t=truck1");
    expect(summary).toContain("Goals claimed: 1 of 2 satisfied");
    expect(summary).toContain("c1-delivered");
    expect(summary).toContain("Other solutions: 1.");
  });

  it("stays within 15 lines in the fullest case", () => {
    const d = new Driver();
    const agents = Array.from({ length: 9 }, (_, i) => `agent${i}`);
    d.start({ problem: `${"a very long problem ".repeat(50)}\nwith\nnewlines`, expectedAgents: agents });
    for (const a of agents) d.advance(10).contribute("s1", a, { check: { ok: true, tripleCount: 1, counts: { entities: 1, stateVariables: 1, actions: 1, constraints: 1, goals: 1 } } });
    d.answer("s1", ok(conforming({ warnings: 3, violations: 0 })));
    for (const a of agents.slice(1)) d.advance(10).propose("s1", a, failedSolution(`failed\nbadly ${"x".repeat(500)}`));
    const long = Array.from({ length: 40 }, (_, i) => `step ${i}\nwith a newline`);
    d.advance(10).propose("s1", "agent0", solution({ message: "ok\n".repeat(50), plan: long, bindings: long, satisfiesGoals: long.map((goal) => ({ goal, satisfied: true })) }));
    const summary = d.session().completion?.summary ?? "";
    expect(d.session().completion?.status).toBe("solved");
    expect(lines(summary).length).toBeLessThanOrEqual(15);
    expect(summary).toContain("and 4 more");
    expect(summary).toContain("Other solutions: 8.");
  });

  it("stays within 15 lines for a failed session with a long reason", () => {
    const d = new Driver();
    const agents = Array.from({ length: 7 }, (_, i) => `agent${i}`);
    d.start({ expectedAgents: agents });
    for (const a of agents) d.advance(10).contribute("s1", a);
    d.answer("s1", ok(conforming()));
    for (const a of agents) d.advance(10).propose("s1", a, failedSolution("line1\nline2\nline3"));
    const done = onlyBroadcast(d.last, "SessionComplete");
    expect(done.status).toBe("failed");
    expect(lines(done.summary).length).toBeLessThanOrEqual(15);
    expect(done.summary).toContain("Solutions: 7, none successful.");
    expect(done.summary).toMatch(/^Why: No successful solution/m);
  });

  it("reports the validation outcome of a failed model and the reason", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"], settings: settings({ maxFixRounds: 0 }) });
    d.advance(1_500).contribute("s1", "alice");
    const done = onlyBroadcast(d.advance(500).answer("s1", ok(violating([finding(), finding({ message: "other" })]))), "SessionComplete");
    expect(done.summary).toContain("failed after 2 s");
    expect(done.summary).toContain("Validation: not sound after 1 round (2 violations, 0 warnings)");
    expect(done.summary).toContain("Why: The model still has 2 violations");
    expect(done.summary).not.toContain("Solutions:");
  });

  it("reports a validation that never finished", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"] });
    d.contribute("s1", "alice");
    const done = onlyBroadcast(d.expire(), "SessionComplete");
    expect(done.summary).toContain("Validation: could not finish");
  });

  it("says there were no contributors", () => {
    const d = new Driver();
    d.start();
    const done = onlyBroadcast(d.expire(), "SessionComplete");
    expect(done.summary).toContain("Contributors: none.");
    expect(done.summary).toContain("failed after 1 min 0 s");
  });

  it("marks contributors that were not requested", () => {
    const d = new Driver();
    d.start({ requestedAgents: ["alice"] });
    d.contribute("s1", "zed");
    d.cancel();
    expect(d.session().completion?.summary).toContain("zed: 2 entities, 1 action, 1 constraint, 1 goal (not requested)");
  });
});

describe("sessionStatus", () => {
  it("mentions phase, contributors, who is missing, validation state and time left", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"], settings: settings({ contributionTimeoutMs: 60_000 }) });
    d.advance(15_000).contribute("s1", "alice");
    const status = sessionStatus(d.session(), d.now);
    expect(status).toContain("collecting model contributions");
    expect(status).toContain("alice (2 entities, 1 action, 1 constraint, 1 goal)");
    expect(status).toMatch(/Waiting for: contributions from bob, until \d\d:\d\d:\d\d UTC \(45 s left\)\./);
    expect(status).toContain("Validation: not yet.");

    // The time left follows the clock given, never below zero.
    expect(sessionStatus(d.session(), T0 + 120_000)).toContain("(0 ms left)");
  });

  it("reports validation and proposals while reasoning", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob"], conforming({ warnings: 2 }));
    d.advance(1_000).propose("s1", "alice");
    const status = sessionStatus(d.session(), d.now);
    expect(status).toContain("collecting solution proposals");
    expect(status).toContain("Validation (round 1): sound, 0 violations, 2 warnings.");
    expect(status).toContain("Proposals: 1 of 2 asked.");
    expect(status).toMatch(/Waiting for: solutions from \w+, until \d\d:\d\d:\d\d UTC \(1 min 59 s left\)\./);
  });

  it("says how a completed session ended", () => {
    const d = new Driver();
    d.start();
    d.cancel();
    const status = sessionStatus(d.session(), d.now);
    // A finished session answers with its full summary.
    expect(status).toBe(d.session().completion?.summary);
    expect(status).toMatch(/^Session s1 cancelled after /);
    expect(status).toContain("Why: Cancelled by dana.");
    expect(status).not.toContain("Time left");
  });
});

describe("sessionListLine", () => {
  it("is one line with id, phase, age and problem", () => {
    const d = new Driver();
    d.start({ problem: "Plan\na\ntrip\nto Rome" });
    const line = sessionListLine(d.session(), T0 + 90_000);
    expect(line).not.toContain("\n");
    expect(line).toContain("s1");
    expect(line).toContain("collecting model contributions");
    expect(line).toContain("1 min 30 s ago");
    expect(line).toContain("Plan a trip to Rome");
  });

  it("shows the completion status of a finished session", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice"]);
    d.propose("s1", "alice");
    const line = sessionListLine(d.session(), d.now);
    expect(line).not.toContain("\n");
    expect(line).toContain("solved");
  });
});
