/** What could never be sent is refused when it arrives: problems, statements; and rate limits follow identities. */
import { DataFactory } from "n3";
import { describe, expect, it } from "vitest";
import { oversizedStatement } from "../../src/analysis/statement-size.js";
import { maxStatementWireBytes } from "../../src/protocol/model-parts.js";
import { problemFits, proposalFits, protocolStanzas } from "../../src/protocol/outbound.js";
import { stanzaBytes } from "../../src/xmpp/stanza.js";
import { rateLimitKey } from "../../src/xmpp/occupant-identity.js";

const { namedNode, literal, quad } = DataFactory;
const LIMIT = 20_000;
const BASE = "http://purl.org/stuff/mfr/session/s1/";

describe("a problem too large to announce", () => {
  it("fits up to a quarter of a stanza as sent, and then the round-1 request really fits", () => {
    const fitting = "x".repeat(LIMIT / 4 - 10);
    expect(problemFits(fitting, LIMIT)).toEqual({ ok: true });
    const built = protocolStanzas(
      { type: "ModelContributionRequest", sessionId: "amber-fox-42", problemDescription: fitting, round: 1, requestedAgents: null, issues: null },
      `Model contribution request for amber-fox-42: ${fitting.slice(0, 120)}`,
      { room: "room@conference.localhost", now: 0, maxStanzaBytes: LIMIT, skolemBase: BASE },
    );
    expect(built.ok && built.stanzas.every((s) => stanzaBytes(s) <= LIMIT)).toBe(true);
  });

  it("counts escaping: 2,000 ampersands are 10,000 bytes on the wire", () => {
    expect(problemFits("&".repeat(2_000), LIMIT)).toMatchObject({ ok: false, max: LIMIT / 4 });
    const verdict = problemFits("&".repeat(2_000), LIMIT);
    expect(!verdict.ok && verdict.bytes).toBeGreaterThanOrEqual(10_000);
  });
});

describe("a statement too large for any model part", () => {
  const statement = (chars: number) => quad(namedNode(`${BASE}e1`), namedNode("http://www.w3.org/2000/01/rdf-schema#comment"), literal("y".repeat(chars)));
  const max = maxStatementWireBytes(LIMIT, "s1", "room@conference.localhost");

  it("is refused with its subject and size; one that fits passes", () => {
    expect(oversizedStatement([statement(max - 400)], max, BASE)).toBeUndefined();
    const refused = oversizedStatement([statement(100), statement(max + 10)], max, BASE);
    expect(refused?.refused).toBe(true);
    expect(refused?.message).toMatch(/^one statement \(subject <http:\/\/purl\.org\/stuff\/mfr\/session\/s1\/e1>, predicate <.*comment>\) is [\d.]+\sKiB as it would be sent, more than the [\d.]+\sKiB one part/);
  });

  it("measures escaping, not characters: 5,000 '<' are 20,000 bytes, 5,000 'y' are not", () => {
    expect(oversizedStatement([statement(5_000)], max, BASE)).toBeUndefined();
    const q = quad(namedNode(`${BASE}e1`), namedNode(`${BASE}p`), literal("<".repeat(5_000)));
    expect(oversizedStatement([q], max, BASE)).toBeDefined();
  });
});

describe("rate limits follow identities", () => {
  it("a nick lineage that left and returned shares its bucket; other identities are their own", () => {
    expect(rateLimitKey("nick:alice#3")).toBe("nick:alice");
    expect(rateLimitKey("nick:alice")).toBe("nick:alice");
    expect(rateLimitKey("occupant:AB#2")).toBe("occupant:AB#2");
    expect(rateLimitKey("jid:alice@localhost")).toBe("jid:alice@localhost");
  });
});

describe("a proposal too large to show in the SessionComplete", () => {
  it("may take half a stanza as sent; then a SessionComplete with it alone fits", () => {
    const small = { success: true, message: "m".repeat(LIMIT / 2 - 100) };
    expect(proposalFits(small, LIMIT)).toEqual({ ok: true });
    expect(proposalFits({ success: true, message: "m".repeat(LIMIT / 2) }, LIMIT)).toMatchObject({ ok: false, max: LIMIT / 2 });
    const built = protocolStanzas(
      {
        type: "SessionComplete",
        sessionId: "amber-fox-42",
        status: "solved",
        solutions: [{ agent: "alice", agentJid: undefined, receivedAt: 0, solution: small }],
        summary: "s".repeat(2000),
        reason: undefined,
      },
      "amber-fox-42 is complete",
      { room: "room@conference.localhost", now: 0, maxStanzaBytes: LIMIT, skolemBase: BASE },
    );
    expect(built.ok && built.stanzas.length === 1 && built.note === undefined).toBe(true);
  });
});
