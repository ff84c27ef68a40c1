/**
 * Agents send every character XML 1.0 forbids, as escapes, through every inbound route that
 * can carry one; the coordinator quotes them back in bodies, JSON payloads and Turtle model
 * parts. Over a real Prosody, which closes the stream of whoever sends such a character: the
 * coordinator must stay connected, every peer must receive only XML-safe stanzas, and values
 * that travel in JSON or Turtle must arrive unchanged.
 */
import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import { MFR, Mode } from "../../src/base/vocab.js";
import { LOST_CONNECTION_LOG } from "../../src/xmpp/connection.js";
import { itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { coordinatorWithLogRoom } from "../support/scenes.js";
import { ALL_FORBIDDEN, FORBIDDEN_CHARS, forbiddenCodePoints, uEscape } from "../support/forbidden-chars.js";
import type { ReceivedMessage } from "../support/peer.js";
import { useTestProsody } from "../support/prosody.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent, type AgentScript } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();

const MAX_STANZA_BYTES = 8192;
/** What the room adds to a message it passes on: from, occupant-id, and its archive's stanza-id (XEP-0359). */
const ROOM_ADDS_BYTES = 400;
const CONFIG = `mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ; mfr:validationTimeout 10000 ; mfr:maxStanzaBytes ${MAX_STANZA_BYTES} ;`;

/** What a Turtle literal can carry: every forbidden character but the lone surrogates. */
const TURTLE_CHARS = FORBIDDEN_CHARS.filter((f) => !f.loneSurrogate);
const TURTLE_RAW = TURTLE_CHARS.map((f) => f.char).join("");
const TURTLE_ESCAPED = TURTLE_CHARS.map((f) => uEscape(f.char)).join("");

/**
 * JSON text a careful peer sends: JSON.stringify escapes controls and lone surrogates but
 * leaves U+FFFE and U+FFFF raw, which would get the *peer's* stream closed.
 */
function peerJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(/[\uFFFE\uFFFF]/g, uEscape);
  expect(forbiddenCodePoints(text)).toEqual([]);
  return text;
}

const negotiation = (type: string, sessionId?: string) => (m: ReceivedMessage) =>
  m.payload?.mode === Mode.ModelNegotiation && m.payload.messageType === `${MFR}${type}` && (sessionId === undefined || (m.payload.json as { sessionId?: string }).sessionId === sessionId);

function json(m: ReceivedMessage): Record<string, unknown> {
  return m.payload?.json as Record<string, unknown>;
}

describe("XML-safe output over a real server", () => {
  it("forbidden characters from agents come back escaped or replaced, and the coordinator stays connected", async () => {
    const { room, logRoom, coordinator, human } = await coordinatorWithLogRoom(server(), afterThis, CONFIG);

    // The modeler's side is driven by the test; the planner answers as existing peers do.
    const modelerPlan: { turtle?: string; proposes: boolean } = { proposes: false };
    const join = async (nick: string, script: AgentScript) => {
      const a = await ScriptedAgent.join(server(), room, nick, script);
      afterThis(() => a.stop());
      await a.announce();
      return a;
    };
    const modeler = await join("modeler", { contribution: () => modelerPlan.turtle, solution: () => (modelerPlan.proposes ? GOOD_SOLUTION : undefined) });
    const planner = await join("planner", { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await new Promise((r) => setTimeout(r, 200));
    const sendJson = (value: unknown) => modeler.peer.sendGroupchat(room, { payload: { mode: Mode.ModelNegotiation, mime: "application/json", content: peerJson(value) } });
    const startSession = async (problem: string) => {
      await human.sendGroupchat(room, { body: `mfr-start ${problem}` });
      return String(json(await human.waitForMessage(negotiation("ModelContributionRequest"))).sessionId);
    };

    // --- Session 1: the model fits in one SolutionRequest ---------------------------------
    const first = await startSession("Deliver goods");

    // A syntax error on a line holding the escapes: the reply quotes the offending token, decoded.
    await modeler.contribute(first, `@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#a> a mfr:Entity ;\n  mfr:entityType "${TURTLE_ESCAPED}" mfr:entityType .\n`);
    const complaint = await modeler.peer.waitForMessage((m) => m.type === "chat" && (m.body ?? "").startsWith("Your contribution") && (m.body ?? "").includes("not valid Turtle"));
    expect(complaint.body).toMatch(/line 3/);
    expect(complaint.body).toContain("\uFFFD".repeat(TURTLE_CHARS.length));

    // Turtle escapes in literals: they end up in the model the solvers get.
    await modeler.contribute(first, `${MODELER_TURTLE}\n<#truck> <http://www.w3.org/2000/01/rdf-schema#comment> "odd ${TURTLE_ESCAPED} end" .\n`);
    const request = await modeler.peer.waitForMessage(negotiation("SolutionRequest", first), 10_000);
    expect(json(request).modelParts).toBeUndefined();
    const comments = new Parser().parse(String(json(request).model)).filter((q) => q.predicate.value.endsWith("#comment"));
    expect(comments.map((q) => q.object.value)).toContain(`odd ${TURTLE_RAW} end`);

    // JSON escapes: an unknown session id, an unknown message type, and a proposal whose
    // message, plan, bindings and an extra field carry every forbidden character.
    await sendJson({ messageType: `${MFR}SolutionProposal`, sessionId: "\u0001", solution: GOOD_SOLUTION });
    const unknown = await modeler.peer.waitForMessage((m) => (m.body ?? "").includes("There is no session"));
    expect(unknown.body).toContain('There is no session "\uFFFD"');
    await sendJson({ messageType: `${MFR}Other${ALL_FORBIDDEN}`, sessionId: first });
    const proposal = {
      success: true,
      message: `Drive ${ALL_FORBIDDEN}`,
      plan: ["drive(truck, depot, warehouse)", `wait ${ALL_FORBIDDEN}`],
      bindings: [`truck=${ALL_FORBIDDEN}`],
      confidence: ALL_FORBIDDEN,
    };
    await sendJson({ messageType: `${MFR}SolutionProposal`, sessionId: first, solution: proposal });

    const complete = await human.waitForMessage(negotiation("SessionComplete", first), 10_000);
    const solutions = json(complete).solutions as Array<Record<string, unknown>>;
    expect(solutions.find((s) => s.agent === "modeler")).toMatchObject(proposal);
    await human.waitForMessage((m) => m.from === `${logRoom}/Coordinator` && (m.body ?? "").includes(`Session ${first}`) && (m.body ?? "").includes("Detail:"), 10_000);

    // --- Session 2: the model goes in Turtle parts ------------------------------------------
    modelerPlan.turtle = `${MODELER_TURTLE}\n@prefix schema: <http://schema.org/> .\n${Array.from({ length: 60 }, (_, i) => `<#box${i}> a mfr:Entity ; mfr:entityType "Box" ; schema:name "Box ${i} ${TURTLE_ESCAPED}" .`).join("\n")}\n`;
    modelerPlan.proposes = true;
    const second = await startSession("Deliver many boxes");
    const partsRequest = await modeler.peer.waitForMessage(negotiation("SolutionRequest", second), 10_000);
    const { modelParts, modelTriples } = json(partsRequest) as { modelParts: number; modelTriples: number };
    expect(modelParts).toBeGreaterThan(1);
    const parts = modeler.peer.messages.filter((m) => m.from === `${room}/Coordinator` && m.payload?.mode === Mode.ModelFirstRDF && m.siblings.sessionId === second);
    expect(parts).toHaveLength(modelParts);
    const union = parts.flatMap((p) => new Parser().parse(p.payload?.content ?? ""));
    expect(union).toHaveLength(modelTriples);
    const names = union.filter((q) => q.predicate.value === "http://schema.org/name").map((q) => q.object.value);
    for (let i = 0; i < 60; i++) expect(names).toContain(`Box ${i} ${TURTLE_RAW}`);
    const secondComplete = await human.waitForMessage(negotiation("SessionComplete", second), 10_000);
    expect(json(secondComplete).status).toBe("solved");

    // --- Still connected, still answering ------------------------------------------------------
    await human.sendGroupchat(room, { body: "help" });
    await human.waitForMessage((m) => (m.body ?? "").includes("runs Model-First Reasoning sessions"));

    const received = [human, modeler.peer, planner.peer].flatMap((p) => p.messages);
    const fromCoordinator = received.filter((m) => m.from.endsWith("/Coordinator"));
    expect(fromCoordinator.length).toBeGreaterThan(10);
    for (const m of received) expect(forbiddenCodePoints(m.stanza.toString()), m.stanza.toString().slice(0, 200)).toEqual([]);
    // The room adds a little (from, id) to what the coordinator sent within its limit.
    for (const m of fromCoordinator) expect(Buffer.byteLength(m.stanza.toString())).toBeLessThanOrEqual(MAX_STANZA_BYTES + ROOM_ADDS_BYTES);
    expect([human, modeler.peer, planner.peer].flatMap((p) => p.errors)).toEqual([]);
    const logged = coordinator.logs.map((l) => l.msg);
    expect(logged).not.toContain(LOST_CONNECTION_LOG);
    expect(logged).not.toContain("refusing to send a stanza over the size limit");
    expect(logged).not.toContain("protocol message not sent");
    expect(coordinator.logs.filter((l) => l.msg === "joined the room")).toHaveLength(2);
    // Bodies quoting agent text have no escape: the gate replaced what they held, and said so.
    expect(logged).toContain("replaced characters XML forbids with U+FFFD before sending");
  }, 60_000);

  itReplaysEveryLoggedSessionAsSent();
});
