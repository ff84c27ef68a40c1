import { describe, expect, it } from "vitest";
import type { ModelAnalysis } from "../../src/session/types.js";
import { sessionStatus } from "../../src/session/status-text.js";
import {
  Driver,
  broadcasts,
  conforming,
  finding,
  ofKind,
  ok,
  onlyBroadcast,
  says,
  settings,
  violating,
  plain,
} from "../support/session-fixtures.js";

function collectedFrom(agents: string[], maxFixRounds: number): Driver {
  const d = new Driver();
  d.start({ expectedAgents: agents, settings: settings({ maxFixRounds, contributionTimeoutMs: 30_000 }) });
  for (const a of agents) d.advance(1_000).contribute("s1", a);
  expect(d.session().phase).toBe("validating");
  return d;
}

const aliceBroken = () => violating([finding({ agents: ["alice"], message: "Entity has no mfr:entityType", focusNode: "urn:e1", path: "mfr:entityType" })]);

describe("fix rounds", () => {
  it("asks the responsible agents to fix their violations in a new round", () => {
    const d = collectedFrom(["alice", "bob", "carol"], 2);
    const analysis = violating([
      finding({ agents: ["alice"], message: "Entity has no mfr:entityType", focusNode: "urn:e1", path: "mfr:entityType" }),
      finding({ agents: ["bob"], message: "Action has two names", focusNode: "urn:a1", path: undefined }),
      finding({ agents: ["alice"], message: "Goal has no label", focusNode: "urn:g1", path: undefined }),
      finding({ severity: "Warning", agents: ["carol"], message: "Action has no effect" }),
    ]);
    const effects = d.advance(500).answer("s1", ok(analysis));
    const request = onlyBroadcast(effects, "ModelContributionRequest");
    expect(request.round).toBe(2);
    expect(request.requestedAgents).toEqual(["alice", "bob"]);
    expect(request.issues).toEqual({
      alice: ["Entity has no mfr:entityType (urn:e1, mfr:entityType)", "Goal has no label (urn:g1)"],
      bob: ["Action has two names (urn:a1)"],
    });
    const s = d.session();
    expect(s.phase).toBe("collecting");
    expect(s.round).toBe(2);
    expect(s.expectedAgents).toEqual(["alice", "bob"]);
    expect(ofKind(effects, "schedule")).toEqual([{ kind: "schedule", sessionId: "s1", at: d.now + 30_000 }]);
    // The validation result came first and says what is wrong; the fix-round request has the
    // line that opens the round (a client library that hands a bot only messages with a body
    // must see it); who fixes what goes to the log room.
    const [result, fixRequest] = ofKind(effects, "broadcast");
    expect(ofKind(effects, "broadcast").map((b) => b.message.type)).toEqual(["ModelValidationResult", "ModelContributionRequest"]);
    // It names the violations, what and whose (the warning is not one), so it is marked as status.
    expect(result?.body).toBe(
      "Session s1: the model has 3 violations (and 1 warning): urn:e1: entity has no mfr:entityType — alice to fix; urn:a1: action has two names — bob to fix; urn:g1: goal has no label — alice to fix.",
    );
    // The request's line names no agent (agents answer lines that name them).
    expect(plain(fixRequest?.body)).toBe("Session s1: fix round 1 of 2: 2 agents asked to fix the model, open for 30 s.");
    expect(says(effects, "primary")).toEqual([]);
    expect(says(effects, "log")[0]?.text).toContain("alice: Entity has no mfr:entityType (urn:e1, mfr:entityType)");
    expect(broadcasts(effects, "SessionComplete")).toEqual([]);
  });

  it("names three violations in the room line, counts the rest, and mfr-status lists them", () => {
    const d = collectedFrom(["alice", "bob"], 0);
    const analysis = violating(
      ["a", "b", "c", "d", "e"].map((x) => finding({ agents: [x < "c" ? "alice" : "bob"], message: `Goal ${x} has no statement`, focusNode: `http://purl.org/stuff/mfr/session/s1/goal-${x}` })),
    );
    const effects = d.advance(500).answer("s1", ok(analysis));
    // No fix round is left: the same line, then the session fails; IRIs of the session read short.
    expect(onlyBroadcast(effects, "ModelValidationResult")).toBeDefined();
    expect(ofKind(effects, "broadcast")[0]?.body).toBe(
      "Session s1: the model has 5 violations: goal-a: goal a has no statement — alice to fix; goal-b: goal b has no statement — alice to fix; goal-c: goal c has no statement — bob to fix; and 2 more (mfr-status s1). " +
        "No fix rounds are left (0 allowed), so the session ends.",
    );
    const status = sessionStatus(d.session(), d.now);
    expect(status).toContain("Violations (round 1):");
    for (const x of ["a", "b", "c", "d", "e"]) expect(status).toContain(`Goal ${x} has no statement (goal-${x},`);
  });

  it("assigns a violation that names no agent to every contributor", () => {
    const d = collectedFrom(["alice", "bob"], 1);
    const effects = d.answer("s1", ok(violating([finding({ agents: [], message: "The model has no Entity", focusNode: "", path: undefined })])));
    const request = onlyBroadcast(effects, "ModelContributionRequest");
    expect(request.requestedAgents).toEqual(["alice", "bob"]);
    expect(request.issues).toEqual({ alice: ["The model has no Entity"], bob: ["The model has no Entity"] });
  });

  it("merges early in a fix round once every responsible agent resubmitted", () => {
    const d = collectedFrom(["alice", "bob"], 1);
    d.answer("s1", ok(violating([finding({ agents: ["alice"] }), finding({ agents: ["bob"], message: "other" })])));
    const one = d.advance(1_000).contribute("s1", "bob", { turtle: "BOB2" });
    expect(ofKind(one, "analyse")).toEqual([]);
    const two = d.advance(1_000).contribute("s1", "Alice", { turtle: "ALICE2" });
    const analyse = ofKind(two, "analyse");
    expect(analyse).toHaveLength(1);
    expect(analyse[0]?.contributions).toEqual([
      { agent: "bob", turtle: "BOB2" },
      { agent: "Alice", turtle: "ALICE2" },
    ]);
    expect(d.session().phase).toBe("validating");
  });

  it("keeps unaffected contributions and does not wait for agents who were not asked to fix", () => {
    const d = collectedFrom(["alice", "bob"], 1);
    d.answer("s1", ok(aliceBroken()));
    const effects = d.advance(1_000).contribute("s1", "alice", { turtle: "ALICE2" });
    // bob's round-1 contribution is still merged; only alice was waited for.
    expect(ofKind(effects, "analyse")[0]?.contributions.map((c) => c.agent).sort()).toEqual(["alice", "bob"]);
  });

  it("counts a round-1 contribution as not yet resubmitted in the fix round", () => {
    const d = collectedFrom(["alice", "bob"], 1);
    d.answer("s1", ok(aliceBroken()));
    // bob answers the fix request too (existing peers answer every request); alice is still missing.
    const effects = d.advance(1_000).contribute("s1", "bob");
    expect(ofKind(effects, "analyse")).toEqual([]);
    // At the deadline the window closes with what there is.
    const closed = d.expire();
    expect(says(closed, "primary")[0]?.text).toBe("Session s1: the window of fix round 1 closed; received from bob, nothing from alice; validating what arrived.");
    expect(ofKind(closed, "analyse")).toHaveLength(1);
  });

  const stillViolating = (): ModelAnalysis => aliceBroken();

  for (const maxFixRounds of [0, 1, 2]) {
    it(`stops after ${maxFixRounds} fix round(s) when the model still violates`, () => {
      const d = collectedFrom(["alice", "bob"], maxFixRounds);
      const requests = () => broadcasts(d.all, "ModelContributionRequest").length;
      for (let round = 1; round <= maxFixRounds; round++) {
        const effects = d.advance(1_000).answer("s1", ok(stillViolating()));
        expect(onlyBroadcast(effects, "ModelContributionRequest").round).toBe(round + 1);
        expect(d.completions()).toBe(0);
        d.advance(1_000).contribute("s1", "alice");
        expect(d.session().phase).toBe("validating");
      }
      const last = d.advance(1_000).answer("s1", ok(stillViolating()));
      expect(broadcasts(last, "ModelContributionRequest")).toEqual([]);
      expect(onlyBroadcast(last, "ModelValidationResult").round).toBe(maxFixRounds + 1);
      const done = onlyBroadcast(last, "SessionComplete");
      expect(done.status).toBe("failed");
      expect(done.reason).toContain("still has 1 violation");
      expect(done.reason).toContain(`after ${maxFixRounds} fix round`);
      expect(done.reason).toMatch(/Next: .*mfr-start/);
      expect(done.reason).toContain(stillViolating().summary);
      expect(requests()).toBe(1 + maxFixRounds);
      expect(d.session().round).toBe(maxFixRounds + 1);
      expect(d.completions()).toBe(1);
    });
  }

  it("lets a fix round succeed", () => {
    const d = collectedFrom(["alice", "bob"], 1);
    d.answer("s1", ok(aliceBroken()));
    d.advance(1_000).contribute("s1", "alice");
    const effects = d.answer("s1", ok(conforming()));
    expect(broadcasts(effects, "SolutionRequest")).toHaveLength(1);
    expect(onlyBroadcast(effects, "ModelValidationResult")).toMatchObject({ round: 2, conforms: true });
  });

  it("never blocks on warnings alone", () => {
    const d = collectedFrom(["alice", "bob"], 0);
    const effects = d.answer("s1", ok(conforming({ warnings: 3, findings: [finding({ severity: "Warning", message: "no goal" })] })));
    expect(broadcasts(effects, "ModelContributionRequest")).toEqual([]);
    expect(broadcasts(effects, "SessionComplete")).toEqual([]);
    expect(broadcasts(effects, "SolutionRequest")).toHaveLength(1);
    expect(d.session().phase).toBe("reasoning");
  });
});
