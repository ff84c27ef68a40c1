/**
 * session/lifecycle.ts: a session ends exactly once (`complete` is idempotent, the first
 * ending wins), and `dedupe` drops repeats case-insensitively, keeping the first spelling and
 * the order; `beginCollecting` expects each agent once.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { beginCollecting, complete, dedupe } from "../../src/session/lifecycle.js";
import { Step } from "../../src/session/step-context.js";
import type { CompletionStatus, Session } from "../../src/session/types.js";
import { Driver, T0, broadcasts, ofKind, says } from "../support/session-fixtures.js";

/** A live session (collecting, round 1), as a mutable copy. */
function liveSession(): Session {
  const d = new Driver();
  d.start({ expectedAgents: ["alice", "bob"] });
  return structuredClone(d.session());
}

const STATUSES: CompletionStatus[] = ["solved", "failed", "timed-out", "cancelled"];

describe("complete: a session ends exactly once", () => {
  it("the first completion sends one SessionComplete, one unschedule, one finished, and records its status", () => {
    const session = liveSession();
    const s = new Step(T0 + 5_000);
    complete(session, "cancelled", "asked to", s);
    expect(session.phase).toBe("complete");
    expect(session.deadline).toBeNull();
    expect(session.completion).toMatchObject({ status: "cancelled", at: T0 + 5_000, reason: "asked to" });
    expect(session.completion?.summary).not.toBe("");
    expect(broadcasts(s.effects, "SessionComplete", session.id).map((b) => b.status)).toEqual(["cancelled"]);
    expect(ofKind(s.effects, "unschedule")).toEqual([{ kind: "unschedule", sessionId: session.id }]);
    expect(ofKind(s.effects, "finished")).toEqual([{ kind: "finished", sessionId: session.id }]);
    expect(says(s.effects, "log")).toHaveLength(1);
  });

  it("any later completion, whatever its status or step, changes nothing and emits nothing (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ status: fc.constantFrom(...STATUSES), reason: fc.option(fc.string(), { nil: undefined }), later: fc.nat(1_000_000) }), { minLength: 1, maxLength: 6 }),
        (calls) => {
          const session = liveSession();
          const steps = calls.map((c) => {
            const s = new Step(T0 + c.later);
            complete(session, c.status, c.reason, s);
            return s;
          });
          const first = calls[0]!;
          const all = steps.flatMap((s) => s.effects);
          expect(broadcasts(all, "SessionComplete")).toHaveLength(1);
          expect(ofKind(all, "finished")).toHaveLength(1);
          expect(ofKind(all, "unschedule")).toHaveLength(1);
          expect(steps.slice(1).every((s) => s.effects.length === 0)).toBe(true);
          expect(session.completion).toMatchObject({ status: first.status, reason: first.reason, at: T0 + first.later });
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("dedupe: the list without repeats, case-insensitively, first spelling and order kept", () => {
  const nick = fc.constantFrom("alice", "Alice", "ALICE", "bob", "Bob", "carol", "dave", "Dave", "é", "É");
  const list = fc.array(fc.oneof(nick, fc.string({ maxLength: 4 })), { maxLength: 12 });

  it("keeps, in order, exactly the first occurrence of each name (property)", () => {
    fc.assert(
      fc.property(list, (xs) => {
        const expected = xs.filter((x, i) => xs.findIndex((y) => y.toLowerCase() === x.toLowerCase()) === i);
        expect(dedupe(xs)).toEqual(expected);
      }),
    );
  });

  it("leaves no two names equal ignoring case, loses no name, and is idempotent (property)", () => {
    fc.assert(
      fc.property(list, (xs) => {
        const out = dedupe(xs);
        const lower = out.map((x) => x.toLowerCase());
        expect(new Set(lower).size).toBe(out.length);
        expect(new Set(lower)).toEqual(new Set(xs.map((x) => x.toLowerCase())));
        expect(dedupe(out)).toEqual(out);
      }),
    );
  });

  it("keeps the first spelling", () => {
    expect(dedupe(["Alice", "bob", "alice", "BOB", "carol"])).toEqual(["Alice", "bob", "carol"]);
  });
});

describe("beginCollecting: round 1, each expected agent once", () => {
  it("expects the chosen agents without repeats, or everyone present when none were chosen", () => {
    const chosen = liveSession();
    const s = new Step(T0);
    beginCollecting(chosen, ["alice", "Alice", "bob"], ["carol"], s);
    expect(chosen).toMatchObject({ phase: "collecting", round: 1, requestedAgents: ["alice", "Alice", "bob"], expectedAgents: ["alice", "bob"] });
    expect(broadcasts(s.effects, "ModelContributionRequest")).toHaveLength(1);

    const everyone = liveSession();
    beginCollecting(everyone, null, ["carol", "CAROL", "dave"], new Step(T0));
    expect(everyone).toMatchObject({ requestedAgents: null, expectedAgents: ["carol", "dave"] });
  });
});
