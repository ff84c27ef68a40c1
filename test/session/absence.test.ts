/**
 * An absence of the coordinator that overlapped an open window (session/absence.ts): the
 * window is asked again, marked as a repeat, to the agents it still awaits, and extended by
 * the time it was open while the coordinator was away; unless the room is known to keep
 * agents' protocol messages and gave back everything since before the absence.
 */
import { describe, expect, it } from "vitest";
import type { Input } from "../../src/session/step-io.js";
import { Driver, T0, broadcasts, conforming, ok, ofKind, says, settings, solution, violating, finding } from "../support/session-fixtures.js";

const WINDOWS = settings({ contributionTimeoutMs: 20_000, reasoningTimeoutMs: 20_000, quietPeriodMs: 5_000, awaitExpectedAgents: true, maxFixRounds: 1, maxRepairRounds: 1 });

function absence(from: number, to: number, facts: { kept?: boolean; reachedBack?: boolean } = {}): Input {
  return { kind: "absence", sessionId: "s1", from, to, kept: facts.kept ?? false, reachedBack: facts.reachedBack ?? true };
}

describe("an absence during the contribution window", () => {
  it("asks the agents still awaited again, same round, marked as a repeat, and extends the window by the time lost", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["cheater", "modeler"], settings: WINDOWS });
    d.advance(100).contribute("s1", "cheater");
    // Away from +2 s to +9 s; the modeler answered meanwhile, and the room kept nothing of it.
    const effects = d.feed(absence(T0 + 2_000, T0 + 9_000), T0 + 9_000);
    const [repeat] = broadcasts(effects, "ModelContributionRequest");
    expect(repeat).toMatchObject({ round: 1, requestedAgents: ["modeler"], repeat: true, issues: null });
    const body = ofKind(effects, "broadcast")[0]?.body ?? "";
    expect(body).toContain("asking again for model contributions");
    expect(body).not.toContain("modeler");
    // The window ended at +20 s; it was open 7 s of the absence: it now ends at +27 s.
    expect(d.session().deadline).toEqual({ kind: "contributions", at: T0 + 27_000 });
    expect(d.session().windowEndsAt).toBe(T0 + 27_000);
    // The modeler answers the repeat: the window closes with both.
    const closed = d.advance(3_000).contribute("s1", "modeler");
    expect(ofKind(closed, "analyse")[0]?.contributions.map((c) => c.agent)).toEqual(["cheater", "modeler"]);
  });

  it("a window whose end fell in the absence gets the time it had left then, from the return", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["modeler"], settings: WINDOWS });
    // Away from +15 s to +60 s: the window (to +20 s) lost its last 5 s.
    d.feed(absence(T0 + 15_000, T0 + 60_000), T0 + 60_000);
    expect(d.session().deadline?.at).toBe(T0 + 65_000);
  });

  it("with nobody known, asks the room (everyone), not named agents", () => {
    const d = new Driver();
    d.start({ expectedAgents: [], settings: WINDOWS });
    const effects = d.feed(absence(T0 + 1_000, T0 + 3_000), T0 + 3_000);
    expect(broadcasts(effects, "ModelContributionRequest")[0]).toMatchObject({ requestedAgents: null, repeat: true });
  });

  it("asks nothing when the room is known to keep protocol messages and what it gave back reached back", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["modeler"], settings: WINDOWS });
    const effects = d.feed(absence(T0 + 1_000, T0 + 3_000, { kept: true, reachedBack: true }), T0 + 3_000);
    expect(ofKind(effects, "broadcast")).toEqual([]);
    expect(d.session().deadline?.at).toBe(T0 + 20_000);
  });

  it("asks again when the room keeps them but its history did not reach back", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["modeler"], settings: WINDOWS });
    const effects = d.feed(absence(T0 + 1_000, T0 + 3_000, { kept: true, reachedBack: false }), T0 + 3_000);
    expect(broadcasts(effects, "ModelContributionRequest")).toHaveLength(1);
  });

  it("the same absence told again (by another room of the session) asks once", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["modeler"], settings: WINDOWS });
    d.feed(absence(T0 + 1_000, T0 + 3_000), T0 + 3_000);
    const again = d.feed(absence(T0 + 1_200, T0 + 3_100), T0 + 3_100);
    expect(ofKind(again, "broadcast")).toEqual([]);
    // A later absence is a new one.
    const later = d.feed(absence(T0 + 8_000, T0 + 9_000), T0 + 9_000);
    expect(broadcasts(later, "ModelContributionRequest")).toHaveLength(1);
  });

  it("in a fix round, asks those still to fix again, with their issues", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"], settings: WINDOWS });
    d.contribute("s1", "alice");
    d.contribute("s1", "bob");
    d.answer("s1", ok(violating([finding({ agents: ["alice"], message: "Goal has no label" }), finding({ agents: ["bob"], message: "Action has no name" })])));
    d.advance(1_000).contribute("s1", "alice");
    const effects = d.feed(absence(d.now, d.now + 4_000), d.now + 4_000);
    const [repeat] = broadcasts(effects, "ModelContributionRequest");
    expect(repeat).toMatchObject({ round: 2, requestedAgents: ["bob"], repeat: true });
    expect(Object.keys(repeat?.issues ?? {})).toEqual(["bob"]);
    expect(ofKind(effects, "broadcast")[0]?.body).toContain("asking again for the fixes of round 1");
  });
});

describe("an absence during the solution window", () => {
  it("sends the solution request again with the model, to the proposers known to answer, and extends the window", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"], expectedProposers: ["alice"], expectedSolvers: ["solver"], settings: WINDOWS });
    d.contribute("s1", "alice");
    d.answer("s1", ok(conforming({ modelTurtle: "<#m> a <http://purl.org/stuff/mfr/ProblemModel> ." })));
    const opened = d.now;
    d.advance(1_000).propose("s1", "alice", solution());
    const effects = d.feed(absence(opened + 2_000, opened + 6_000), opened + 6_000);
    const [repeat] = broadcasts(effects, "SolutionRequest");
    expect(repeat).toMatchObject({ model: "<#m> a <http://purl.org/stuff/mfr/ProblemModel> .", requestedAgents: ["solver"], repeat: true });
    expect(repeat?.round).toBeUndefined();
    expect(d.session().deadline).toEqual({ kind: "reasoning", at: opened + 20_000 + 4_000 });
  });

  it("asks nothing during validation: no window was open to agents", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"], settings: WINDOWS });
    d.contribute("s1", "alice");
    expect(d.session().phase).toBe("validating");
    const effects = d.feed(absence(d.now, d.now + 5_000), d.now + 5_000);
    expect(ofKind(effects, "broadcast")).toEqual([]);
  });
});

describe("an absence during a Chair's debate", () => {
  function debating(): Driver {
    const d = new Driver();
    d.start({ expectedAgents: [], settings: WINDOWS, choose: { method: "debate", chair: "Chair" } });
    expect(d.session().selection?.stage).toBe("debating");
    return d;
  }

  it("says the invitation again only when what the room gave back did not reach back (Chairs' lines have a body, which servers keep)", () => {
    const kept = debating();
    expect(ofKind(kept.feed(absence(T0 + 1_000, T0 + 5_000, { kept: false, reachedBack: true }), T0 + 5_000), "say")).toEqual([]);
    const lost = debating();
    const effects = lost.feed(absence(T0 + 1_000, T0 + 5_000, { kept: false, reachedBack: false }), T0 + 5_000);
    expect(says(effects, "primary")[0]?.text).toMatch(/^Session: s1\nIssue: Which tools and agents should we use/);
    expect(lost.session().deadline).toEqual({ kind: "selection", at: T0 + 60_000 + 4_000 });
  });
});
