/**
 * session/selection-rules.ts, as properties over the inputs that decide who is asked:
 * an agent that acts in the world is never asked without a yes from one who may steer the
 * session (a rejection or silence leaves it out; nobody left fails the session); a choice is
 * taken only from one who may steer and only of numbers offered, each agent once; a debate
 * keeps at most 50 notes. (Worked examples are in test/session/selection.test.ts.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Requester, SelectionOutcome } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import { Driver, HUMAN, broadcasts, says, tells, who } from "../support/session-fixtures.js";

const POOL = ["Prolog", "Executor", "Mistral", "Data", "Robot", "Planner"];
const MALLORY: Requester = who("mallory");
const MODERATOR: Requester = { ...who("mod"), standing: "moderator" };

/** Every agent any ModelContributionRequest of the driver asked for. */
const everAsked = (d: Driver) => broadcasts(d.all, "ModelContributionRequest").flatMap((b) => b.requestedAgents ?? []);
const chosen = (agents: string[]): SelectionOutcome => ({ kind: "chosen", agents, reasons: Object.fromEntries(agents.map((a) => [a, "fits"])) });
const flipCase = (s: string, upper: boolean) => (upper ? s.toUpperCase() : s.toLowerCase());

describe("an agent that acts in the world is asked only after a yes from one who may steer", () => {
  const decision = fc.constantFrom("approve", "reject", "silence", "outsider-approves-then-silence", "moderator-approves");

  it("approve asks everyone chosen; reject or silence leaves out those awaiting approval; an outsider's yes counts for nothing (property)", () => {
    fc.assert(
      fc.property(
        fc.subarray(POOL, { minLength: 1 }),
        fc.array(fc.boolean(), { minLength: POOL.length, maxLength: POOL.length }),
        fc.array(fc.boolean(), { minLength: POOL.length, maxLength: POOL.length }),
        decision,
        (agents, needs, upper, how) => {
          const required = agents.filter((_, i) => needs[i]).map((a, i) => flipCase(a, upper[i] ?? false));
          const d = new Driver();
          d.start({ choose: { method: "catalog", outcome: chosen(agents) }, approvalRequired: required });
          const awaiting = agents.filter((a) => required.some((r) => r.toLowerCase() === a.toLowerCase()));
          if (awaiting.length === 0) {
            expect(everAsked(d)).toEqual(agents);
            return;
          }
          expect(broadcasts(d.all, "ModelContributionRequest")).toEqual([]);
          const approval = (by: Requester, approved: boolean): Input => ({ kind: "approval", sessionId: "s1", by, approved });
          if (how === "approve") d.feed(approval(HUMAN, true));
          else if (how === "moderator-approves") d.feed(approval(MODERATOR, true));
          else if (how === "reject") d.feed(approval(HUMAN, false));
          else {
            if (how === "outsider-approves-then-silence") {
              expect(tells(d.feed(approval(MALLORY, true)), "mallory")[0]?.text).toMatch(/^Only dana/);
              expect(d.session().selection?.awaitingApproval).toEqual(awaiting);
            }
            d.expire();
          }
          const yes = how === "approve" || how === "moderator-approves";
          const left = yes ? agents : agents.filter((a) => !awaiting.includes(a));
          if (left.length === 0) {
            expect(everAsked(d)).toEqual([]);
            expect(broadcasts(d.all, "SessionComplete").map((c) => c.status)).toEqual(["failed"]);
          } else expect(everAsked(d)).toEqual(left);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("a choice is taken only from one who may steer, and only of numbers offered", () => {
  it("an outsider is told who may; a number not offered is named back and nothing is chosen; otherwise each picked agent is asked once, in the order picked (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: POOL.length }),
        fc.oneof(fc.constant("all" as const), fc.array(fc.integer({ min: 0, max: POOL.length + 2 }), { minLength: 1, maxLength: 5 })),
        fc.constantFrom<Requester>(HUMAN, MALLORY, MODERATOR),
        (n, choice, by) => {
          const options = POOL.slice(0, n).map((agent, i) => ({ number: i + 1, agent, reason: "fits" }));
          const d = new Driver();
          d.start({ choose: { method: "catalog", outcome: { kind: "unclear", why: "Several fit.", options } } });
          const effects = d.feed({ kind: "choice", sessionId: "s1", by, choice });
          const told = tells(effects, by.nick).map((t) => t.text);
          if (by === MALLORY) {
            expect(told).toHaveLength(1);
            expect(told[0]).toMatch(/^Only dana/);
            expect(d.session().selection?.stage).toBe("clarifying");
            return;
          }
          const picked = choice === "all" ? options.map((o) => o.number) : choice;
          const missing = picked.filter((k) => k < 1 || k > n);
          if (missing.length > 0) {
            expect(told).toHaveLength(1);
            expect(told[0]).toContain(`has options 1 to ${n}; there is no`);
            for (const k of missing) expect(told[0]).toContain(String(k));
            expect(d.session().selection).toMatchObject({ stage: "clarifying", chosen: [] });
            expect(broadcasts(effects, "ModelContributionRequest")).toEqual([]);
            return;
          }
          expect(told).toEqual([]);
          const expected = [...new Set(picked)].map((k) => POOL[k - 1]);
          expect(everAsked(d)).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("a choice when no question is open is answered so, and changes nothing", () => {
    const d = new Driver();
    d.start();
    const before = structuredClone(d.session());
    expect(tells(d.feed({ kind: "choice", sessionId: "s1", by: HUMAN, choice: [1] }), "dana").map((t) => t.text)).toEqual(["Session s1 is not waiting for a choice of agents."]);
    expect(d.session()).toEqual(before);
  });
});

describe("a debate keeps at most 50 notes, the first ones, and says nothing while it runs", () => {
  it("keeps the first 50 positions, supports and objections", () => {
    const d = new Driver();
    d.start({ choose: { method: "debate", chair: "Chair", chairIdentity: "occupant:chair" } });
    const kinds = ["position", "support", "objection"] as const;
    for (let i = 0; i < 60; i++) {
      const effects = d.feed({ kind: "debate", sessionId: "s1", from: who(`agent${i % 4}`), line: { kind: kinds[i % 3]!, text: `note ${i}` } });
      expect(says(effects)).toEqual([]);
    }
    const notes = d.session().selection?.notes ?? [];
    expect(notes).toHaveLength(50);
    expect(notes.map((n) => n.text)).toEqual(Array.from({ length: 50 }, (_, i) => `note ${i}`));
    expect(notes[1]).toEqual({ from: "agent1", kind: "support", text: "note 1" });
  });
});
