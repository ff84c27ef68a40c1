import { describe, expect, it } from "vitest";
import type { ValidationFinding } from "../../src/session/types.js";
import {
  Driver,
  broadcasts,
  conforming,
  finding,
  ofKind,
  ok,
  onlyBroadcast,
  settings,
  violating,
  visible,
  workerError,
} from "../support/session-fixtures.js";

/** A session whose two contributions have been merged: phase validating, version 2. */
function validating(maxFixRounds = 1): Driver {
  const d = new Driver();
  d.start({ expectedAgents: ["alice", "bob"], settings: settings({ maxFixRounds, validationTimeoutMs: 5_000 }) });
  d.advance(1_000).contribute("s1", "alice");
  d.advance(1_000).contribute("s1", "bob");
  expect(d.session().phase).toBe("validating");
  return d;
}

describe("validation", () => {
  it("ignores an analysis whose version does not match the running one", () => {
    const d = validating();
    const before = d.session();
    const effects = d.advance(100).answer("s1", ok(conforming()), 1);
    expect(visible(effects)).toEqual([]);
    expect(d.session()).toEqual(before);
    // The real answer still counts.
    d.answer("s1", ok(conforming()), 2);
    expect(d.session().phase).toBe("reasoning");
  });

  it("ignores an analysis that arrives when the session is not validating", () => {
    const d = new Driver();
    d.start();
    d.contribute("s1", "alice");
    const effects = d.answer("s1", ok(conforming()), 1);
    expect(visible(effects)).toEqual([]);
    expect(d.session().phase).toBe("collecting");
  });

  it("analyses again instead of using a result made stale by a newer contribution", () => {
    const d = validating();
    d.advance(100).contribute("s1", "alice", { turtle: "NEWER" });
    expect(d.session().contributionsVersion).toBe(3);
    const effects = d.advance(100).answer("s1", ok(violating()), 2);
    expect(broadcasts(effects, "ModelValidationResult")).toEqual([]);
    expect(broadcasts(effects, "ModelContributionRequest")).toEqual([]);
    const analyse = ofKind(effects, "analyse");
    expect(analyse).toHaveLength(1);
    expect(analyse[0]?.version).toBe(3);
    expect(analyse[0]?.contributions.find((c) => c.agent === "alice")?.turtle).toBe("NEWER");
    expect(d.session().phase).toBe("validating");
    expect(d.session().validations).toEqual([]);
    // A new validation deadline comes with the new analysis.
    expect(ofKind(effects, "schedule")).toHaveLength(1);
    // The old version is now stale; the new one is used.
    expect(visible(d.answer("s1", ok(conforming()), 2))).toEqual([]);
    d.answer("s1", ok(conforming()), 3);
    expect(d.session().phase).toBe("reasoning");
  });

  it("broadcasts a ModelValidationResult for a conforming model", () => {
    const d = validating();
    const warning = finding({ severity: "Warning", message: "Action has no effect", agents: ["bob"] });
    const effects = d.answer("s1", ok(conforming({ warnings: 1, findings: [warning], summary: "Sound, 1 warning." })));
    const result = onlyBroadcast(effects, "ModelValidationResult");
    expect(result).toEqual({
      type: "ModelValidationResult",
      sessionId: "s1",
      round: 1,
      conforms: true,
      summary: "Sound, 1 warning.",
      results: [{ severity: "Warning", focusNode: warning.focusNode, path: warning.path, message: "Action has no effect", agent: "bob", agents: ["bob"] }],
      omitted: 0,
    });
    expect(d.session().validations).toHaveLength(1);
  });

  it("broadcasts a ModelValidationResult for a violating model, attributing each result", () => {
    const d = validating();
    const findings: ValidationFinding[] = [
      finding({ agents: ["alice", "bob"], message: "shared node broken" }),
      finding({ agents: [], message: "The model has no Entity", focusNode: "urn:problem", path: undefined }),
    ];
    const effects = d.answer("s1", ok(violating(findings)));
    const result = onlyBroadcast(effects, "ModelValidationResult");
    expect(result.conforms).toBe(false);
    expect(result.results[0]).toMatchObject({ message: "shared node broken", agent: "alice", agents: ["alice", "bob"] });
    expect(result.results[1]).toEqual({ severity: "Violation", focusNode: "urn:problem", message: "The model has no Entity" });
  });

  it("bounds the results to 100 and counts the rest as omitted", () => {
    const d = validating();
    const findings = Array.from({ length: 130 }, (_, i) => finding({ message: `problem ${i}`, focusNode: `urn:n${i}` }));
    const effects = d.answer("s1", ok(violating(findings)));
    const result = onlyBroadcast(effects, "ModelValidationResult");
    expect(result.results).toHaveLength(100);
    expect(result.omitted).toBe(30);
    expect(result.results[99]?.message).toBe("problem 99");
  });

  it("broadcasts a ModelValidationResult and fails when the worker reports an error", () => {
    const d = validating();
    const effects = d.answer("s1", workerError("parser exploded", false));
    const result = onlyBroadcast(effects, "ModelValidationResult");
    expect(result).toMatchObject({ sessionId: "s1", round: 1, conforms: false, results: [], omitted: 0 });
    expect(result.summary).toContain("parser exploded");
    const done = onlyBroadcast(effects, "SessionComplete");
    expect(done.status).toBe("failed");
    expect(done.reason).toContain("parser exploded");
    // The validation result goes out before the completion.
    const types = ofKind(effects, "broadcast").map((b) => b.message.type);
    expect(types).toEqual(["ModelValidationResult", "SessionComplete"]);
  });

  it("reports timed-out when the worker says it ran out of time", () => {
    const d = validating();
    const effects = d.answer("s1", workerError("analysis exceeded 5000 ms", true));
    expect(broadcasts(effects, "ModelValidationResult")).toHaveLength(1);
    expect(onlyBroadcast(effects, "SessionComplete").status).toBe("timed-out");
  });

  it("times out when the worker never answers before the validation deadline", () => {
    const d = validating();
    const deadline = d.session().deadline;
    expect(deadline?.kind).toBe("validation");
    // The deadline allows at least the worker's own limit.
    expect(deadline?.at).toBeGreaterThanOrEqual(d.now + 5_000);
    const effects = d.expire();
    const done = onlyBroadcast(effects, "SessionComplete");
    expect(done.status).toBe("timed-out");
    expect(done.reason).toMatch(/Validation did not finish/);
    // A validation result is always sent, also when the worker never answered.
    const result = onlyBroadcast(effects, "ModelValidationResult");
    expect(result).toMatchObject({ sessionId: "s1", round: 1, conforms: false, results: [], omitted: 0 });
    // The answer arriving afterwards changes nothing.
    const lateAnswer = d.answer("s1", ok(conforming()), 2);
    expect(visible(lateAnswer)).toEqual([]);
    expect(d.completions()).toBe(1);
  });
});
