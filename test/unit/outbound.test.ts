import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/protocol/codec.js";
import { protocolStanzas } from "../../src/protocol/outbound.js";
import { MessageType, Mode } from "../../src/base/vocab.js";
import type { Proposal } from "../../src/session/types.js";
import { stanzaBytes } from "../../src/xmpp/stanza.js";

const ctx = { room: "mfr@conference.localhost", now: Date.UTC(2026, 0, 1), maxStanzaBytes: 16 * 1024, skolemBase: "http://purl.org/stuff/mfr/session/s1/" };

function bigModel(entities: number): string {
  const lines = ["@prefix mfr: <http://purl.org/stuff/mfr/> .", "@prefix schema: <http://schema.org/> ."];
  for (let i = 0; i < entities; i++) {
    lines.push(`<http://example.org/e${i}> a mfr:Entity ; mfr:entityType "Thing <&> \\"${i}\\"" ; schema:name "Entity number ${i} with a fairly long name" ;`);
    lines.push(`  mfr:hasEffect [ a mfr:Effect ; mfr:expression "x${i} > 0" ] .`);
  }
  return lines.join("\n");
}

describe("outbound protocol messages never exceed the stanza limit", () => {
  it("a small model goes in one SolutionRequest", () => {
    const out = protocolStanzas({ type: "SolutionRequest", sessionId: "s1", model: bigModel(2) }, "Solution request", ctx);
    expect(out.ok && out.stanzas.length).toBe(1);
  });

  it("a model too big for one stanza goes as self-contained Turtle parts, then a SolutionRequest naming how many", () => {
    const model = bigModel(400);
    const original = new Parser().parse(model);
    const out = protocolStanzas({ type: "SolutionRequest", sessionId: "s1", model }, "Solution request", ctx);
    if (!out.ok) throw new Error(out.error);
    expect(out.stanzas.length).toBeGreaterThan(3);
    for (const stanza of out.stanzas) expect(stanzaBytes(stanza)).toBeLessThanOrEqual(ctx.maxStanzaBytes);

    const parts = out.stanzas.slice(0, -1).map((s) => decodeMessage(s));
    const request = decodeMessage(out.stanzas[out.stanzas.length - 1] as (typeof out.stanzas)[number]);
    expect(request.payload?.messageType).toBe(MessageType.SolutionRequest);
    const json = JSON.parse(request.payload?.content ?? "{}") as { model: string; modelParts: number; modelTriples: number };
    expect(json.modelParts).toBe(parts.length);
    expect(json.model).toBe("");
    expect(json.modelTriples).toBe(original.length);

    // Each part parses on its own; the union is the model (blank nodes became IRIs, consistently).
    const union = new Set<string>();
    parts.forEach((part, i) => {
      expect(part.payload?.mode).toBe(Mode.ModelFirstRDF);
      expect(part.siblings).toEqual({ sessionId: "s1", modelPart: `${i + 1}/${parts.length}` });
      for (const q of new Parser().parse(part.payload?.content ?? "")) union.add(`${q.subject.value} ${q.predicate.value} ${q.object.termType}:${q.object.value}`);
    });
    expect(union.size).toBe(original.length);
    const effects = [...union].filter((t) => t.includes("/.well-known/genid/") && t.includes("22-rdf-syntax-ns#type"));
    expect(effects).toHaveLength(400);
  });

  it("a long validation result keeps the first results and counts the rest", () => {
    const results = Array.from({ length: 2000 }, (_, i) => ({ severity: "Violation" as const, focusNode: `http://example.org/node/${i}`, message: `Problem number ${i} with this node`, agent: "alice" }));
    const out = protocolStanzas({ type: "ModelValidationResult", sessionId: "s1", round: 1, conforms: false, summary: "many", results, omitted: 0 }, "Validation", ctx);
    if (!out.ok) throw new Error(out.error);
    expect(out.stanzas).toHaveLength(1);
    const stanza = out.stanzas[0] as (typeof out.stanzas)[number];
    expect(stanzaBytes(stanza)).toBeLessThanOrEqual(ctx.maxStanzaBytes);
    const json = JSON.parse(decodeMessage(stanza).payload?.content ?? "{}") as { results: unknown[]; omittedResults: number };
    expect(json.results.length).toBeGreaterThan(10);
    expect(json.results.length + json.omittedResults).toBe(2000);
  });

  it("SessionComplete keeps the best solutions first when they do not all fit", () => {
    const solutions: Proposal[] = Array.from({ length: 300 }, (_, i) => ({ agent: `agent${i}`, agentJid: undefined, receivedAt: i, solution: { success: true, message: "m".repeat(200), plan: ["step"] } }));
    const out = protocolStanzas({ type: "SessionComplete", sessionId: "s1", status: "solved", solutions, summary: "done", reason: undefined }, "Complete", ctx);
    if (!out.ok) throw new Error(out.error);
    const json = JSON.parse(decodeMessage(out.stanzas[0] as (typeof out.stanzas)[number]).payload?.content ?? "{}") as { solutions: Array<{ agent: string }>; omittedSolutions: number };
    expect(json.solutions[0]?.agent).toBe("agent0");
    expect(json.solutions.length + json.omittedSolutions).toBe(300);
  });

  it("messageType is sent as a full IRI, in the JSON and on the payload", () => {
    const out = protocolStanzas({ type: "ModelContributionRequest", sessionId: "s1", problemDescription: "p", round: 1, requestedAgents: null, issues: null }, "Request", ctx);
    if (!out.ok) throw new Error(out.error);
    const decoded = decodeMessage(out.stanzas[0] as (typeof out.stanzas)[number]);
    expect(decoded.payload?.messageType).toBe("http://purl.org/stuff/mfr/ModelContributionRequest");
    const json = JSON.parse(decoded.payload?.content ?? "{}") as Record<string, unknown>;
    expect(json.messageType).toBe("http://purl.org/stuff/mfr/ModelContributionRequest");
    expect(json.requestedContributions).toEqual([
      "http://purl.org/stuff/mfr/EntityDiscovery",
      "http://purl.org/stuff/mfr/ConstraintIdentification",
      "http://purl.org/stuff/mfr/ActionDefinition",
      "http://purl.org/stuff/mfr/GoalIdentification",
    ]);
    expect(json.timestamp).toBe("2026-01-01T00:00:00.000Z");
    expect(json).not.toHaveProperty("requestedAgents");
  });
});
