/**
 * Every line the coordinator writes, as a person reads it in a chat client, over random
 * sessions (fast-check): the core stepped through random inputs on a fake clock, and what
 * each step sends rendered as the connection would send it (host/outgoing.ts), then the
 * answers to `mfr-status` and `mfr-list` at the end. For every line:
 *   - the same prefix rule (session/room-lines.ts): in a room, `[MFR] ` in front, except the
 *     requests agents must act on and a Chair's debate invitation; 1:1 and private, none;
 *   - one line, unless it is a list (a selection, a clarification, the invitation, detail
 *     for the log room, mfr-status and mfr-list);
 *   - within its bound;
 *   - no doubled punctuation of our own around the words we quote (`"….".`, `..`, `::`);
 *   - a number never split from its unit by a plain space a client could wrap at.
 * With hostile texts from agents and people (quotes, stops, line breaks, very long, characters
 * XML forbids) the first three hold; the last two are checked with texts that read like
 * sentences, since a hostile text may carry doubled punctuation of its own.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderEffects, type RenderContext } from "../../src/host/outgoing.js";
import { asksAgents, STATUS_MARK } from "../../src/session/room-lines.js";
import { sessionStatus } from "../../src/session/status-text.js";
import { listedOf, sessionsTable } from "../../src/session/list-text.js";
import type { Participant, SolutionBody, ValidationFinding } from "../../src/session/types.js";
import type { Effect, Input } from "../../src/session/step-io.js";
import { Driver, T0, conforming, finding, ok, okCheck, settings, violating } from "../support/session-fixtures.js";

const RENDER: RenderContext = { room: "room@conference.localhost", logRoom: "log@conference.localhost", maxStanzaBytes: 64 * 1024, phaseRooms: {} };
const AGENTS = ["alice", "bob", "Carol"];
const PERSON: Participant = { nick: "dana", jid: "dana@people.example" };

/** Texts people and agents write: sentences ending in a stop, a question, nothing; or, hostile, anything. */
const sentence = fc.oneof(
  fc.constantFrom("Deliver 3 crates from the depot to the warehouse.", "Can you plan this?", "Plan a trip to Rome", "Two trips: two crates, then the third!", "Done."),
  fc.array(fc.constantFrom("deliver", "crates", "the", "truck", "quickly", "warehouse", "plan"), { minLength: 1, maxLength: 40 }).map((w) => `${w.join(" ")}.`),
);
const hostile = fc.oneof(sentence, fc.string({ maxLength: 400 }), fc.constantFrom('"quoted." "again".', "line\nbreak\r\nnext", "x".repeat(3000), "\u0001\uFFFE\uD800", "Ends with ellipsis…", "a: b: c::"));

/** One step of a random session. */
type Move =
  | { kind: "contribute"; agent: string; good: boolean }
  | { kind: "analyse"; sound: boolean; findings: ValidationFinding[] }
  | { kind: "propose"; agent: string; solution: SolutionBody }
  | { kind: "wait"; ms: number }
  | { kind: "expire" }
  | { kind: "cancel" }
  | { kind: "absence"; ms: number; kept: boolean };

function moves(text: fc.Arbitrary<string>): fc.Arbitrary<Move[]> {
  const agent = fc.constantFrom(...AGENTS);
  const aFinding = fc.record({ agent, message: fc.oneof(text, fc.constantFrom("Every Goal needs an rdfs:label, rdfs:comment or mfr:expression that says what it is", "Every Entity needs an mfr:entityType")), node: fc.constantFrom("http://purl.org/stuff/mfr/session/s1/delivered", "_:b0", "urn:x") });
  const move: fc.Arbitrary<Move> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ agent, good: fc.boolean() }).map((m): Move => ({ kind: "contribute", ...m })) },
    { weight: 2, arbitrary: fc.record({ sound: fc.boolean(), findings: fc.array(aFinding, { minLength: 1, maxLength: 5 }) }).map((m): Move => ({ kind: "analyse", sound: m.sound, findings: m.findings.map((f) => finding({ agents: [f.agent], message: f.message, focusNode: f.node })) })) },
    {
      weight: 3,
      arbitrary: fc
        .record({ agent, success: fc.boolean(), message: text, plan: fc.option(fc.array(text, { maxLength: 25 }), { nil: undefined }) })
        .map((m): Move => ({ kind: "propose", agent: m.agent, solution: { success: m.success, message: m.message, ...(m.plan ? { plan: m.plan } : {}), satisfiesGoals: [{ goal: "g1", satisfied: m.success }] } })),
    },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 200_000 }).map((ms): Move => ({ kind: "wait", ms })) },
    { weight: 2, arbitrary: fc.constant<Move>({ kind: "expire" }) },
    { weight: 1, arbitrary: fc.constant<Move>({ kind: "cancel" }) },
    { weight: 1, arbitrary: fc.record({ ms: fc.integer({ min: 1, max: 90_000 }), kept: fc.boolean() }).map((m): Move => ({ kind: "absence", ...m })) },
  );
  return fc.array(move, { maxLength: 25 });
}

/** A line as it leaves, with what it is: a room line (groupchat), a private or 1:1 one, and whether it is a request or an invitation. */
interface Line {
  body: string;
  where: "room" | "log" | "private";
  request: boolean;
  invitation: boolean;
}

/** Runs a random session and renders every line it sends, then mfr-status and mfr-list as the room gets them. */
function linesOf(problem: string, maxFixRounds: number, script: Move[]): Line[] {
  const d = new Driver();
  const lines: Line[] = [];
  const take = (effects: Effect[], at: number) => {
    const forChairs = new Set(effects.filter((e) => e.kind === "say" && e.forChairs).map((e) => (e.kind === "say" ? e.text : "")));
    const requests = new Set(effects.flatMap((e) => (e.kind === "broadcast" && asksAgents(e.message.type) && e.body !== undefined ? [e.body] : [])));
    for (const out of renderEffects("s1", effects, at, RENDER).outgoing) {
      const stanza = out.stanza;
      const body = stanza.getChildText("body");
      if (body === null) continue;
      const where = stanza.attrs.type === "chat" ? "private" : stanza.attrs.to === RENDER.logRoom ? "log" : "room";
      lines.push({ body, where, request: requests.has(body), invitation: forChairs.has(body) });
    }
  };
  const feed = (input: Input, at = d.now) => take(d.feed(input, at), at);
  feed({ kind: "start", sessionId: "s1", problem, by: PERSON, settings: settings({ maxFixRounds, maxRepairRounds: 1, quietPeriodMs: 5_000, awaitExpectedAgents: true }), expectedAgents: ["alice", "bob"], requestedAgents: null });
  for (const m of script) {
    const s = d.state.byId.s1;
    if (!s) break;
    switch (m.kind) {
      case "contribute":
        feed({ kind: "contribution", sessionId: "s1", from: { nick: m.agent, jid: `${m.agent}@a.example` }, turtle: "<#x> a <y> .", check: m.good ? okCheck() : { ok: false, message: "Unexpected token.", line: 2, column: 5 } });
        break;
      case "analyse":
        if (s.phase === "validating" && s.analysingVersion !== null) feed({ kind: "analysis", sessionId: "s1", version: s.analysingVersion, outcome: ok(m.sound ? conforming() : violating(m.findings)) });
        break;
      case "propose":
        feed({ kind: "proposal", sessionId: "s1", from: { nick: m.agent, jid: `${m.agent}@a.example` }, solution: m.solution });
        break;
      case "wait":
        d.advance(m.ms);
        break;
      case "expire":
        if (s.deadline) feed({ kind: "deadline", sessionId: "s1", at: s.deadline.at }, Math.max(d.now, s.deadline.at));
        break;
      case "cancel":
        feed({ kind: "cancel", sessionId: "s1", by: PERSON });
        break;
      case "absence":
        feed({ kind: "absence", sessionId: "s1", from: d.now, to: d.now + m.ms, kept: m.kept, reachedBack: true }, d.now + m.ms);
        break;
    }
  }
  // What a person asks: answered in the room, through the outlet that marks room lines.
  const s = d.session();
  for (const answer of [sessionStatus(s, d.now), `Sessions, newest first:\n${sessionsTable([listedOf(s)], d.now + 1_000)}`]) {
    lines.push({ body: `${STATUS_MARK}${answer}`, where: "room", request: false, invitation: false });
  }
  return lines;
}

/** Lines that may hold several lines: lists, detail for the log room, the invitation, mfr-status and mfr-list. */
function isList(line: Line): boolean {
  return line.where === "log" || line.invitation || /^\[MFR\] (Session \S+(: agents chosen| needs clarification)|Sessions, newest first|Session \S+[: ])/.test(line.body) && line.body.includes("\n");
}

describe("every line the coordinator writes", () => {
  it("follows one prefix rule, is one line unless it is a list, and stays within its bound, whatever agents and people write", () => {
    fc.assert(
      fc.property(hostile, fc.constantFrom(0, 1), moves(hostile), (problem, rounds, script) => {
        for (const line of linesOf(problem, rounds, script)) {
          const marked = line.body.startsWith(STATUS_MARK);
          if (line.where === "private") expect(marked, line.body).toBe(false);
          else if (line.request || line.invitation) expect(marked, line.body).toBe(false);
          else expect(marked, line.body).toBe(true);
          if (!isList(line)) expect(line.body, "one line").not.toMatch(/[\n\r]/);
          // A room line a person reads whole; mfr-status and the detail for the log room are longer lists.
          const bound = line.where === "log" || line.body.includes("\n") ? 8_000 : 700;
          expect(line.body.length, line.body.slice(0, 200)).toBeLessThanOrEqual(bound);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("doubles no punctuation of its own and never splits a number from its unit, with texts that read like sentences", () => {
    fc.assert(
      fc.property(sentence, fc.constantFrom(0, 1), moves(sentence), (problem, rounds, script) => {
        for (const line of linesOf(problem, rounds, script)) {
          const body = line.body;
          expect(body, "no stop after a quoted stop").not.toMatch(/[.!?]"[.!?]/);
          expect(body, "no doubled stop").not.toMatch(/(?<!\.)\.\.(?!\.)/);
          expect(body, "no doubled colon").not.toMatch(/::|: [a-z-]+: [A-Z]/);
          expect(body, "no space before punctuation").not.toMatch(/ [.,;:](\s|$)/);
          expect(body, "a duration's number and unit kept together").not.toMatch(/\b\d+(\.\d)? (ms|s|min|h)\b/);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("starts a session with the problem quoted once, without its own full stop", () => {
    const [request] = linesOf("Deliver 3 crates from the depot to the warehouse with one truck that carries at most 2 crates at a time.", 1, []);
    expect(request?.body).toBe(
      'Session s1 started by dana: "Deliver 3 crates from the depot to the warehouse with one truck that carries at most 2 crates at a time". Asking all agents for model contributions, open for 1\u00a0min.',
    );
    expect(T0).toBeGreaterThan(0);
  });
});
