/**
 * The room line of a model that failed validation names its first violations in plain words
 * and whole (what is wrong with which item, and who is to fix it), whatever agents wrote into
 * them: one line, XML-safe, bounded in bytes, three findings named at most, each whole, and
 * "and N more (mfr-status <id>)" exactly when some are not named.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FINDING_MAX, FINDINGS_MAX, FINDINGS_NAMED, findingWords } from "../../src/session/findings-line.js";
import { sessionBaseIri } from "../../src/base/vocab.js";
import { protocolStanzas } from "../../src/protocol/outbound.js";
import { textWireBytes } from "../../src/xmpp/stanza.js";
import type { ValidationFinding } from "../../src/session/types.js";
import type { Broadcast } from "../../src/session/step-io.js";
import { ALL_FORBIDDEN, forbiddenCodePoints } from "../support/forbidden-chars.js";
import { Driver, finding, ok, settings, violating } from "../support/session-fixtures.js";

/** What agents may put in a finding's texts: anything, very long, or hostile on purpose. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.constantFrom(ALL_FORBIDDEN, "a".repeat(5000), "&<>\"'".repeat(200), "line\nbreak\r\n\u2028next", "\uD83D\uDE00".repeat(100), ""),
);
const iri = fc.oneof(
  text,
  fc.tuple(fc.nat({ max: 3000 }), fc.string()).map(([n, local]) => `http://example.org/${"deep/".repeat(n)}#${local}`),
  fc.string().map((local) => `${sessionBaseIri("s1")}${local}`),
);
const nick = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 40 }), fc.constant("n".repeat(1023)), fc.constant(ALL_FORBIDDEN));
const aFinding: fc.Arbitrary<ValidationFinding> = fc.record({
  severity: fc.constantFrom("Violation", "Violation", "Violation", "Warning", "Info") as fc.Arbitrary<ValidationFinding["severity"]>,
  focusNode: iri,
  message: text,
  agents: fc.array(nick, { maxLength: 4 }),
});

/** The line a failed validation of `findings` says, and the message it is the body of, by the real step. */
function failedValidation(findings: ValidationFinding[], maxFixRounds: number): { body: string; message: Broadcast } {
  const d = new Driver();
  d.start({ expectedAgents: ["alice"], settings: settings({ maxFixRounds }) });
  d.advance(1_000).contribute("s1", "alice");
  const effects = d.advance(500).answer("s1", ok(violating(findings)));
  const result = effects.find((e) => e.kind === "broadcast" && e.message.type === "ModelValidationResult");
  if (result?.kind !== "broadcast" || result.body === undefined) throw new Error("no validation result line");
  return { body: result.body, message: result.message };
}

/** The most the line takes on the wire: our own words (under 400 bytes) and the findings escaped at worst (`&` → `&amp;`). */
const LINE_MAX_WIRE_BYTES = 400 + (FINDINGS_MAX + FINDING_MAX) * 5;

describe("the room line of a failed validation", () => {
  it("is one line, XML-safe, bounded, names min(3, n) violations and counts the rest", () => {
    const findings = fc.array(aFinding, { maxLength: 8 }).filter((list) => list.some((f) => f.severity === "Violation"));
    fc.assert(
      fc.property(findings, fc.constantFrom(0, 1), (list, maxFixRounds) => {
        const { body, message } = failedValidation(list, maxFixRounds);
        const violations = list.filter((f) => f.severity === "Violation");
        const n = violations.length;
        expect(body).not.toMatch(/[\r\n\u2028\u2029]/);
        expect(forbiddenCodePoints(body)).toEqual([]);
        expect(textWireBytes(body)).toBeLessThanOrEqual(LINE_MAX_WIRE_BYTES);
        expect(body.startsWith("Session s1: the model has ")).toBe(true);
        // The first violations, in order, each whole; the rest counted.
        let from = 0;
        let named = 0;
        for (const f of violations.slice(0, FINDINGS_NAMED)) {
          const words = findingWords(f, (t) => t.split(sessionBaseIri("s1")).join(""));
          expect(words.length).toBeLessThanOrEqual(FINDING_MAX);
          const at = body.indexOf(words, from);
          if (at < 0) break;
          named++;
          from = at + words.length;
        }
        expect(named).toBeGreaterThanOrEqual(1);
        const tail = `; and ${n - named} more (mfr-status s1).`;
        expect(body.includes(tail)).toBe(n > named);
        // No doubled punctuation of our own.
        expect(body.replace(/ — [^;]*to fix/g, "")).not.toMatch(/\.\.$|\.\.\s/);
        // Still one message within the smallest stanza limit a profile may set.
        const sent = protocolStanzas(message, body, { room: "room@conference.localhost", now: 0, maxStanzaBytes: 4096, skolemBase: "urn:x:" });
        expect(sent.ok).toBe(true);
        if (sent.ok) expect(sent.stanzas).toHaveLength(1);
      }),
      { numRuns: 300 },
    );
  });

  it("says in plain words what is wrong with which item and who is to fix it; a long IRI keeps its end; a finding nobody owns is everyone's", () => {
    const goal = finding({ message: "Every Goal needs an rdfs:label, rdfs:comment or mfr:expression that says what it is", focusNode: "#delivered", agents: ["planner"] });
    expect(findingWords(goal)).toBe("the goal #delivered has no label or description — planner to fix");
    expect(findingWords(finding({ message: "Every Entity needs an mfr:entityType", focusNode: "urn:e1", agents: ["alice", "bob"] }))).toBe("the entity urn:e1 has no type — alice and bob to fix");
    const long = findingWords(finding({ message: "Every Entity needs a name: schema:name or rdfs:label as a plain or language-tagged string", focusNode: `http://example.org/${"x".repeat(200)}#truck`, agents: ["planner"] }));
    expect(long).toMatch(/^the entity …x+#truck has no name — planner to fix$/);
    expect(findingWords(finding({ message: "The model has no mfr:Entity: at least one contribution must describe an entity", focusNode: "", agents: [] }))).toBe("the model describes no entity — everyone to fix");
    // A message no table knows is said whole after the item, as a clause.
    expect(findingWords(finding({ message: "Something else is wrong.", focusNode: "#x", agents: ["a"] }))).toBe("#x: something else is wrong — a to fix");
  });
});
