import { describe, expect, it } from "vitest";
import type { CompletionStatus, Phase } from "../../src/session/types.js";
import type { Effect } from "../../src/session/step-io.js";
import {
  Driver,
  HUMAN,
  T0,
  broadcasts,
  conforming,
  failedCheck,
  finding,
  ofKind,
  ok,
  onlyBroadcast,
  says,
  settings,
  tells,
  violating,
  visible,
  who,
  workerError,
} from "../support/session-fixtures.js";

/** Asserts the effects every completion carries, in order, and returns the SessionComplete. */
function expectCompletion(effects: Effect[], sessionId: string, status: CompletionStatus) {
  const done = onlyBroadcast(effects, "SessionComplete", sessionId);
  expect(done.status).toBe(status);
  expect(ofKind(effects, "unschedule")).toEqual([{ kind: "unschedule", sessionId }]);
  expect(ofKind(effects, "finished")).toEqual([{ kind: "finished", sessionId }]);
  const kinds = visible(effects).map((e) => e.kind);
  expect(kinds.indexOf("unschedule")).toBeLessThan(kinds.lastIndexOf("broadcast"));
  expect(kinds[kinds.length - 1]).toBe("finished");
  // The primary room's last line is one short status line, the SessionComplete's own body (not a
  // message of its own); the full summary it carries goes to the log room, with the detail.
  const at = effects.findIndex((e) => e.kind === "broadcast" && e.message.type === "SessionComplete");
  const completion = effects[at];
  const last = completion?.kind === "broadcast" ? (completion.body ?? "") : "";
  expect(last).toMatch(new RegExp(`^Session ${sessionId} ${status} after `));
  expect(last.length).toBeLessThan(300);
  expect(last).not.toContain("\n");
  expect(effects.slice(at + 1).filter((e) => e.kind === "say" && e.room === "primary")).toEqual([]);
  expect(says(effects, "log")).toHaveLength(1);
  expect(says(effects, "log")[0]?.text).toContain(done.summary);
  return done;
}

/** Drives a fresh session into the given phase. */
function inPhase(phase: Exclude<Phase, "complete">): Driver {
  const d = new Driver();
  d.start({ expectedAgents: ["alice", "bob"] });
  if (phase === "collecting") {
    d.advance(1_000).contribute("s1", "alice");
    return d;
  }
  d.advance(1_000).contribute("s1", "alice");
  d.advance(1_000).contribute("s1", "bob");
  if (phase === "validating") return d;
  d.advance(1_000).answer("s1", ok(conforming()));
  d.advance(1_000).propose("s1", "alice");
  return d;
}

describe("every completion", () => {
  const routes: Array<[string, (d: Driver) => Effect[], CompletionStatus]> = [
    ["solved", (d) => (d.toReasoning("s1", ["alice"]), d.propose("s1", "alice")), "solved"],
    ["no solution", (d) => (d.toReasoning("s1", ["alice"]), d.expire()), "failed"],
    ["no contributions", (d) => (d.start(), d.expire()), "failed"],
    ["worker error", (d) => (d.start({ expectedAgents: ["alice"] }), d.contribute("s1", "alice"), d.answer("s1", { ok: false, error: "boom", timedOut: false })), "failed"],
    ["worker timeout", (d) => (d.start({ expectedAgents: ["alice"] }), d.contribute("s1", "alice"), d.answer("s1", { ok: false, error: "slow", timedOut: true })), "timed-out"],
    ["validation deadline", (d) => (d.start({ expectedAgents: ["alice"] }), d.contribute("s1", "alice"), d.expire()), "timed-out"],
    [
      "violations",
      (d) => (d.start({ expectedAgents: ["alice"], settings: settings({ maxFixRounds: 0 }) }), d.contribute("s1", "alice"), d.answer("s1", ok(violating()))),
      "failed",
    ],
    ["cancel", (d) => (d.start(), d.cancel()), "cancelled"],
  ];
  for (const [name, route, status] of routes) {
    it(`emits SessionComplete, unschedule and finished (${name})`, () => {
      const d = new Driver();
      const effects = route(d);
      const done = expectCompletion(effects, "s1", status);
      const s = d.session();
      expect(s.phase).toBe("complete");
      expect(s.deadline).toBeNull();
      expect(s.completion).toEqual({ status, at: d.now, reason: done.reason, summary: done.summary });
      expect(d.completions()).toBe(1);
      if (status !== "solved") expect(done.reason).toBeTruthy();
    });
  }
});

describe("cancel", () => {
  for (const phase of ["collecting", "validating", "reasoning"] as const) {
    it(`cancels a session that is ${phase}`, () => {
      const d = inPhase(phase);
      expect(d.session().phase).toBe(phase);
      const effects = d.advance(1_000).cancel("s1", who("dana", "dana@people.example"));
      const done = expectCompletion(effects, "s1", "cancelled");
      expect(done.reason).toContain("Cancelled by dana");
      // Proposals received so far are still reported.
      expect(done.solutions).toHaveLength(phase === "reasoning" ? 1 : 0);
    });
  }

  it("answers a cancel of a completed session with a tell and no broadcast", () => {
    const d = inPhase("collecting");
    d.cancel();
    const effects = d.advance(1_000).cancel("s1", who("erin"));
    expect(tells(effects, "erin")[0]?.text).toContain("already complete (cancelled)");
    expect(ofKind(effects, "broadcast")).toEqual([]);
    expect(ofKind(effects, "finished")).toEqual([]);
    expect(ofKind(effects, "unschedule")).toEqual([]);
    expect(d.completions()).toBe(1);
  });
});

describe("SessionComplete exactly once", () => {
  it("ignores everything after completion except polite answers", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob"]);
    const reasoningDeadline = d.session().deadline?.at as number;
    const validationDeadline = ofKind(d.all, "schedule")[1]?.at as number;
    d.advance(1_000).propose("s1", "alice");
    d.advance(1_000).propose("s1", "bob");
    expect(d.completions()).toBe(1);
    const completed = d.session();

    const late: Effect[] = [];
    late.push(...d.advance(1_000).propose("s1", who("bob"), { success: true, message: "even better" }));
    expect(tells(d.last, "bob")[0]?.text).toContain("arrived too late");
    expect(ofKind(d.last, "broadcast")).toEqual([]);
    late.push(...d.advance(1_000).propose("s1", "carol"));
    late.push(...d.contribute("s1", "alice"));
    late.push(...d.contribute("s1", "bob", { check: failedCheck() }));
    late.push(...d.answer("s1", ok(conforming())));
    late.push(...d.answer("s1", { ok: false, error: "late", timedOut: true }));
    late.push(...d.feed({ kind: "deadline", sessionId: "s1", at: validationDeadline }, Math.max(d.now, validationDeadline)));
    late.push(...d.feed({ kind: "deadline", sessionId: "s1", at: reasoningDeadline }, Math.max(d.now, reasoningDeadline)));
    late.push(...d.feed({ kind: "deadline", sessionId: "s1", at: d.now }));
    late.push(...d.cancel());

    expect(d.completions()).toBe(1);
    expect(ofKind(late, "broadcast")).toEqual([]);
    expect(ofKind(late, "finished")).toEqual([]);
    expect(ofKind(late, "schedule")).toEqual([]);
    expect(ofKind(late, "analyse")).toEqual([]);
    expect(ofKind(late, "unschedule")).toEqual([]);
    expect(says(late)).toEqual([]);
    // Only the two late proposals, two contributions and the cancel got an answer.
    expect(ofKind(late, "tell").map((t) => t.nick)).toEqual(["bob", "carol", "alice", "bob", HUMAN.nick]);
    const s = d.session();
    expect(s.proposals).toEqual(completed.proposals);
    expect(s.completion).toEqual(completed.completion);
    expect(s.contributions).toEqual(completed.contributions);
    expect(s.phase).toBe("complete");
  });

  it("sends one SessionComplete when a cancel races a pending analysis", () => {
    const d = inPhase("validating");
    d.cancel();
    const effects = d.answer("s1", ok(conforming()));
    expect(visible(effects)).toEqual([]);
    const again = d.answer("s1", ok(violating()));
    expect(visible(again)).toEqual([]);
    expect(d.completions()).toBe(1);
    expect(broadcasts(d.all, "SolutionRequest")).toEqual([]);
  });
});

describe("deadlines", () => {
  it("schedules a deadline on every transition into collecting, validating and reasoning", () => {
    const d = new Driver();
    const seen: Array<[Phase, number | undefined]> = [];
    const record = (effects: Effect[]) => {
      const scheduled = ofKind(effects, "schedule");
      expect(scheduled).toHaveLength(1);
      expect(scheduled[0]?.at).toBe(d.session().deadline?.at);
      expect(scheduled[0]?.at).toBeGreaterThan(d.now);
      seen.push([d.session().phase, scheduled[0]?.at]);
    };
    record(d.start({ expectedAgents: ["alice"], settings: settings({ maxFixRounds: 1, contributionTimeoutMs: 1_000, validationTimeoutMs: 2_000, reasoningTimeoutMs: 3_000 }) })); // collecting
    record(d.advance(10).contribute("s1", "alice")); // validating (early merge)
    record(d.advance(10).answer("s1", ok(violating([finding({ agents: ["alice"] })])))); // collecting (fix round)
    record(d.expire()); // validating (window closed)
    record(d.advance(10).answer("s1", ok(conforming()))); // reasoning
    expect(seen.map(([phase]) => phase)).toEqual(["collecting", "validating", "collecting", "validating", "reasoning"]);
    expect(seen[0]?.[1]).toBe(T0 + 1_000);
    expect(seen[4]?.[1]).toBe(d.now + 3_000);
  });

  it("ignores a deadline input whose `at` is not the current deadline", () => {
    const d = inPhase("collecting");
    const at = d.session().deadline?.at as number;
    const before = d.session();
    for (const other of [at - 1, at + 1, T0]) {
      const effects = d.feed({ kind: "deadline", sessionId: "s1", at: other }, Math.max(d.now, other));
      expect(visible(effects)).toEqual([]);
      expect(d.session()).toEqual(before);
    }
  });

  it("ignores a deadline input delivered before its time", () => {
    const d = inPhase("reasoning");
    const at = d.session().deadline?.at as number;
    const before = d.session();
    const effects = d.feed({ kind: "deadline", sessionId: "s1", at }, at - 1);
    expect(visible(effects)).toEqual([]);
    expect(d.session()).toEqual(before);
    // Delivered on time, it works.
    expectCompletion(d.feed({ kind: "deadline", sessionId: "s1", at }, at), "s1", "solved");
  });

  it("ignores the previous phase's deadline after an early transition", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"] });
    const contributionDeadline = d.session().deadline?.at as number;
    d.advance(10).contribute("s1", "alice");
    expect(d.session().phase).toBe("validating");
    const before = d.session();
    const effects = d.feed({ kind: "deadline", sessionId: "s1", at: contributionDeadline }, contributionDeadline);
    expect(visible(effects)).toEqual([]);
    expect(d.session()).toEqual(before);
  });

  it("accepts a deadline delivered later than its time", () => {
    const d = inPhase("collecting");
    const at = d.session().deadline?.at as number;
    const effects = d.feed({ kind: "deadline", sessionId: "s1", at }, at + 5_000);
    expect(ofKind(effects, "analyse")).toHaveLength(1);
  });

  it("clears the deadline and schedules nothing when a session ends", () => {
    const d = inPhase("validating");
    const effects = d.answer("s1", workerError("boom"));
    expect(ofKind(effects, "schedule")).toEqual([]);
    expect(d.session().deadline).toBeNull();
  });
});

describe("a session solved on an agent's claim", () => {
  it("says the plan was not checked and why, and gives the goals as claimed, never as met; a checked plan keeps (checked valid)", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["cheater"] });
    d.contribute("s1", "cheater");
    // The model has no formal part: nothing can be checked, so the claim decides.
    d.answer("s1", ok(conforming({ formalSummary: { digest: "", hasFormalPart: false, notMachineCheckable: [] } })));
    const effects = d.propose("s1", "cheater", {
      success: true,
      message: "Both patients in one slot.",
      plan: ["book(p1, s1)", "book(p2, s1)"],
      satisfiesGoals: [
        { goal: "p1 booked", satisfied: true },
        { goal: "p2 booked", satisfied: true },
      ],
    });
    const done = onlyBroadcast(effects, "SessionComplete", "s1");
    expect(done.status).toBe("solved");
    const line = ofKind(effects, "broadcast").find((b) => b.message.type === "SessionComplete")?.body ?? "";
    expect(line).toContain("a plan of 2 steps, not checked (the model has no formal part): solved on the agent's own claim, 2 of 2 goals claimed");
    expect(line).not.toContain("goals met");
    expect(line).not.toContain("checked valid");
    expect(done.summary).toContain("Not checked: the model has no formal part, so the session is solved on cheater's own claim.");
  });
});
