import { DataFactory, Parser, Writer, type Quad } from "n3";
import { describe, expect, it } from "vitest";
import { decodeMessage, encodeMessage } from "../../src/protocol/codec.js";
import { maxStatementWireBytes, modelPartStanzas, splitModel, statementWireBytes, turtleWireBytes } from "../../src/protocol/model-parts.js";
import { protocolStanzas } from "../../src/protocol/outbound.js";
import { MimeForMode, Mode, PREFIXES } from "../../src/base/vocab.js";
import type { Proposal } from "../../src/session/types.js";
import type { Broadcast } from "../../src/session/step-io.js";
import { stanzaBytes, xmlSafeStanza, type Element } from "../../src/xmpp/stanza.js";
import { ALL_FORBIDDEN, FORBIDDEN_CHARS, forbiddenCodePoints } from "../support/forbidden-chars.js";

const { literal, namedNode, quad } = DataFactory;
const ROOM = "mfr@conference.localhost";
const ctx = { room: ROOM, now: Date.UTC(2026, 0, 1), maxStanzaBytes: 16 * 1024, skolemBase: "http://purl.org/stuff/mfr/session/s1/" };

/** What goes on the wire: the stanza after the connection's gate, serialised. */
function wire(stanza: Element): string {
  return xmlSafeStanza(stanza).stanza.toString();
}

/** The characters a Turtle contribution can carry in (n3 rejects `\u` escapes of surrogates). */
const TURTLE_CARRIED = FORBIDDEN_CHARS.filter((f) => !f.loneSurrogate)
  .map((f) => `${f.char}.`)
  .join("");

function write(quads: Quad[]): string {
  const writer = new Writer({ prefixes: PREFIXES });
  writer.addQuads(quads);
  let out = "";
  writer.end((_err, result: string) => (out = result));
  return out;
}

function statement(subject: string, value: string): Quad {
  return quad(namedNode(`http://example.org/${subject}`), namedNode("http://www.w3.org/2000/01/rdf-schema#comment"), literal(value));
}

function tripleSet(quads: Quad[]): Set<string> {
  return new Set(quads.map((q) => `${q.subject.value} ${q.predicate.value} ${JSON.stringify(q.object.value)}`));
}

function payloadJson(stanza: Element): Record<string, unknown> {
  return JSON.parse(decodeMessage(stanza).payload?.content ?? "null") as Record<string, unknown>;
}

describe("encodeMessage escapes JSON and Turtle payloads; the gate replaces the rest", () => {
  it.each(Object.values(Mode))("payload mode %s", (mode) => {
    const mime = MimeForMode[mode];
    const content =
      mime === "application/json" ? JSON.stringify({ value: ALL_FORBIDDEN }) : mime === "text/turtle" ? write([statement("s", ALL_FORBIDDEN)]) : `text ${ALL_FORBIDDEN}`;
    const built = encodeMessage({ to: ROOM, type: "groupchat", body: `body ${ALL_FORBIDDEN}`, payload: { mode, content, messageType: "m" }, siblings: { sessionId: ALL_FORBIDDEN } });
    const payloadText = built.getChild("payload")?.getText() ?? "";
    if (mime === "text/plain") expect(payloadText).toBe(content);
    else expect(forbiddenCodePoints(payloadText), "escaped by the encoder, not left to the gate").toEqual([]);

    const sent = wire(built);
    expect(forbiddenCodePoints(sent)).toEqual([]);
    expect(Buffer.byteLength(sent)).toBe(stanzaBytes(built));
    const received = decodeMessage(xmlSafeStanza(built).stanza);
    expect(received.body).toBe(`body ${ALL_FORBIDDEN.replace(/[^x]/g, "\uFFFD")}`);
    expect(received.siblings.sessionId).toBe(ALL_FORBIDDEN.replace(/[^x]/g, "\uFFFD"));
    const back = received.payload?.content ?? "";
    if (mime === "application/json") expect((JSON.parse(back) as { value: string }).value).toBe(ALL_FORBIDDEN);
    else if (mime === "text/turtle") expect(new Parser().parse(back)[0]?.object.value).toBe(ALL_FORBIDDEN.replace(/[\uD800-\uDFFF]/g, "\uFFFD"));
    else expect(back).toBe(`text ${ALL_FORBIDDEN.replace(/[^x]/g, "\uFFFD")}`);
  });
});

describe("protocolStanzas: every Broadcast type carries agent text safely and within the limit", () => {
  const solution: Proposal = {
    agent: `agent${ALL_FORBIDDEN}`,
    agentJid: undefined,
    receivedAt: 1,
    solution: { success: true, message: `message ${ALL_FORBIDDEN}`, plan: [`step ${ALL_FORBIDDEN}`], bindings: [`x=${ALL_FORBIDDEN}`], extra: { note: ALL_FORBIDDEN } },
  };
  const model = write([statement("a", TURTLE_CARRIED), statement("b", `plain ${ALL_FORBIDDEN}`)]);
  const broadcasts: Broadcast[] = [
    { type: "ModelContributionRequest", sessionId: "s1", problemDescription: `problem ${ALL_FORBIDDEN}`, round: 2, requestedAgents: [ALL_FORBIDDEN], issues: { [ALL_FORBIDDEN]: [`fix ${ALL_FORBIDDEN}`] } },
    {
      type: "ModelValidationResult",
      sessionId: "s1",
      round: 1,
      conforms: false,
      summary: `summary ${ALL_FORBIDDEN}`,
      results: [{ severity: "Violation", focusNode: `http://example.org/${ALL_FORBIDDEN}`, path: ALL_FORBIDDEN, message: `bad ${ALL_FORBIDDEN}`, agent: ALL_FORBIDDEN }],
      omitted: 0,
    },
    { type: "SolutionRequest", sessionId: "s1", model },
    { type: "SessionComplete", sessionId: "s1", status: "solved", solutions: [solution], summary: `summary ${ALL_FORBIDDEN}`, reason: `reason ${ALL_FORBIDDEN}` },
  ];

  it.each(broadcasts)("$type: no forbidden character on the wire, and JSON.parse gives back every value", (message) => {
    const out = protocolStanzas(message, `body ${ALL_FORBIDDEN}`, ctx);
    if (!out.ok) throw new Error(out.error);
    expect(out.stanzas).toHaveLength(1);
    const stanza = out.stanzas[0] as Element;
    expect(forbiddenCodePoints(stanza.getChild("payload")?.getText() ?? "")).toEqual([]);
    expect(forbiddenCodePoints(wire(stanza))).toEqual([]);
    expect(Buffer.byteLength(wire(stanza))).toBeLessThanOrEqual(ctx.maxStanzaBytes);
    const json = payloadJson(xmlSafeStanza(stanza).stanza);
    const { type: _type, ...fields } = message;
    switch (message.type) {
      case "ModelContributionRequest":
        expect(json).toMatchObject({ problemDescription: message.problemDescription, requestedAgents: message.requestedAgents, issues: message.issues });
        break;
      case "ModelValidationResult":
        expect(json).toMatchObject({ summary: message.summary, results: message.results });
        break;
      case "SolutionRequest":
        expect(json.model).toBe(model);
        expect(tripleSet(new Parser().parse(String(json.model)))).toEqual(tripleSet(new Parser().parse(model)));
        break;
      case "SessionComplete":
        expect(json).toMatchObject({ summary: message.summary, reason: message.reason, solutions: [{ agent: solution.agent, ...solution.solution }] });
        break;
    }
    expect(fields.sessionId).toBe(json.sessionId);
  });

  it("a list shortened to fit is measured as sent: U+FFFE grows from 3 bytes to 6 when escaped", () => {
    const results = Array.from({ length: 500 }, (_, i) => ({ severity: "Violation" as const, focusNode: `http://example.org/n${i}`, message: `\uFFFE\u0001`.repeat(40) }));
    const out = protocolStanzas({ type: "ModelValidationResult", sessionId: "s1", round: 1, conforms: false, summary: "many", results, omitted: 0 }, "Validation", ctx);
    if (!out.ok) throw new Error(out.error);
    const stanza = out.stanzas[0] as Element;
    expect(Buffer.byteLength(wire(stanza))).toBeLessThanOrEqual(ctx.maxStanzaBytes);
    const json = payloadJson(stanza) as { results: Array<{ message: string }>; omittedResults: number };
    expect(json.results.length).toBeGreaterThan(10);
    expect(json.results.length + json.omittedResults).toBe(500);
    expect(json.results[0]?.message).toBe(results[0]?.message);
  });

  it("SolutionRequest split into parts: every part within the limit as sent, filled close to it, and the union is the model", () => {
    const maxStanzaBytes = 8192;
    const quads = Array.from({ length: 300 }, (_, i) => statement(`e${i}`, `entity ${i} <&> "${TURTLE_CARRIED}"`));
    const bigModel = write(quads);
    const out = protocolStanzas({ type: "SolutionRequest", sessionId: "s1", model: bigModel }, `Solution request ${ALL_FORBIDDEN}`, { ...ctx, maxStanzaBytes });
    if (!out.ok) throw new Error(out.error);
    const parts = out.stanzas.slice(0, -1);
    expect(parts.length).toBeGreaterThan(5);
    for (const stanza of out.stanzas) {
      const sent = wire(stanza);
      expect(forbiddenCodePoints(sent)).toEqual([]);
      expect(Buffer.byteLength(sent)).toBeLessThanOrEqual(maxStanzaBytes);
    }
    // Exact measure instead of a 0.75 guess: each full part is within one subject of the limit.
    const oneSubject = Math.max(...quads.map((q) => statementWireBytes(q, ctx.skolemBase)));
    for (const stanza of parts.slice(0, -1)) expect(stanzaBytes(stanza)).toBeGreaterThan(maxStanzaBytes - oneSubject);
    const union = parts.flatMap((p) => new Parser().parse(decodeMessage(xmlSafeStanza(p).stanza).payload?.content ?? ""));
    expect(tripleSet(union)).toEqual(tripleSet(quads));
    expect(payloadJson(out.stanzas.at(-1) as Element)).toMatchObject({ model: "", modelParts: parts.length, modelTriples: quads.length });
  });
});

describe("maxStatementWireBytes: the largest statement a model part can carry", () => {
  const maxStanzaBytes = 4096;
  const sessionId = "s-42";
  const address = { room: ROOM, sessionId };
  const skolemBase = `http://purl.org/stuff/mfr/session/${sessionId}/`;
  /** A statement whose wire size is exactly `bytes`: escapes that grow, padded with plain letters. */
  const sized = (bytes: number): Quad => {
    const grown = `<&>${TURTLE_CARRIED}`;
    const base = statementWireBytes(statement("big", grown), skolemBase);
    return statement("big", grown + "a".repeat(bytes - base));
  };

  it("a statement of exactly that size goes in one part at the limit; one byte more cannot be sent", () => {
    const limit = maxStatementWireBytes(maxStanzaBytes, sessionId, ROOM);
    expect(limit).toBeGreaterThan(maxStanzaBytes / 2);
    const fits = sized(limit);
    expect(statementWireBytes(fits, skolemBase)).toBe(limit);
    const sent = modelPartStanzas(write([fits]), address, maxStanzaBytes, skolemBase);
    if (!sent.ok) throw new Error(sent.error);
    expect(sent.stanzas).toHaveLength(1);
    // The measure allows for "part 999 of 999" and "999/999": "1 of 1" and "1/1" are 8 bytes shorter.
    expect(Buffer.byteLength(wire(sent.stanzas[0] as Element))).toBe(maxStanzaBytes - 8);

    const tooBig = sized(limit + 1);
    const refused = modelPartStanzas(write([tooBig]), address, maxStanzaBytes, skolemBase);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error).toContain(`${limit + 1} bytes on the wire`);
  });

  it("depends on the session id and the room, which every part carries", () => {
    const short = maxStatementWireBytes(maxStanzaBytes, "s", ROOM);
    expect(maxStatementWireBytes(maxStanzaBytes, "s".repeat(11), ROOM)).toBe(short - 20); // in <body> and <sessionId>
    expect(maxStatementWireBytes(maxStanzaBytes, "s", `x${ROOM}`)).toBe(short - 1);
    expect(maxStatementWireBytes(2 * maxStanzaBytes, "s", ROOM)).toBe(short + maxStanzaBytes);
  });

  it("splitModel keeps its contract: complete documents, blank nodes skolemised, each within the part budget", () => {
    const turtle = `@prefix mfr: <http://purl.org/stuff/mfr/> .\n${Array.from({ length: 50 }, (_, i) => `<http://example.org/a${i}> mfr:hasEffect [ a mfr:Effect ; mfr:expression "x${i}\\u001F" ] .`).join("\n")}`;
    const split = splitModel(turtle, 1200, skolemBase);
    if (!split.ok) throw new Error(split.error);
    expect(split.parts.length).toBeGreaterThan(3);
    const union = split.parts.flatMap((part) => new Parser().parse(part));
    expect(union).toHaveLength(split.triples);
    expect(union.every((q) => q.subject.termType === "NamedNode" && q.object.termType !== "BlankNode")).toBe(true);
    expect(union.filter((q) => q.object.value.endsWith("\u001F"))).toHaveLength(50);
  });

  it("splitModel measures exactly: a model of exactly the part size is one part, one byte less makes two", () => {
    const turtle = write(Array.from({ length: 40 }, (_, i) => statement(`e${i % 13}`, `value ${i} <&> ${TURTLE_CARRIED}`)));
    const whole = splitModel(turtle, 1e9, skolemBase);
    if (!whole.ok) throw new Error(whole.error);
    const size = turtleWireBytes(whole.parts[0] as string);
    expect(splitModel(turtle, size, skolemBase)).toMatchObject({ ok: true, parts: whole.parts });
    expect(splitModel(turtle, size - 1, skolemBase)).toMatchObject({ ok: true, parts: [expect.any(String), expect.any(String)] });
  });
});
