/** Windows close on evidence: everyone expected answered, or a quiet period after the first answer; the timeout bounds both. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Driver, T0, broadcasts, conforming, ofKind, ok, plain, settings, solution, tells } from "../support/session-fixtures.js";

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

/** The rule of settings.awaitExpectedAgents: the quiet period never closes a window on an agent the coordinator knows of. */
const AWAIT = settings({ contributionTimeoutMs: 60_000, reasoningTimeoutMs: 60_000, quietPeriodMs: 5_000, awaitExpectedAgents: true });

describe("agents the coordinator expects are awaited up to the timeout", () => {
  it("a slow expected agent (12 s) counts beside a fast one (50 ms): the quiet period does not close the window on it", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["cheater", "modeler"], settings: AWAIT });
    d.advance(50).contribute("s1", "cheater");
    expect(d.session().deadline).toEqual({ kind: "contributions", at: T0 + 60_000 });
    const effects = d.advance(11_950).contribute("s1", "modeler");
    // Everyone expected answered: it closes at once, with both.
    expect(ofKind(effects, "analyse")[0]?.contributions.map((c) => c.agent)).toEqual(["cheater", "modeler"]);
  });

  it("an expected agent that never answers is awaited until the timeout, not the quiet period", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["cheater", "modeler"], settings: AWAIT });
    d.advance(50).contribute("s1", "cheater");
    const closed = d.expire();
    expect(d.now).toBe(T0 + 60_000);
    expect(ofKind(closed, "log").find((l) => l.msg === "contribution window closed")?.data).toMatchObject({ closedBy: "timeout", missing: ["modeler"] });
  });

  it("with nobody known, the quiet period still closes the window after the first answer", () => {
    const d = new Driver();
    d.start({ expectedAgents: [], settings: AWAIT });
    d.advance(1_000).contribute("s1", "alice");
    expect(d.session().deadline?.at).toBe(T0 + 6_000);
  });

  it("in a fix round, the agents asked to fix are awaited; in the solution window, proposers known to answer are, presumed ones are not", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"], expectedProposers: ["bob"], settings: AWAIT });
    d.contribute("s1", "alice");
    d.contribute("s1", "bob");
    d.answer("s1", ok(conforming()));
    d.advance(1_000).propose("s1", "carol", solution());
    // bob is known to propose and has not: the window waits for him.
    expect(d.session().deadline?.at).toBe(d.session().windowEndsAt);
    const other = new Driver();
    other.start({ expectedAgents: ["alice", "bob"], settings: AWAIT });
    other.contribute("s1", "alice");
    other.contribute("s1", "bob");
    other.answer("s1", ok(conforming()));
    other.advance(1_000).propose("s1", "alice", solution());
    // Nobody has proposed before: bob is only presumed to, and the quiet period applies.
    expect(other.session().deadline?.at).toBe(other.now + 5_000);
  });

  it("a late contribution is told which window it missed and by how much", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"], settings: AWAIT });
    d.advance(2_000).contribute("s1", "alice");
    d.answer("s1", ok(conforming()));
    const late = d.advance(4_000).contribute("s1", "modeler");
    expect(plain(tells(late, "modeler")[0]?.text)).toMatch(/It came 4 s after the contribution window closed, after 2 s open\.$/);
  });
});

describe("the window rules, over random arrivals (fast-check)", () => {
  /** One arrival in the contribution window: who and after how long since the previous one. */
  const arrival = fc.record({ agent: fc.constantFrom("a1", "a2", "a3", "x1", "x2"), gapMs: fc.integer({ min: 0, max: 20_000 }) });

  it("no contribution window closes before its timeout while an expected agent is missing", () => {
    fc.assert(
      fc.property(fc.subarray(["a1", "a2", "a3"]), fc.array(arrival, { maxLength: 12 }), fc.integer({ min: 1_000, max: 15_000 }), (expected, arrivals, quietMs) => {
        const d = new Driver();
        const timeout = 60_000;
        d.start({ expectedAgents: expected, settings: settings({ contributionTimeoutMs: timeout, quietPeriodMs: quietMs, awaitExpectedAgents: true }) });
        const answered = new Set<string>();
        for (const a of arrivals) {
          const deadline = d.session().deadline;
          if (d.session().phase !== "collecting" || !deadline) break;
          // Deadlines that fall before the next arrival fire first, as the shell's timers would.
          if (deadline.at <= d.now + a.gapMs) {
            const missing = expected.filter((e) => !answered.has(e));
            if (missing.length > 0) expect(deadline.at, `closed at ${deadline.at - T0} with ${missing.join(", ")} missing`).toBe(T0 + timeout);
            d.expire();
            break;
          }
          d.advance(a.gapMs).contribute("s1", a.agent);
          answered.add(a.agent);
        }
        const s = d.session();
        if (s.phase === "collecting" && s.deadline) {
          const missing = expected.filter((e) => !answered.has(e));
          if (missing.length > 0) expect(s.deadline.at).toBe(T0 + timeout);
        }
        // Whenever it closed early, every expected agent had answered, or nobody was expected.
        const closedAt = s.closedWindows?.contributions?.at;
        if (closedAt !== undefined && closedAt < T0 + timeout && expected.length > 0) expect(expected.every((e) => answered.has(e))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
