/** Windows close on evidence: everyone expected answered, or a quiet period after the first answer; the timeout bounds both. */
import { describe, expect, it } from "vitest";
import { Driver, T0, broadcasts, conforming, ofKind, ok, settings, solution } from "../support/session-fixtures.js";

const QUIET = settings({ contributionTimeoutMs: 60_000, reasoningTimeoutMs: 60_000, quietPeriodMs: 5_000 });

describe("the contribution window", () => {
  it("with nobody known in advance, closes 5 s after the last answer instead of running 60 s", () => {
    const d = new Driver();
    d.start({ expectedAgents: [], settings: QUIET });
    expect(d.session().deadline).toEqual({ kind: "contributions", at: T0 + 60_000 });
    d.advance(1_000).contribute("s1", "alice");
    expect(d.session().deadline?.at).toBe(T0 + 6_000);
    d.advance(2_000).contribute("s1", "bob");
    expect(d.session().deadline?.at).toBe(T0 + 8_000);
    const closed = d.expire();
    expect(d.now).toBe(T0 + 8_000);
    expect(ofKind(closed, "analyse")).toHaveLength(1);
    expect(d.session().phase).toBe("validating");
  });

  it("waits its full timeout while nobody has answered, and the quiet period never extends it", () => {
    const d = new Driver();
    d.start({ expectedAgents: [], settings: settings({ contributionTimeoutMs: 10_000, quietPeriodMs: 5_000 }) });
    d.advance(9_000).contribute("s1", "alice");
    expect(d.session().deadline?.at).toBe(T0 + 10_000);
  });

  it("without a quiet period (logs from before it existed), only the timeout and the expected agents close it", () => {
    const d = new Driver();
    d.start({ expectedAgents: [], settings: settings({ contributionTimeoutMs: 60_000 }) });
    d.advance(1_000).contribute("s1", "alice");
    expect(d.session().deadline?.at).toBe(T0 + 60_000);
  });
});

describe("the solution window", () => {
  function reasoning(expectedProposers?: string[]): Driver {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"], settings: QUIET, ...(expectedProposers ? { expectedProposers } : {}) });
    d.contribute("s1", "alice");
    d.contribute("s1", "bob");
    d.answer("s1", ok(conforming()));
    expect(d.session().phase).toBe("reasoning");
    return d;
  }

  it("closes as soon as every agent known to propose has proposed, without waiting for contributors that never do", () => {
    const d = reasoning(["alice"]);
    expect(d.session().awaitedProposers).toEqual(["alice"]);
    const effects = d.advance(700).propose("s1", "alice", solution());
    expect(broadcasts(effects, "SessionComplete")[0]?.status).toBe("solved");
  });

  it("when nobody is known to propose, closes 5 s after the last proposal", () => {
    const d = reasoning();
    expect(d.session().awaitedProposers).toEqual(["alice", "bob"]);
    d.advance(1_000).propose("s1", "alice", solution());
    expect(d.session().deadline).toEqual({ kind: "reasoning", at: d.now + 5_000 });
    const effects = d.expire();
    expect(broadcasts(effects, "SessionComplete")[0]?.status).toBe("solved");
    expect(d.now - (d.session().solutionRequestedAt ?? 0)).toBe(6_000);
  });
});
