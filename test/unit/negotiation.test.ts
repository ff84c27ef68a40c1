import { describe, expect, it } from "vitest";
import { decodeNegotiation, negotiationJson, shortMessageType } from "../../src/protocol/negotiation.js";

describe("decoding ModelNegotiation payloads", () => {
  it("accepts the message type as a full IRI, a prefixed or a short name, in the field or the attribute", () => {
    expect(shortMessageType("http://purl.org/stuff/mfr/SolutionProposal")).toBe("SolutionProposal");
    expect(shortMessageType("mfr:SolutionProposal")).toBe("SolutionProposal");
    expect(shortMessageType("SolutionProposal")).toBe("SolutionProposal");
    const body = JSON.stringify({ sessionId: "s1", solution: { success: true, message: "ok" } }, null, 4);
    const viaAttribute = decodeNegotiation(body, "http://purl.org/stuff/mfr/SolutionProposal");
    expect(viaAttribute).toMatchObject({ ok: true, message: { type: "SolutionProposal", sessionId: "s1" } });
    const viaField = decodeNegotiation(JSON.stringify({ messageType: "SolutionProposal", sessionId: "s1", solution: { success: true, message: "ok" } }), undefined);
    expect(viaField).toMatchObject({ ok: true, message: { type: "SolutionProposal" } });
  });

  it("is liberal with what real peers send, and keeps extra fields", () => {
    const decoded = decodeNegotiation(
      JSON.stringify({
        messageType: "http://purl.org/stuff/mfr/SolutionProposal",
        sessionId: "s1",
        solution: { success: "true", plan: "drive", bindings: { truck: "T1" }, satisfiesGoals: [{ goal: "g", satisfied: "false" }], confidence: 0.8 },
      }),
      undefined,
    );
    if (!decoded.ok || decoded.message.type !== "SolutionProposal") throw new Error("not decoded");
    expect(decoded.message.solution).toMatchObject({ success: true, message: "", plan: ["drive"], bindings: ["truck=T1"], satisfiesGoals: [{ goal: "g", satisfied: false }], confidence: 0.8 });
  });

  it("says exactly what is wrong with bad input, never throws", () => {
    expect(decodeNegotiation("{ not json", undefined)).toMatchObject({ ok: false, error: expect.stringContaining("not valid JSON") });
    expect(decodeNegotiation("[1,2]", undefined)).toMatchObject({ ok: false, error: "the payload must be a JSON object" });
    expect(decodeNegotiation(JSON.stringify({ messageType: "SolutionProposal", solution: { success: true } }), undefined)).toMatchObject({ ok: false, error: expect.stringContaining("sessionId") });
    expect(decodeNegotiation(JSON.stringify({ messageType: "SolutionProposal", sessionId: "s1", solution: { message: "x" } }), undefined)).toMatchObject({ ok: false, error: expect.stringContaining("solution.success") });
  });

  it("keeps an implausibly long session id or message type out of what it returns (and so out of log lines)", () => {
    const long = "x".repeat(5000);
    expect(decodeNegotiation(JSON.stringify({ messageType: "SolutionProposal", sessionId: long, solution: { success: true } }), undefined)).toMatchObject({ ok: false, sessionId: undefined });
    expect(decodeNegotiation(JSON.stringify({ messageType: long, sessionId: "s1" }), undefined)).toEqual({ ok: true, message: { type: "other", messageType: undefined, sessionId: "s1" } });
  });

  it("notes informational and unknown types without acting on them", () => {
    expect(decodeNegotiation(JSON.stringify({ messageType: "ActionSchema", sessionId: "s1", actions: [{ name: "a" }] }), undefined)).toMatchObject({ ok: true, message: { type: "ActionSchema", actionCount: 1 } });
    expect(decodeNegotiation(JSON.stringify({ messageType: "http://purl.org/stuff/mfr/ModelContributionRequest", sessionId: "s1" }), undefined)).toMatchObject({ ok: true, message: { type: "other", messageType: "ModelContributionRequest" } });
  });

  it("refuses a proposal nested too deep, naming the field, instead of failing later in the log", () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const text = `{"messageType":"SolutionProposal","sessionId":"s1","solution":{"success":true,"message":"ok","extra":${deep}}}`;
    expect(decodeNegotiation(text, undefined)).toEqual({ ok: false, error: "solution.extra[0][0][0][0]… is nested deeper than 32 levels", sessionId: undefined });
  });

  it("keeps only a bounded amount of a solution's extra fields", () => {
    const decoded = decodeNegotiation(
      JSON.stringify({
        messageType: "SolutionProposal",
        sessionId: "s1",
        solution: { success: true, message: "ok", reasoning: "r".repeat(20_000), state: { dump: "d".repeat(5000) }, confidence: 0.8, satisfiesGoals: [{ goal: "g", satisfied: true, why: "w".repeat(2000) }] },
      }),
      undefined,
    );
    if (!decoded.ok || decoded.message.type !== "SolutionProposal") throw new Error("not decoded");
    const { solution } = decoded.message;
    expect(solution.reasoning).toMatch(/^r+… \(\d+ more characters left out\)$/);
    expect(solution.state).toBe("(left out: 5011 characters of JSON)");
    expect(solution.confidence).toBe(0.8);
    expect(solution.satisfiesGoals?.[0]).toMatchObject({ goal: "g", satisfied: true, why: expect.stringMatching(/left out/) });
    expect(JSON.stringify(solution).length).toBeLessThan(2000);
  });

  it("sends back the proposer's nick in SessionComplete, whatever `agent` the solution itself claims", () => {
    const decoded = decodeNegotiation(JSON.stringify({ messageType: "SolutionProposal", sessionId: "s1", solution: { success: true, agent: "alice", receivedAt: "never" } }), undefined);
    if (!decoded.ok || decoded.message.type !== "SolutionProposal") throw new Error("not decoded");
    const json = negotiationJson(
      { type: "SessionComplete", sessionId: "s1", status: "solved", summary: "", reason: undefined, solutions: [{ agent: "mallory", agentJid: undefined, receivedAt: 0, solution: decoded.message.solution }] },
      0,
    );
    expect(json.solutions).toEqual([{ agent: "mallory", receivedAt: "1970-01-01T00:00:00.000Z", success: true, message: "" }]);
  });
});
