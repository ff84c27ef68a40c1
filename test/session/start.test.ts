import { describe, expect, it } from "vitest";
import { emptySessions, step } from "../../src/session/step.js";
import type { Input } from "../../src/session/step-io.js";
import {
  HUMAN,
  Driver,
  T0,
  broadcasts,
  conforming,
  contributionInput,
  failedCheck,
  ofKind,
  ok,
  onlyBroadcast,
  proposalInput,
  says,
  settings,
  startInput,
  tells,
  violating,
  visible,
  who,
} from "../support/session-fixtures.js";

describe("start", () => {
  it("creates a session in collecting, round 1, says so, asks everyone and schedules the window", () => {
    const d = new Driver();
    const effects = d.start({ settings: settings({ contributionTimeoutMs: 45_000 }) });

    const s = d.session("s1");
    expect(s.phase).toBe("collecting");
    expect(s.round).toBe(1);
    expect(s.startedAt).toBe(T0);
    expect(s.problem).toBe(startInput().problem);
    expect(s.completion).toBeNull();

    // One event, one line: the request's body is the line that says the session started.
    expect(says(effects, "primary")).toHaveLength(0);
    const started = ofKind(effects, "broadcast")[0]?.body ?? "";
    expect(started).toMatch(/^Session s1 started by dana: "Move three crates/);
    expect(started).toContain("open for 45\u00a0s");

    const request = onlyBroadcast(effects, "ModelContributionRequest");
    expect(request).toMatchObject({ sessionId: "s1", round: 1, requestedAgents: null, issues: null, problemDescription: startInput().problem });

    expect(ofKind(effects, "schedule")).toEqual([{ kind: "schedule", sessionId: "s1", at: T0 + 45_000 }]);
    expect(s.deadline).toEqual({ kind: "contributions", at: T0 + 45_000 });
    expect(ofKind(effects, "analyse")).toHaveLength(0);
  });

  it("addresses the chosen agents when agents were selected", () => {
    const d = new Driver();
    const effects = d.start({ requestedAgents: ["prolog", "mistral"], expectedAgents: ["prolog", "mistral", "alice"] });
    expect(onlyBroadcast(effects, "ModelContributionRequest").requestedAgents).toEqual(["prolog", "mistral"]);
    // Only the chosen agents are waited for.
    expect(d.session().expectedAgents).toEqual(["prolog", "mistral"]);
    // The line names no agent: existing agents answer any line that mentions their nick.
    const line = ofKind(effects, "broadcast")[0]?.body ?? "";
    expect(line).toContain("Asking 2 chosen agents");
    expect(line).not.toMatch(/prolog|mistral/i);
  });

  it("ignores a second start with the same id", () => {
    const d = new Driver();
    d.start();
    d.advance(1_000).contribute("s1", "alice");
    const before = d.state;
    const effects = d.advance(1_000).start({ problem: "a different problem", expectedAgents: ["zed"] });
    expect(d.state).toBe(before);
    expect(visible(effects)).toEqual([]);
    expect(d.session().problem).toBe(startInput().problem);
    expect(Object.keys(d.session().contributions)).toEqual(["alice"]);
  });
});

describe("many sessions at once", () => {
  it("keeps two fully interleaved sessions isolated, deadlines included", () => {
    const d = new Driver();
    d.start({ sessionId: "a", expectedAgents: ["alice", "bob"], settings: settings({ contributionTimeoutMs: 10_000 }) });
    d.advance(100).start({ sessionId: "b", expectedAgents: ["alice", "carol"], settings: settings({ contributionTimeoutMs: 20_000, maxFixRounds: 0 }) });
    const aAt = d.session("a").deadline?.at;
    const bAt = d.session("b").deadline?.at;
    expect(aAt).toBe(T0 + 10_000);
    expect(bAt).toBe(T0 + 100 + 20_000);

    // alice contributes to both; only "a" sees bob, only "b" sees a bad contribution.
    d.advance(100).contribute("a", "alice");
    d.advance(100).contribute("b", "alice", { turtle: "b-alice" });
    d.advance(100).contribute("b", "carol", { check: failedCheck() });
    expect(Object.keys(d.session("a").contributions)).toEqual(["alice"]);
    expect(Object.keys(d.session("b").contributions)).toEqual(["alice"]);
    expect(d.session("a").rejected).toEqual([]);
    expect(d.session("b").rejected).toHaveLength(1);

    // b's deadline does not fire a's window; a's deadline at b's time is stale for b.
    const bState = d.session("b");
    const wrong = d.feed({ kind: "deadline", sessionId: "b", at: aAt as number }, aAt as number);
    expect(visible(wrong)).toEqual([]);
    expect(d.session("b")).toEqual(bState);
    expect(d.session("a").phase).toBe("collecting");

    // a's own deadline merges a only.
    const aMerge = d.expire("a");
    expect(ofKind(aMerge, "analyse").map((e) => e.sessionId)).toEqual(["a"]);
    expect(d.session("a").phase).toBe("validating");
    expect(d.session("b").phase).toBe("collecting");
    expect(d.session("b")).toEqual(bState);

    // b's window closes; b merges only its own contribution.
    const bMerge = d.expire("b");
    const analyseB = ofKind(bMerge, "analyse");
    expect(analyseB).toHaveLength(1);
    expect(analyseB[0]?.contributions).toEqual([{ agent: "alice", turtle: "b-alice" }]);

    // Answers go to the right session: a sound, b violating (and out of fix rounds).
    const aDone = d.advance(10).answer("a", ok(conforming({ modelTurtle: "MODEL-A" })));
    expect(broadcasts(aDone, "SolutionRequest").map((m) => [m.sessionId, m.model])).toEqual([["a", "MODEL-A"]]);
    expect(d.session("b").phase).toBe("validating");
    const bDone = d.advance(10).answer("b", ok(violating()));
    expect(onlyBroadcast(bDone, "SessionComplete")).toMatchObject({ sessionId: "b", status: "failed" });
    expect(d.session("a").phase).toBe("reasoning");

    // a finishes independently; b's completion did not touch it.
    d.advance(10).propose("a", "alice");
    d.advance(10).propose("a", "bob");
    expect(d.session("a").completion?.status).toBe("solved");
    expect(d.completions("a")).toBe(1);
    expect(d.completions("b")).toBe(1);
    expect(d.session("b").proposals).toEqual([]);
  });
});

describe("inputs for an unknown session", () => {
  it("tells a contributor there is no such session and changes nothing", () => {
    const d = new Driver();
    d.start();
    const before = d.state;
    const effects = d.feed(contributionInput("nope", "alice"));
    expect(d.state).toBe(before);
    expect(visible(effects)).toHaveLength(1);
    expect(tells(effects, "alice")[0]?.text).toMatch(/no session "nope"/);
  });

  it("tells a proposer there is no such session and changes nothing", () => {
    const d = new Driver();
    const before = d.state;
    const effects = d.feed(proposalInput("ghost", "bob"));
    expect(d.state).toBe(before);
    expect(visible(effects)).toHaveLength(1);
    expect(tells(effects, "bob")[0]?.text).toMatch(/no session "ghost"/);
  });

  it("does nothing visible for analyses, deadlines and cancels of unknown sessions", () => {
    const d = new Driver();
    d.start();
    const before = d.state;
    for (const input of [
      { kind: "analysis", sessionId: "x", version: 1, outcome: ok(conforming()) },
      { kind: "deadline", sessionId: "x", at: T0 },
      { kind: "cancel", sessionId: "x", by: who("dana") },
    ] satisfies Input[]) {
      expect(visible(d.feed(input))).toEqual([]);
      expect(d.state).toBe(before);
    }
  });
});

describe("purity", () => {
  it("never mutates the state it was given, through a whole session", () => {
    // Explicit structuredClone comparison (the Driver additionally deep-freezes every state).
    const inputs: Array<[Input, number]> = [
      [startInput({ expectedAgents: ["alice", "bob"], settings: settings({ maxFixRounds: 1 }) }), T0],
      [contributionInput("s1", "alice"), T0 + 1],
      [contributionInput("s1", "bob", { check: failedCheck() }), T0 + 2],
      [contributionInput("s1", "Alice"), T0 + 3],
      [contributionInput("s1", "bob"), T0 + 4],
      [{ kind: "analysis", sessionId: "s1", version: 3, outcome: ok(violating()) }, T0 + 5],
      [contributionInput("s1", "alice"), T0 + 6],
      [{ kind: "analysis", sessionId: "s1", version: 4, outcome: ok(conforming()) }, T0 + 7],
      [contributionInput("s1", "carol"), T0 + 8],
      [proposalInput("s1", "alice"), T0 + 9],
      [{ kind: "cancel", sessionId: "s1", by: HUMAN }, T0 + 10],
      [proposalInput("s1", "bob"), T0 + 11],
    ];
    let state = emptySessions();
    const phases: string[] = [];
    for (const [input, now] of inputs) {
      const copy = structuredClone(state);
      const result = step(state, input, now);
      expect(state).toEqual(copy);
      if (result.state !== state) expect(result.state.byId).not.toBe(state.byId);
      state = result.state;
      phases.push(state.byId["s1"]?.phase ?? "-");
    }
    // The walk really went through every phase, so every handler was exercised.
    expect(phases).toEqual(["collecting", "collecting", "collecting", "collecting", "validating", "collecting", "validating", "reasoning", "reasoning", "reasoning", "complete", "complete"]);
  });

  it("is deterministic: the same inputs at the same times give the same states and effects", () => {
    const run = () => {
      const d = new Driver();
      d.toReasoning("s1", ["alice", "bob"]);
      d.advance(5).propose("s1", "alice", { success: false, message: "stuck" });
      d.expire("s1");
      return { state: d.state, effects: d.all };
    };
    expect(run()).toEqual(run());
  });
});
