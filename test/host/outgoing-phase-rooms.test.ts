/**
 * Mirroring to the MFR phase rooms happens in `renderEffects`, the one function the live
 * host, the restore after a crash and `verify` all render with: each protocol message also
 * goes to its phase's room, built for that room's address; human text never does.
 */
import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/protocol/codec.js";
import { maxStatementWireBytes } from "../../src/protocol/model-parts.js";
import { MFR, Mode } from "../../src/base/vocab.js";
import type { Broadcast, Effect } from "../../src/session/step-io.js";
import { maxModelStatementBytes, renderEffects, roomsFor, stanzaDigest, type Outgoing, type RenderContext } from "../../src/host/outgoing.js";
import { stanzaBytes } from "../../src/xmpp/stanza.js";

const AT = Date.UTC(2026, 0, 1);
const PRIMARY = "mfr@conference.localhost";
const LOG = "mfr-log@conference.localhost";
const CONSTRUCT = "construct@conference.localhost";
const VALIDATE = "validate@conference.localhost";
// Longer than the primary room's JID: each of its copies must still fit the stanza limit.
const REASON = "reason-room-with-a-much-longer-name-than-the-primary-one@conference.localhost";
const PLAIN: RenderContext = { room: PRIMARY, logRoom: LOG, maxStanzaBytes: 16 * 1024 };
const ALL: RenderContext = { ...PLAIN, phaseRooms: { construct: CONSTRUCT, validate: VALIDATE, reason: REASON } };

const request: Broadcast = { type: "ModelContributionRequest", sessionId: "s1", problemDescription: "Deliver the goods", round: 1, requestedAgents: null, issues: null };
const fixRound: Broadcast = { ...request, round: 2, requestedAgents: ["alice"], issues: { alice: ["Entity <#truck> has no name"] } };
const validation: Broadcast = { type: "ModelValidationResult", sessionId: "s1", round: 1, conforms: true, summary: "The model conforms.", results: [], omitted: 0 };
const solutionRequest: Broadcast = { type: "SolutionRequest", sessionId: "s1", model: "<http://example.org/truck> a <http://purl.org/stuff/mfr/Entity> ." };
const complete: Broadcast = { type: "SessionComplete", sessionId: "s1", status: "solved", solutions: [{ agent: "alice", agentJid: undefined, receivedAt: AT, solution: { success: true, message: "Drive." } }], summary: "Solved.", reason: undefined };

const broadcast = (message: Broadcast): Effect => ({ kind: "broadcast", message, body: `${message.type} for s1` });
const render = (effects: Effect[], ctx: RenderContext = ALL) => renderEffects("s1", effects, AT, ctx);
const to = (o: Outgoing) => String(o.stanza.attrs.to);
const json = (o: Outgoing) => JSON.parse(decodeMessage(o.stanza).payload?.content ?? "{}") as Record<string, unknown>;

/** A model too large for one 16 KiB stanza, with blank nodes (skolemised when split). */
function bigModel(entities: number): string {
  const lines = ["@prefix mfr: <http://purl.org/stuff/mfr/> .", "@prefix schema: <http://schema.org/> ."];
  for (let i = 0; i < entities; i++) {
    lines.push(`<http://example.org/e${i}> a mfr:Entity ; mfr:entityType "Thing" ; schema:name "Entity number ${i} with a fairly long name" ;`);
    lines.push(`  mfr:hasEffect [ a mfr:Effect ; mfr:expression "x${i} > 0" ] .`);
  }
  return lines.join("\n");
}

function triplesOf(parts: Outgoing[]): Set<string> {
  const union = new Set<string>();
  for (const part of parts) for (const q of new Parser().parse(decodeMessage(part.stanza).payload?.content ?? "")) union.add(`${q.subject.value} ${q.predicate.value} ${q.object.value}`);
  return union;
}

describe("renderEffects: each phase's protocol messages also go to its room", () => {
  it.each([
    ["ModelContributionRequest, round 1", request, CONSTRUCT, "construct"],
    ["ModelContributionRequest, a fix round", fixRound, CONSTRUCT, "construct"],
    ["ModelValidationResult", validation, VALIDATE, "validate"],
    ["SolutionRequest", solutionRequest, REASON, "reason"],
    ["SessionComplete", complete, REASON, "reason"],
  ] as const)("%s: the primary room first, then the %s room with the same message", (_name, message, phaseRoom, phase) => {
    const { outgoing, notes } = render([broadcast(message)]);
    expect(notes).toEqual([]);
    expect(outgoing.map(to)).toEqual([PRIMARY, phaseRoom]);
    expect(outgoing.map((o) => o.what)).toEqual([message.type, `${message.type} in ${phase} room`]);
    const [primary, mirror] = outgoing as [Outgoing, Outgoing];
    // The same stanza but for its address: payload, siblings, body and timestamp alike.
    expect(mirror.stanza.toString()).toBe(primary.stanza.toString().replace(`to="${PRIMARY}"`, `to="${phaseRoom}"`));
    expect(decodeMessage(mirror.stanza).payload?.messageType).toBe(`${MFR}${message.type}`);
    expect(json(mirror)).toEqual(json(primary));
  });

  it("the primary room gets exactly what it gets without phase rooms", () => {
    const effects = [broadcast(request), broadcast(validation), broadcast(solutionRequest), broadcast(complete)];
    const without = render(effects, PLAIN).outgoing;
    const withRooms = render(effects).outgoing.filter((o) => to(o) === PRIMARY);
    expect(withRooms.map((o) => stanzaDigest(o.stanza))).toEqual(without.map((o) => stanzaDigest(o.stanza)));
    expect(withRooms.map((o) => o.what)).toEqual(without.map((o) => o.what));
  });

  it("a phase without a room sends to the primary room only", () => {
    const onlyReason: RenderContext = { ...PLAIN, phaseRooms: { reason: REASON } };
    const { outgoing } = render([broadcast(request), broadcast(validation), broadcast(complete)], onlyReason);
    expect(outgoing.map(to)).toEqual([PRIMARY, PRIMARY, PRIMARY, REASON]);
    expect(roomsFor("ModelContributionRequest", onlyReason)).toEqual([{ room: PRIMARY, phase: undefined }]);
  });

  it("a model in parts: the reason room gets its own complete set of parts, then its SolutionRequest, each within the limit", () => {
    const model = bigModel(150);
    const { outgoing, notes } = render([broadcast({ type: "SolutionRequest", sessionId: "s1", model })]);
    expect(notes.every((n) => n.level === "warn" && n.msg === "protocol message resized")).toBe(true);
    const primary = outgoing.filter((o) => to(o) === PRIMARY);
    const reason = outgoing.filter((o) => to(o) === REASON);
    expect(primary.length + reason.length).toBe(outgoing.length);
    // All of the primary room's stanzas come first: parts, then the request.
    expect(outgoing.slice(0, primary.length)).toEqual(primary);
    for (const [room, stanzas] of [[PRIMARY, primary], [REASON, reason]] as const) {
      const parts = stanzas.slice(0, -1);
      const last = stanzas.at(-1) as Outgoing;
      expect(parts.length, room).toBeGreaterThan(1);
      parts.forEach((part, i) => {
        const decoded = decodeMessage(part.stanza);
        expect(decoded.payload?.mode).toBe(Mode.ModelFirstRDF);
        expect(decoded.siblings).toEqual({ sessionId: "s1", modelPart: `${i + 1}/${parts.length}` });
      });
      expect(json(last)).toMatchObject({ model: "", modelParts: parts.length });
      for (const s of stanzas) expect(stanzaBytes(s.stanza)).toBeLessThanOrEqual(ALL.maxStanzaBytes);
      expect(triplesOf(parts).size).toBe(new Parser().parse(model).length);
    }
    // The same model in both rooms, blank nodes skolemised alike.
    expect(triplesOf(reason.slice(0, -1))).toEqual(triplesOf(primary.slice(0, -1)));
    expect(reason.map((o) => o.what)).toEqual(reason.map((_, i) => `SolutionRequest ${i + 1}/${reason.length} in reason room`));
  });

  it("a contribution's statements are bounded by the longest room the model goes to", () => {
    expect(maxModelStatementBytes("s1", PLAIN)).toBe(maxStatementWireBytes(PLAIN.maxStanzaBytes, "s1", PRIMARY));
    expect(maxModelStatementBytes("s1", ALL)).toBe(maxStatementWireBytes(ALL.maxStanzaBytes, "s1", REASON));
    expect(maxModelStatementBytes("s1", ALL)).toBeLessThan(maxModelStatementBytes("s1", PLAIN));
  });

  it("human text stays in the primary (and log) room: says, tells, and a message that could not be sent", () => {
    // One statement larger than any part can hold: the SolutionRequest cannot be sent anywhere.
    const unsendable = `<http://example.org/x> <http://example.org/p> "${"x".repeat(20 * 1024)}" .`;
    const { outgoing, notes } = render([
      broadcast(request),
      { kind: "say", room: "primary", text: "s1 started." },
      { kind: "tell", nick: "alice", text: "your contribution is in." },
      { kind: "say", room: "log", text: "full detail" },
      broadcast({ type: "SolutionRequest", sessionId: "s1", model: unsendable }),
      broadcast(complete),
    ]);
    expect(outgoing.map((o) => [to(o), o.what])).toEqual([
      [PRIMARY, "ModelContributionRequest"],
      [CONSTRUCT, "ModelContributionRequest in construct room"],
      [PRIMARY, "say primary"],
      [PRIMARY, "tell"],
      [LOG, "say log"],
      [PRIMARY, "say primary"],
      [PRIMARY, "SessionComplete"],
      [REASON, "SessionComplete in reason room"],
    ]);
    expect(decodeMessage((outgoing[5] as Outgoing).stanza).body).toMatch(/^s1: could not send the SolutionRequest: /);
    expect(notes.map((n) => [n.level, n.msg, n.data.room])).toEqual([
      ["error", "protocol message not sent", PRIMARY],
      ["error", "protocol message not sent to its phase room", REASON],
    ]);
    // Nothing in a phase room is without a protocol payload.
    for (const o of outgoing.filter((o) => [CONSTRUCT, VALIDATE, REASON].includes(to(o)))) expect(decodeMessage(o.stanza).payload).toBeDefined();
  });

  it("renders the same bytes every time (live, restore and verify agree)", () => {
    const effects = [broadcast(fixRound), broadcast(validation), broadcast({ type: "SolutionRequest", sessionId: "s1", model: bigModel(150) }), broadcast(complete)];
    const digests = () => render(effects).outgoing.map((o) => stanzaDigest(o.stanza));
    expect(digests()).toEqual(digests());
  });
});

describe("private answers to an agent", () => {
  it("go through the room its input came from, else through the primary room", () => {
    const effects: Effect[] = [
      { kind: "tell", nick: "Modeler", text: "Contribution received for s1.", privately: true, room: CONSTRUCT },
      { kind: "tell", nick: "Prolog", text: "Contribution received for s1.", privately: true },
    ];
    const sent = renderEffects("s1", effects, AT, ALL).outgoing.map((o) => [o.stanza.attrs.to, o.stanza.attrs.type]);
    expect(sent).toEqual([
      [`${CONSTRUCT}/Modeler`, "chat"],
      [`${PRIMARY}/Prolog`, "chat"],
    ]);
  });
});
