import { describe, expect, it } from "vitest";
import { sessionSummary } from "../../src/session/report.js";
import { sessionStatus } from "../../src/session/status-text.js";
import { listedOf, sessionsTable } from "../../src/session/list-text.js";
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

/** Durations keep a no-break space between number and unit (text.ts NBSP); the expectations read them as spaces. */
function plain(text: string): string {
  return text.replace(/\u00a0/g, " ");
}

/** The most lines a summary takes: one fact per line, a plan of up to 15 steps one per line. */
const SUMMARY_MAX_LINES = 40;

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
    const summary = plain(done.summary);
    expect(done.summary).toBe(d.session().completion?.summary);
    expect(done.summary).toBe(sessionSummary(d.session(), d.now + 99_999)); // a completed session's summary does not age
    expect(lines(summary).length).toBeLessThanOrEqual(SUMMARY_MAX_LINES);

    expect(summary).toContain(`Problem: ${PROBLEM}`);
    expect(summary).toMatch(/^Session s1 solved after 1 min 5 s, started by dana\.$/m);
    expect(summary).toContain("alice: 3 entities, 1 state variable, 2 actions, 1 goal");
    expect(summary).toContain("bob: 2 constraints");
    expect(summary).toContain("Validation: sound after 1 round (0 violations, 1 warning)");
    expect(summary).toContain("Best solution, from alice: Delivered all crates.");
    // One step per line, each with its number.
    expect(summary).toContain("  Plan (3 steps):\n    1. load c1\n    2. drive depot warehouse\n    3. unload c1\n");
    expect(summary).toContain("Bindings: ?t=truck1");
    // Not checked against a formal model: the goals are the agent's claim.
    expect(summary).toContain("Goals claimed: 1 of 2 (c1-delivered ✓, c2-delivered ✗)");
    // Every proposal once, best first, the best included.
    expect(summary).toContain("Solutions, best first (2):\n  alice: claims success (not checked)\n  bob: claims failure");
  });

  it("stays within its bound in the fullest case", () => {
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
    expect(lines(summary).length).toBeLessThanOrEqual(SUMMARY_MAX_LINES);
    expect(summary).toContain("  … and 4 more\n");
    expect(summary).toContain("    15. step 14 with a newline\n    … and 25 more steps (mfr-coordinator export has them all)");
    expect(summary).toContain("Solutions, best first (9):");
  });

  it("stays within its bound for a failed session with a long reason", () => {
    const d = new Driver();
    const agents = Array.from({ length: 7 }, (_, i) => `agent${i}`);
    d.start({ expectedAgents: agents });
    for (const a of agents) d.advance(10).contribute("s1", a);
    d.answer("s1", ok(conforming()));
    for (const a of agents) d.advance(10).propose("s1", a, failedSolution("line1\nline2\nline3"));
    const done = onlyBroadcast(d.last, "SessionComplete");
    expect(done.status).toBe("failed");
    expect(lines(done.summary).length).toBeLessThanOrEqual(SUMMARY_MAX_LINES);
    expect(done.summary).toContain("Solutions, best first (7):");
    expect(done.summary).toMatch(/^Why: No successful solution/m);
  });

  it("reports the validation outcome of a failed model and the reason", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"], settings: settings({ maxFixRounds: 0 }) });
    d.advance(1_500).contribute("s1", "alice");
    const done = onlyBroadcast(d.advance(500).answer("s1", ok(violating([finding(), finding({ message: "other" })]))), "SessionComplete");
    expect(plain(done.summary)).toContain("failed after 2 s");
    expect(done.summary).toContain("Validation: not sound after 1 round (2 violations, 0 warnings)");
    expect(done.summary).toContain("Why: The model still has 2 violations");
    expect(done.summary).not.toContain("Solutions");
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
    expect(plain(done.summary)).toContain("failed after 1 min, started by dana.");
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
  it("mentions phase, who started it and when, contributors, who is awaited, validation state and when the window closes", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"], settings: settings({ contributionTimeoutMs: 60_000 }) });
    d.advance(15_000).contribute("s1", "alice");
    const status = plain(sessionStatus(d.session(), d.now));
    expect(status).toMatch(/^Session s1: collecting model contributions, started by dana 15 s ago\.$/m);
    expect(status).toContain(`Problem: ${PROBLEM}`);
    expect(status).toContain("alice (2 entities, 1 action, 1 constraint, 1 goal)");
    expect(status).toContain("Waiting for: contributions from bob; the window closes when they have answered, at the latest in 45 s.");
    expect(status).toContain("Validation: not yet.");
    // Times are said as delays, never as a clock (a chat client shows local time).
    expect(status).not.toMatch(/UTC|\d\d:\d\d:\d\d/);
    // The time left follows the clock given, never below zero.
    expect(plain(sessionStatus(d.session(), T0 + 120_000))).toContain("at the latest now.");
  });

  it("says why a window will close early: the quiet period, when nobody still awaited is known", () => {
    const d = new Driver();
    d.start({ expectedAgents: [], settings: settings({ contributionTimeoutMs: 30_000, quietPeriodMs: 5_000, awaitExpectedAgents: true }) });
    expect(plain(sessionStatus(d.session(), d.now))).toContain("Waiting for: contributions from any agent; the window closes at the latest in 30 s, or 5 s after the first answer when no new one comes.");
    d.advance(1_000).contribute("s1", "alice");
    expect(plain(sessionStatus(d.session(), d.now + 1_000))).toContain(
      "Waiting for: more contributions; the window closes in 4 s, early: 5 s without a new answer ends it, since nobody else it waits for is known (at the latest in 28 s).",
    );
  });

  it("reports validation and proposals while reasoning", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob"], conforming({ warnings: 2 }));
    d.advance(1_000).propose("s1", "alice");
    const status = plain(sessionStatus(d.session(), d.now));
    expect(status).toContain("collecting solution proposals");
    expect(status).toContain("Validation (round 1): sound, 0 violations, 2 warnings.");
    expect(status).toContain("Proposals: 1 so far.");
    expect(status).toContain("Waiting for: solutions from bob; the window closes at the latest in 1 min 59 s.");
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
    expect(status).not.toContain("Waiting for");
  });
});

describe("the mfr-list table", () => {
  it("is one aligned line per session with id, status, age, who started it, outcome and problem", () => {
    const rows = ["s1", "s22", "s333"].map((id, i) => {
      const d = new Driver();
      if (i === 1) d.toReasoning(id, ["alice"]);
      else d.start({ sessionId: id, problem: "Plan\na\ntrip\nto Rome." });
      return listedOf(d.session(id));
    });
    const table = plain(sessionsTable(rows, T0 + 90_000));
    const tableLines = lines(table);
    expect(tableLines).toHaveLength(3);
    // Columns line up: the status column starts at the same place on every line.
    const statusAt = tableLines.map((l) => l.search(/ (collecting|reasoning)/));
    expect(new Set(statusAt).size).toBe(1);
    expect(tableLines[0]).toContain("collecting");
    expect(tableLines[0]).toContain("1 min 30 s ago");
    expect(tableLines[0]).toContain("by dana");
    expect(tableLines[0]).toContain('"Plan a trip to Rome"');
  });

  it("tells sessions on the same problem apart by their outcome", () => {
    const solved = new Driver();
    solved.toReasoning("s1", ["alice"]);
    solved.propose("s1", "alice");
    const failed = new Driver();
    failed.start({ sessionId: "s2" });
    failed.expire("s2");
    const table = plain(sessionsTable([listedOf(solved.session("s1")), listedOf(failed.session("s2"))], solved.now));
    expect(table).toMatch(/s1 +solved .*alice, 3 steps, not checked/);
    expect(table).toMatch(/s2 +failed .*no usable model contribution/i);
  });
});
