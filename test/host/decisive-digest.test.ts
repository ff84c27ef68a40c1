/**
 * The decisive digest (host/decisive-digest.ts): what a stanza decides, its wording left out.
 * Rewording a body, a summary, a reason, a plan check's sentence or a room line leaves it as
 * it is; a changed round, recipient, list of requested agents, result, status or message type
 * changes it. Stanzas are rendered with `renderEffects`, as the outbox and verify see them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CompletionStatus, Proposal } from "../../src/session/types.js";
import type { Broadcast, Effect } from "../../src/session/step-io.js";
import { comparableDecisive, decisiveDigest, DECISIVE_SCHEME, WORDING_FIELDS } from "../../src/host/decisive-digest.js";
import { renderEffects, stanzaDigest, type Outgoing, type RenderContext } from "../../src/host/outgoing.js";
import { xml } from "../../src/xmpp/stanza.js";
import { LINGUE } from "../../src/base/vocab.js";

const AT = Date.UTC(2026, 0, 1);
const CTX: RenderContext = { room: "mfr@conference.localhost", logRoom: "mfr-log@conference.localhost", maxStanzaBytes: 64 * 1024 };

const proposal = (agent: string, verdict: "valid" | "invalid", reason: string): Proposal => ({
  agent,
  agentJid: undefined,
  receivedAt: AT - 1000,
  solution: { success: true, message: "Two trips.", plan: ["(load c1)", "(drive)"] },
  verification: { verdict, reason, ...(verdict === "invalid" ? { step: 2, failed: "(at truck depot)", refutedClaim: "It claims success, but the plan is invalid at step 2." } : {}), trace: ["0: (at truck depot)"] },
});

const request: Broadcast = { type: "ModelContributionRequest", sessionId: "s1", problemDescription: "Deliver 3 crates", round: 1, requestedAgents: null, issues: null };
const fixRound: Broadcast = { ...request, round: 2, requestedAgents: ["alice"], issues: { alice: ["Every Goal needs a label (#delivered)"] } };
const validation: Broadcast = {
  type: "ModelValidationResult",
  sessionId: "s1",
  round: 1,
  conforms: false,
  summary: "The model has 1 violation.",
  results: [{ severity: "Violation", focusNode: "#delivered", message: "Every Goal needs a label", agent: "alice" }],
  omitted: 0,
};
const complete: Broadcast = {
  type: "SessionComplete",
  sessionId: "s1",
  status: "solved",
  solutions: [proposal("planner", "valid", "The plan reaches every goal."), proposal("bob", "invalid", "Invalid at step 2: (at truck depot) is false.")],
  summary: "Session s1 solved after 3.2 s: best solution from planner.",
  reason: undefined,
};

/** The one stanza a single effect renders to. */
function one(effect: Effect, ctx: RenderContext = CTX): Outgoing {
  const { outgoing } = renderEffects("s1", [effect], AT, ctx);
  expect(outgoing).toHaveLength(1);
  return outgoing[0]!;
}
const said = (message: Broadcast, body: string | undefined = `${message.type} for s1`): Outgoing => one({ kind: "broadcast", message, body });
const digests = (o: Outgoing) => ({ whole: stanzaDigest(o.stanza), decisive: decisiveDigest(o) });

/** Expects `a` and `b` to differ in wording only: other bytes, the same decisive digest. */
function wordingOnly(a: Outgoing, b: Outgoing): void {
  expect(digests(a).whole).not.toBe(digests(b).whole);
  expect(digests(a).decisive).toBe(digests(b).decisive);
}

/** Expects `a` and `b` to decide differently. */
function decidesOtherwise(a: Outgoing, b: Outgoing): void {
  expect(digests(a).decisive).not.toBe(digests(b).decisive);
}

describe("decisiveDigest: wording does not count", () => {
  it("a protocol message's body", () => {
    wordingOnly(said(request, "Session s1 started by alice. Asking all agents."), said(request, "Session s1 started by alice: asking every agent, open for 15 s."));
    wordingOnly(said(request, "Asking."), said(request, undefined));
  });

  it("a validation's and an outcome's summary, and why a session ended", () => {
    wordingOnly(said(validation), said({ ...validation, summary: "One violation: the goal #delivered has no label." }));
    wordingOnly(said(complete), said({ ...complete, summary: "Solved: planner's plan of 2 steps, checked valid." }));
    const failed: Broadcast = { ...complete, status: "failed", solutions: [], reason: "no valid solution arrived" };
    wordingOnly(said(failed), said({ ...failed, reason: "no proposal passed the plan check" }));
  });

  it("a plan check's sentences and trace in the solutions, not its verdict", () => {
    const reworded = { ...complete, solutions: [proposal("planner", "valid", "Every goal is reached."), { ...proposal("bob", "invalid", "Step 2 fails."), verification: { ...proposal("bob", "invalid", "x").verification!, reason: "Step 2 fails.", refutedClaim: "Success was claimed.", trace: ["start: truck at depot"] } }] } satisfies Broadcast;
    wordingOnly(said(complete), said(reworded));
  });

  it("a room line's and a private reply's text", () => {
    wordingOnly(one({ kind: "say", room: "primary", text: "Session s1: 1 agent asked to fix." }), one({ kind: "say", room: "primary", text: "s1: fix round 1 of 2." }));
    wordingOnly(one({ kind: "tell", nick: "alice", text: "Got it." }), one({ kind: "tell", nick: "alice", text: "Your contribution is in." }));
    wordingOnly(one({ kind: "tell", nick: "bot", text: "Late.", privately: true }), one({ kind: "tell", nick: "bot", text: "That window closed.", privately: true }));
  });

  it("the order the payload's fields were written in", () => {
    const payload = (content: string) => ({ stanza: xml("message", { to: "r@c", type: "groupchat" }, xml("payload", { xmlns: LINGUE, mime: "application/json", mode: `${LINGUE}ModelNegotiation` }, content)), what: "X" });
    expect(decisiveDigest(payload('{"round":1,"sessionId":"s1"}'))).toBe(decisiveDigest(payload('{"sessionId":"s1","round":1}')));
  });
});

describe("decisiveDigest: what decides counts", () => {
  it("the round, the agents asked and their issues", () => {
    decidesOtherwise(said(request), said(fixRound));
    decidesOtherwise(said(fixRound), said({ ...fixRound, round: 3 }));
    decidesOtherwise(said(fixRound), said({ ...fixRound, requestedAgents: ["alice", "bob"] }));
    decidesOtherwise(said(fixRound), said({ ...fixRound, issues: { alice: ["Every Action needs an effect (#drive)"] } }));
    decidesOtherwise(said(request), said({ ...request, repeat: true }));
  });

  it("the results, the status and the solutions' verdicts and plans", () => {
    decidesOtherwise(said(validation), said({ ...validation, conforms: true, results: [] }));
    decidesOtherwise(said(complete), said({ ...complete, status: "failed" }));
    decidesOtherwise(said(complete), said({ ...complete, solutions: complete.solutions.slice(0, 1) }));
    const [first, second] = complete.solutions;
    decidesOtherwise(said(complete), said({ ...complete, solutions: [second!, first!] }));
    decidesOtherwise(said(complete), said({ ...complete, solutions: [{ ...first!, verification: { ...first!.verification!, verdict: "unverifiable" } }, second!] }));
    decidesOtherwise(said(complete), said({ ...complete, solutions: [{ ...first!, solution: { ...first!.solution, plan: ["(drive)"] } }, second!] }));
  });

  it("the message type, the session and the instant", () => {
    decidesOtherwise(said(request), said({ type: "SolutionRequest", sessionId: "s1", model: "" }));
    decidesOtherwise(said(request), said({ ...request, sessionId: "s2" }));
    const later = renderEffects("s1", [{ kind: "broadcast", message: request, body: "x" }], AT + 1, CTX).outgoing[0]!;
    decidesOtherwise(said(request, "x"), later);
  });

  it("a line's recipient and kind", () => {
    decidesOtherwise(one({ kind: "say", room: "primary", text: "x" }), one({ kind: "say", room: "log", text: "x" }));
    decidesOtherwise(one({ kind: "tell", nick: "alice", text: "x" }), one({ kind: "tell", nick: "bob", text: "x" }));
    decidesOtherwise(one({ kind: "tell", nick: "alice", text: "x" }), one({ kind: "tell", nick: "alice", text: "x", privately: true }));
    decidesOtherwise(one({ kind: "tell", nick: "alice", text: "x" }), one({ kind: "say", room: "primary", text: "alice: x" }));
    decidesOtherwise(one({ kind: "tell", nick: "bot", text: "x", privately: true }), one({ kind: "tell", nick: "bot", text: "x", privately: true, room: "other@conference.localhost" }));
    decidesOtherwise(said(request), one({ kind: "broadcast", message: request, body: "x" }, { ...CTX, room: "elsewhere@conference.localhost" }));
  });
});

describe("decisiveDigest over random messages (fast-check)", () => {
  const words = fc.string({ minLength: 1, maxLength: 60 });
  const nick = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
  const status = fc.constantFrom<CompletionStatus>("solved", "failed", "timed-out", "cancelled");
  const messages = fc.oneof(
    fc.record({ round: fc.integer({ min: 1, max: 5 }), agents: fc.uniqueArray(nick, { maxLength: 4 }), issue: words }).map(
      ({ round, agents, issue }): Broadcast => ({ ...request, round, requestedAgents: agents.length ? agents : null, issues: agents.length ? Object.fromEntries(agents.map((a) => [a, [issue]])) : null }),
    ),
    fc.record({ round: fc.integer({ min: 1, max: 5 }), conforms: fc.boolean(), summary: words }).map(({ round, conforms, summary }): Broadcast => ({ ...validation, round, conforms, summary })),
    fc.record({ status, agents: fc.uniqueArray(nick, { maxLength: 3 }), summary: words, reason: fc.option(words, { nil: undefined }) }).map(
      ({ status, agents, summary, reason }): Broadcast => ({ ...complete, status, solutions: agents.map((a) => proposal(a, "valid", `${a}'s plan is valid.`)), summary, reason }),
    ),
  );

  /** The same message worded otherwise: its body, summary, reason and the plan checks' sentences. */
  function reworded(message: Broadcast, text: string): Broadcast {
    switch (message.type) {
      case "ModelValidationResult":
        return { ...message, summary: text };
      case "SessionComplete":
        return { ...message, summary: text, reason: message.reason === undefined ? undefined : text, solutions: message.solutions.map((p) => ({ ...p, verification: { ...p.verification!, reason: text, trace: [text] } })) };
      default:
        return message;
    }
  }

  /** The same message deciding otherwise: another round, another agent asked, another status. */
  function changed(message: Broadcast): Broadcast {
    switch (message.type) {
      case "ModelContributionRequest":
        return { ...message, requestedAgents: [...(message.requestedAgents ?? []), "newcomer"] };
      case "ModelValidationResult":
        return { ...message, round: message.round + 1 };
      case "SessionComplete":
        return { ...message, status: message.status === "solved" ? "failed" : "solved" };
      default:
        return { ...message, round: (message.round ?? 1) + 1 };
    }
  }

  it("rewording leaves it as it is; a changed decisive field changes it", () => {
    fc.assert(
      fc.property(messages, words, words, (message, body, text) => {
        const before = decisiveDigest(said(message));
        expect(decisiveDigest(said(reworded(message, text), body))).toBe(before);
        expect(decisiveDigest(said(changed(message)))).not.toBe(before);
      }),
      { numRuns: 300, seed: 38 },
    );
  });
});

describe("the list of wording fields and the scheme", () => {
  it("says why each field is wording", () => {
    for (const [field, why] of Object.entries(WORDING_FIELDS)) expect(why.length, field).toBeGreaterThan(20);
    expect(Object.keys(WORDING_FIELDS)).not.toContain("issues");
    expect(Object.keys(WORDING_FIELDS)).not.toContain("results");
  });

  it("marks each digest with its scheme, and a digest of another scheme is not compared", () => {
    const digest = decisiveDigest(said(request));
    expect(digest.startsWith(`d${DECISIVE_SCHEME}:`)).toBe(true);
    expect(comparableDecisive(digest)).toBe(true);
    expect(comparableDecisive(`d${DECISIVE_SCHEME + 1}:${digest.slice(3)}`)).toBe(false);
    expect(comparableDecisive(undefined)).toBe(false);
  });
});
