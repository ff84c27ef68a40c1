import { describe, expect, it } from "vitest";
import { goalsSatisfied, rankProposals } from "../../src/session/ranking.js";
import type { Verdict } from "../../src/formal/index.js";
import fc from "fast-check";
import type { Proposal, SolutionBody } from "../../src/session/types.js";
import {
  Driver,
  T0,
  broadcasts,
  conforming,
  failedSolution,
  ofKind,
  ok,
  onlyBroadcast,
  settings,
  solution,
  tells,
  who,
} from "../support/session-fixtures.js";

describe("solution request", () => {
  it("sends the validated model to every contributor and schedules the reasoning deadline", () => {
    const d = new Driver();
    d.start({ requestedAgents: ["alice"], expectedAgents: ["alice"], settings: settings({ reasoningTimeoutMs: 90_000, contributionTimeoutMs: 10_000 }) });
    d.advance(1_000).contribute("s1", "carol"); // not requested, still a contributor
    d.advance(1_000).contribute("s1", "alice");
    const effects = d.advance(500).answer("s1", ok(conforming({ modelTurtle: "THE MERGED MODEL" })));
    expect(onlyBroadcast(effects, "SolutionRequest")).toEqual({ type: "SolutionRequest", sessionId: "s1", model: "THE MERGED MODEL" });
    const s = d.session();
    expect(s.phase).toBe("reasoning");
    expect(s.solvers.sort()).toEqual(["alice", "carol"]);
    expect(s.solutionRequestedAt).toBe(T0 + 2_500);
    expect(s.model?.modelTurtle).toBe("THE MERGED MODEL");
    expect(ofKind(effects, "schedule")).toEqual([{ kind: "schedule", sessionId: "s1", at: T0 + 2_500 + 90_000 }]);
    expect(s.deadline).toEqual({ kind: "reasoning", at: T0 + 2_500 + 90_000 });
  });
});

describe("reasoning", () => {
  it("collects proposals and finishes early once every contributor has proposed", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob"]);
    const first = d.advance(1_000).propose("s1", "alice", solution({ message: "alice plan" }));
    expect(broadcasts(first, "SessionComplete")).toEqual([]);
    expect(d.session().proposals).toHaveLength(1);
    expect(d.session().phase).toBe("reasoning");
    const second = d.advance(1_000).propose("s1", "BOB", failedSolution("bob could not plan"));
    const done = onlyBroadcast(second, "SessionComplete");
    expect(done.status).toBe("solved");
    expect(done.reason).toBeUndefined();
    expect(done.solutions.map((p) => p.agent)).toEqual(["alice", "BOB"]);
  });

  it("replaces an agent's earlier proposal with its second one", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob"]);
    d.advance(1_000).propose("s1", "alice", failedSolution("first try failed"));
    d.advance(1_000).propose("s1", "Alice", solution({ message: "second try works" }));
    expect(d.session().proposals).toHaveLength(1);
    expect(d.session().proposals[0]).toMatchObject({ agent: "Alice", receivedAt: d.now, solution: { message: "second try works" } });
    expect(d.session().phase).toBe("reasoning");
    const done = onlyBroadcast(d.expire(), "SessionComplete");
    expect(done.status).toBe("solved");
    expect(done.solutions).toHaveLength(1);
  });

  it("is solved at the deadline with at least one success, all solutions best first", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob", "carol"]);
    d.advance(1_000).propose("s1", "alice", failedSolution("alice failed"));
    d.advance(1_000).propose("s1", "bob", solution({ message: "bob ok", satisfiesGoals: [{ goal: "g1", satisfied: true }] }));
    d.advance(1_000).propose("s1", "dave", solution({ message: "dave better", satisfiesGoals: [{ goal: "g1", satisfied: true }, { goal: "g2", satisfied: true }] }));
    // carol never answers; dave was not a contributor so his proposal does not close the window.
    expect(d.session().phase).toBe("reasoning");
    const done = onlyBroadcast(d.expire(), "SessionComplete");
    expect(done.status).toBe("solved");
    // dave claims more goals, but claims do not rank and he was not asked: bob, who was, comes first.
    expect(done.solutions.map((p) => p.agent)).toEqual(["bob", "dave", "alice"]);
  });

  it("fails when nobody succeeded, naming who was asked, who answered and why each failed", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob", "carol"]);
    d.advance(1_000).propose("s1", "alice", failedSolution("no plan found", { executionError: "Prolog: undefined predicate at/2" }));
    d.advance(1_000).propose("s1", "bob", failedSolution("goal unreachable"));
    const done = onlyBroadcast(d.expire(), "SessionComplete");
    expect(done.status).toBe("failed");
    const reason = done.reason ?? "";
    expect(reason).toContain("Asked: alice, bob and carol");
    expect(reason).toContain("alice failed: Prolog: undefined predicate at/2");
    expect(reason).toContain("bob failed: goal unreachable");
    expect(reason).toContain("No answer from carol");
    expect(done.solutions).toHaveLength(2);
  });

  it("does not list a solver as silent when it answered under a differently-cased nick", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob"]);
    d.advance(1_000).propose("s1", "Alice", failedSolution("nope"));
    const done = onlyBroadcast(d.expire(), "SessionComplete");
    expect(done.reason).toContain("No answer from bob.");
    expect(done.reason).not.toMatch(/No answer from alice/i);
  });

  it("fails early when every contributor proposed and none succeeded", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice"]);
    const done = onlyBroadcast(d.advance(1_000).propose("s1", "alice", failedSolution("stuck")), "SessionComplete");
    expect(done.status).toBe("failed");
    expect(done.reason).toContain("alice failed: stuck");
  });

  it("fails when no proposal at all arrived by the deadline", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob"]);
    const effects = d.expire();
    expect(d.now).toBe(d.session().completion?.at);
    const done = onlyBroadcast(effects, "SessionComplete");
    expect(done.status).toBe("failed");
    expect(done.solutions).toEqual([]);
    expect(done.reason).toContain("Nobody proposed a solution");
    expect(done.reason).toContain("Asked: alice and bob");
  });

  it("refuses a proposal that arrives before the SolutionRequest", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    const collecting = d.propose("s1", "alice");
    expect(tells(collecting, "alice")[0]?.text).toContain("not asking for solutions yet");
    d.contribute("s1", "alice");
    d.contribute("s1", "bob");
    expect(d.session().phase).toBe("validating");
    const validating = d.propose("s1", "bob");
    expect(tells(validating, "bob")[0]?.text).toContain("validating");
    expect(d.session().proposals).toEqual([]);
    expect(ofKind(d.all, "broadcast").filter((b) => b.message.type === "SessionComplete")).toEqual([]);
  });

  it("keeps extra fields of a proposal", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice"]);
    const done = onlyBroadcast(d.propose("s1", who("alice"), solution({ confidence: 0.9 })), "SessionComplete");
    expect(done.solutions[0]?.solution["confidence"]).toBe(0.9);
  });
});

describe("rankProposals", () => {
  const p = (agent: string, receivedAt: number, body: Partial<SolutionBody> & { success: boolean }): Proposal => ({
    agent,
    agentJid: undefined,
    receivedAt,
    solution: { message: agent, ...body },
  });
  const goals = (satisfied: number, unsatisfied = 0) => [
    ...Array.from({ length: satisfied }, (_, i) => ({ goal: `g${i}`, satisfied: true })),
    ...Array.from({ length: unsatisfied }, (_, i) => ({ goal: `u${i}`, satisfied: false })),
  ];

  it("puts successful proposals before failed ones, whatever their goals and times", () => {
    const failed = p("failed", 1, { success: false, satisfiesGoals: goals(5) });
    const succeeded = p("succeeded", 9, { success: true });
    expect(rankProposals([failed, succeeded]).map((x) => x.agent)).toEqual(["succeeded", "failed"]);
  });

  it("never ranks on claimed goals: a goal listed fifty times is still a claim", () => {
    const stuffer = p("stuffer", 1, { success: true, satisfiesGoals: Array.from({ length: 50 }, () => ({ goal: "g", satisfied: true })) });
    const honest = p("honest", 0, { success: true });
    expect(rankProposals([stuffer, honest]).map((x) => x.agent)).toEqual(["honest", "stuffer"]);
    expect(goalsSatisfied(stuffer)).toBe(1);
  });

  it("then prefers the earlier proposal", () => {
    const late = p("late", 300, { success: true, satisfiesGoals: goals(2) });
    const early = p("early", 100, { success: true, satisfiesGoals: goals(2, 1) });
    const failedLate = p("failedLate", 500, { success: false });
    const failedEarly = p("failedEarly", 400, { success: false });
    expect(rankProposals([failedLate, late, failedEarly, early]).map((x) => x.agent)).toEqual(["early", "late", "failedEarly", "failedLate"]);
  });

  describe("within a verdict (issue order: requested first, then fewer steps, then earlier)", () => {
    const checked = (agent: string, receivedAt: number, verdict: Verdict, steps: number, success = true): Proposal => ({
      ...p(agent, receivedAt, { success, plan: Array.from({ length: steps }, (_, i) => `(step s${i})`) }),
      verification: { verdict, reason: verdict },
    });

    it("puts valid before unverifiable before invalid, whatever the claims", () => {
      const invalid = checked("invalid", 0, "invalid", 1, true);
      const unverifiable = checked("unverifiable", 1, "unverifiable", 1, true);
      const valid = checked("valid", 2, "valid", 9, false);
      expect(rankProposals([invalid, unverifiable, valid]).map((x) => x.agent)).toEqual(["valid", "unverifiable", "invalid"]);
    });

    it("puts requested agents before unrequested ones, then fewer steps, then earlier", () => {
      const strangerShort = checked("stranger", 0, "valid", 2);
      const askedLong = checked("Asked", 5, "valid", 6);
      const askedShortLate = checked("other", 9, "valid", 3);
      const askedShortEarly = checked("third", 8, "valid", 3);
      const ranked = rankProposals([strangerShort, askedLong, askedShortLate, askedShortEarly], ["asked", "other", "third"]);
      expect(ranked.map((x) => x.agent)).toEqual(["third", "other", "Asked", "stranger"]);
    });

    it("ranks a proposal without a plan behind every plan of its verdict", () => {
      const noPlan: Proposal = { ...p("noplan", 0, { success: true }), verification: { verdict: "valid", reason: "" } };
      expect(rankProposals([noPlan, checked("long", 5, "valid", 12)]).map((x) => x.agent)).toEqual(["long", "noplan"]);
    });

    it("orders any list the same way whatever order it arrives in (a total order)", () => {
      const verdicts: Verdict[] = ["valid", "invalid", "unverifiable"];
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.record({ agent: fc.string({ minLength: 1, maxLength: 4 }), at: fc.nat(50), v: fc.constantFrom(...verdicts), steps: fc.nat(5), asked: fc.boolean(), success: fc.boolean() }), { selector: (r) => r.agent.toLowerCase(), maxLength: 8 }),
          (rows) => {
            const list = rows.map((r) => checked(r.agent, r.at, r.v, r.steps, r.success));
            const asked = rows.filter((r) => r.asked).map((r) => r.agent);
            const once = rankProposals(list, asked).map((x) => x.agent);
            expect(rankProposals([...list].reverse(), asked).map((x) => x.agent)).toEqual(once);
            const rank = { valid: 0, unverifiable: 1, invalid: 2 };
            const seen = rankProposals(list, asked).map((x) => rank[x.verification?.verdict ?? "unverifiable"]);
            expect(seen).toEqual([...seen].sort((a, b) => a - b));
          },
        ),
      );
    });
  });

  it("does not reorder the array it was given", () => {
    const list = Object.freeze([p("b", 2, { success: false }), p("a", 1, { success: true })]);
    const ranked = rankProposals(list);
    expect(ranked.map((x) => x.agent)).toEqual(["a", "b"]);
    expect(list.map((x) => x.agent)).toEqual(["b", "a"]);
  });
});
