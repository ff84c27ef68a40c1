/**
 * The validation deadline counts work, not waiting (settings.validationClockStartsInWorker):
 * while the analysis waits for a free model worker there is no deadline; the timeout starts
 * when the shell reports that a worker began it (`analysis-started`). Logs written without the
 * setting keep the old rule: the deadline is set when validation is asked for.
 */
import { describe, expect, it } from "vitest";
import { replay } from "../../src/session/replay.js";
import { emptySessions } from "../../src/session/step.js";
import type { Input } from "../../src/session/step-io.js";
import { Driver, T0, broadcasts, conforming, ofKind, ok, settings } from "../support/session-fixtures.js";

const TIMEOUT = 5_000;

/** Two contributions merged early: the analysis has been asked for (version 2), not begun. */
function queued(clockInWorker = true): Driver {
  const d = new Driver();
  d.start({ expectedAgents: ["alice", "bob"], settings: settings({ validationTimeoutMs: TIMEOUT, validationClockStartsInWorker: clockInWorker }) });
  d.advance(1_000).contribute("s1", "alice");
  d.advance(1_000).contribute("s1", "bob");
  expect(d.session().phase).toBe("validating");
  return d;
}

function started(d: Driver, version = d.lastAnalyse().version) {
  return d.feed({ kind: "analysis-started", sessionId: "s1", version });
}

describe("the validation clock starts in the worker", () => {
  it("has no deadline while the analysis waits for a worker, and cancels the window's timer", () => {
    const d = queued();
    expect(d.session().deadline).toBeNull();
    expect(ofKind(d.last, "unschedule")).toHaveLength(1);
    expect(ofKind(d.last, "analyse")).toHaveLength(1);
    // Waiting a long time in the queue times nothing out: the answer still counts.
    d.advance(10 * TIMEOUT);
    const effects = d.answer("s1", ok(conforming()));
    expect(broadcasts(effects, "SolutionRequest")).toHaveLength(1);
  });

  it("sets the validation deadline when a worker begins, from that instant", () => {
    const d = queued();
    d.advance(7_000); // waited in line longer than the timeout
    const effects = started(d);
    const deadline = d.session().deadline;
    expect(deadline?.kind).toBe("validation");
    expect(deadline?.at).toBeGreaterThanOrEqual(d.now + TIMEOUT);
    expect(ofKind(effects, "schedule")).toEqual([{ kind: "schedule", sessionId: "s1", at: deadline?.at }]);
  });

  it("times out a job that runs too long once begun", () => {
    const d = queued();
    d.advance(30_000);
    started(d);
    const effects = d.expire();
    expect(d.session().completion?.status).toBe("timed-out");
    expect(broadcasts(effects, "ModelValidationResult")).toHaveLength(1);
  });

  it("ignores the start of an analysis that is no longer the one awaited", () => {
    const d = queued();
    // A newer contribution while validating: the running answer will be stale.
    d.advance(100).contribute("s1", "alice", { turtle: "NEWER" });
    const effects = started(d, 1);
    expect(ofKind(effects, "schedule")).toEqual([]);
    expect(d.session().deadline).toBeNull();
  });

  it("clears the deadline again when validation starts over for newer contributions", () => {
    const d = queued();
    started(d);
    expect(d.session().deadline?.kind).toBe("validation");
    d.advance(100).contribute("s1", "alice", { turtle: "NEWER" });
    d.advance(100).answer("s1", ok(conforming()), 2);
    expect(d.lastAnalyse().version).toBe(3);
    expect(d.session().deadline).toBeNull();
    started(d, 3);
    expect(d.session().deadline?.at).toBeGreaterThanOrEqual(d.now + TIMEOUT);
  });

  it("keeps the old rule for sessions started without the setting (older logs)", () => {
    const d = queued(false);
    const deadline = d.session().deadline;
    expect(deadline?.kind).toBe("validation");
    expect(deadline?.at).toBeGreaterThanOrEqual(d.now + TIMEOUT);
    // An analysis-started input changes nothing for them.
    const effects = d.advance(1_000).feed({ kind: "analysis-started", sessionId: "s1", version: 2 });
    expect(ofKind(effects, "schedule")).toEqual([]);
    expect(d.session().deadline).toEqual(deadline);
  });

  it("replays to the same session from the logged inputs, the start included", () => {
    const inputs: Array<{ input: Input; at: number }> = [];
    const live = new Driver(T0);
    const feed = (input: Input, at: number) => {
      inputs.push({ input, at });
      live.feed(input, at);
    };
    feed({ kind: "start", sessionId: "s1", problem: "p", by: { nick: "dana", jid: "dana@people.example" }, settings: settings({ validationTimeoutMs: TIMEOUT, validationClockStartsInWorker: true }), expectedAgents: ["alice"], requestedAgents: null }, T0);
    feed({ kind: "contribution", sessionId: "s1", from: { nick: "alice", jid: "alice@agents.example" }, turtle: "T", check: { ok: true, tripleCount: 1, counts: { entities: 1, stateVariables: 0, actions: 0, constraints: 0, goals: 0 } } }, T0 + 1_000);
    feed({ kind: "analysis-started", sessionId: "s1", version: 1 }, T0 + 9_000);
    const replayed = replay(emptySessions(), inputs);
    expect(replayed.state).toEqual(live.state);
    expect(replayed.state.byId.s1?.deadline?.at).toBe(T0 + 9_000 + TIMEOUT + 2_000);
  });
});
