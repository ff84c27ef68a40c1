import { describe, expect, it } from "vitest";
import { Parser } from "n3";
import type { Lexer } from "n3";
import { MAX_TURTLE_NESTING, NestingTooDeep, checkNesting, lexerStreamsTokens, nestingGuardedLexer } from "../../src/rdf/nesting.js";
import { parseContribution } from "../../src/rdf/parse.js";
import type { ParseOutcome } from "../../src/rdf/parse.js";
import { BASE_IRI, MFR, fixture, graphOf } from "./helpers.js";

const opts = (agent: string, maxTriples = 1000) => ({ baseIri: BASE_IRI, graphIri: graphOf(agent), maxTriples });

function parsed(outcome: ParseOutcome) {
  if (!outcome.ok) throw new Error(`expected a parse, got: ${outcome.error.message}`);
  return outcome;
}

function failed(outcome: ParseOutcome) {
  if (outcome.ok) throw new Error("expected a parse error");
  return outcome.error;
}

const PREFIX = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n";

describe("parseContribution", () => {
  it("places every quad in the contribution's named graph", () => {
    const { quads, tripleCount } = parsed(parseContribution(fixture("valid-complete.ttl"), opts("alice")));
    expect(tripleCount).toBe(quads.length);
    expect(quads.length).toBeGreaterThan(20);
    expect(new Set(quads.map((q) => q.graph.value))).toEqual(new Set([graphOf("alice")]));
  });

  it("resolves relative IRIs against the session base, so two agents' <#alice> agree", () => {
    const text = `${PREFIX}<#alice> a mfr:Entity .`;
    const a = parsed(parseContribution(text, opts("alice"))).quads[0];
    const b = parsed(parseContribution(text, opts("bob"))).quads[0];
    expect(a?.subject.value).toBe(`${BASE_IRI}#alice`);
    expect(b?.subject.value).toBe(a?.subject.value);
  });

  it("keeps blank nodes of different contributions apart", () => {
    const text = `${PREFIX}_:b0 a mfr:Entity . [] a mfr:Goal .`;
    const a = parsed(parseContribution(text, opts("alice"))).quads;
    const b = parsed(parseContribution(text, opts("bob"))).quads;
    const ids = (quads: typeof a) => quads.map((q) => q.subject.value);
    expect(a.every((q) => q.subject.termType === "BlankNode")).toBe(true);
    for (const id of ids(a)) expect(ids(b)).not.toContain(id);
    // …while within one contribution the same label is the same node.
    const same = parsed(parseContribution(`${PREFIX}_:x a mfr:Entity . _:x mfr:entityType "T" .`, opts("alice"))).quads;
    expect(same[0]?.subject.value).toBe(same[1]?.subject.value);
  });

  it("is pure: parsing a replacement again gives a fresh, independent result", () => {
    const first = parsed(parseContribution(`${PREFIX}<#a> a mfr:Entity .`, opts("alice"))).quads;
    const second = parsed(parseContribution(`${PREFIX}<#b> a mfr:Entity .`, opts("alice"))).quads;
    expect(first.map((q) => q.subject.value)).toEqual([`${BASE_IRI}#a`]);
    expect(second.map((q) => q.subject.value)).toEqual([`${BASE_IRI}#b`]);
  });

  it("accepts what real peers send: language tags, both schema.org namespaces, literal appliesTo", () => {
    const text = `${PREFIX}@prefix schema: <http://schema.org/> . @prefix schemas: <https://schema.org/> .
<#t> a mfr:Entity ; schema:name "Truck"@en ; schemas:name "Lastwagen"@de ; schema:name "Camion"@fr--ltr .
<#c> a mfr:Constraint ; mfr:appliesTo "problem" ; mfr:contributedBy "alice" .`;
    const { quads } = parsed(parseContribution(text, opts("alice")));
    const names = quads.filter((q) => q.predicate.value.endsWith("schema.org/name"));
    expect(names.map((q) => q.predicate.value).sort()).toEqual([
      "http://schema.org/name",
      "http://schema.org/name",
      "https://schema.org/name",
    ]);
    expect(names.map((q) => (q.object.termType === "Literal" ? q.object.language : "")).sort()).toEqual(["de", "en", "fr"]);
    const appliesTo = quads.find((q) => q.predicate.value === `${MFR}appliesTo`);
    expect(appliesTo?.object.termType).toBe("Literal");
  });

  it("counts a triple stated twice once", () => {
    const { tripleCount } = parsed(parseContribution(`${PREFIX}<#a> a mfr:Entity . <#a> a mfr:Entity .`, opts("alice")));
    expect(tripleCount).toBe(1);
  });

  it("refuses a contribution over the triple limit, as a value", () => {
    const error = failed(parseContribution(fixture("valid-complete.ttl"), opts("alice", 5)));
    expect(error.message).toMatch(/more than the limit of 5/);
    expect(error.line).toBeNull();
  });
});

describe("what a contribution may not be", () => {
  it("refuses an empty, whitespace-only, comment-only or prefix-only contribution, so it cannot replace an earlier one", () => {
    for (const text of ["", "  \n\t ", "# just a comment\n", PREFIX, `${PREFIX}# nothing yet\n@base <http://example.org/> .`]) {
      const error = failed(parseContribution(text, opts("alice")));
      expect(error).toEqual({ message: "it holds no statements (empty, or only comments/prefixes)", line: null, column: null, refused: true });
    }
  });

  it("refuses nesting deeper than the limit, naming the line, before n3 builds the chain", () => {
    const deep = (open: string, close: string, depth: number) => `${PREFIX}<#a> mfr:p\n  ${`${open} mfr:p `.repeat(depth)}<#b>${` ${close}`.repeat(depth)} .`;
    expect(parseContribution(deep("[", "]", MAX_TURTLE_NESTING), opts("alice")).ok).toBe(true);
    const error = failed(parseContribution(deep("[", "]", 10_000), opts("alice")));
    expect(error).toMatchObject({ line: 3, column: 3 + 8 * MAX_TURTLE_NESTING });
    expect(error.message).toMatch(/^Turtle nested too deeply at line 3, column \d+: more than 32 levels/);
    expect(failed(parseContribution(`${PREFIX}<#a> mfr:p ${"( ".repeat(33)}1${" )".repeat(33)} .`, opts("alice"))).message).toMatch(/nested too deeply at line 2/);
    expect(failed(parseContribution(`${PREFIX}<#a> mfr:p ${"<<( <#s> <#p> ".repeat(33)}<#o>${" )>>".repeat(33)} .`, opts("alice"))).message).toMatch(/nested too deeply/);
    // N3 formulas are not Turtle: n3's own syntax error says so, whatever the depth.
    expect(failed(parseContribution(`${PREFIX}<#a> mfr:p ${"{ ".repeat(40)}`, opts("alice"))).message).toMatch(/^Turtle syntax error at line 2/);
  });

  it("applies the rule in n3's lexer, token by token as the parser reads them (not by lexing the whole text first)", () => {
    // If an n3 upgrade drops the streaming lexer, parse.ts falls back to observing tokens,
    // which is correct but lexes every contribution into one array first: this says so.
    expect(lexerStreamsTokens).toBe(true);
    let tokensBeforeRefusal = 0;
    const lexer = nestingGuardedLexer(2) as Lexer;
    const original = (lexer as unknown as { _tokenizeString: (i: string, cb: (e: Error | null, t: unknown) => void) => void })._tokenizeString;
    (lexer as unknown as { _tokenizeString: typeof original })._tokenizeString = (input, cb) => original(input, (e, t) => (tokensBeforeRefusal++, cb(e, t)));
    const text = `${PREFIX}<#a> mfr:p [ mfr:p [ mfr:p [ mfr:p <#b> ] ] ] .\n${"<#c> mfr:p <#d> .\n".repeat(1000)}`;
    expect(() => new Parser({ lexer } as ConstructorParameters<typeof Parser>[0]).parse(text)).toThrow(NestingTooDeep);
    // Refused at the third `[`: the thousand statements after it were never lexed.
    expect(tokensBeforeRefusal).toBeLessThan(30);
  });

  it("does not count brackets inside strings, IRIs or comments", () => {
    const text = `${PREFIX}# ${"[".repeat(50)}\n<#a> mfr:expression "${"(".repeat(50)}" ; mfr:p <http://example.org/${"%5B".repeat(50)}> .`;
    expect(parseContribution(text, opts("alice")).ok).toBe(true);
  });

  // Speed is for bench/, not tests: this checks a contribution of the largest size that fits
  // one stanza, with thousands of shallow blank nodes, passes the nesting check.
  it("passes a 200 KB contribution of many shallow blank nodes", () => {
    const statement = (i: number) => `<#e${i}> a mfr:Entity ; mfr:entityType "Truck" ; mfr:hasEffect [ mfr:expression "(at truck${i} depot)" ] .\n`;
    let text = PREFIX;
    for (let i = 0; text.length < 200_000; i++) text += statement(i);
    expect(checkNesting(text)).toBeUndefined();
  });
});

describe("parse errors", () => {
  it("locates an unterminated string and says how to fix it", () => {
    const error = failed(parseContribution(`${PREFIX}<#a> mfr:expression "at(truck .\n`, opts("alice")));
    expect(error).toMatchObject({ line: 2, column: 21 });
    expect(error.message).toMatch(/line 2, column 21/);
    expect(error.message).toMatch(/unescaped quote/);
  });

  it("locates an unescaped quote inside a string (a classic from LLM peers)", () => {
    const error = failed(parseContribution(`${PREFIX}\n<#a> mfr:expression "He said "hi" today" .`, opts("alice")));
    expect(error.line).toBe(3);
    expect(error.column).toBe(31); // at `hi"`, where the string should have gone on
    expect(error.message).toMatch(/\\"/);
  });

  it("locates a missing dot at the token where the parser noticed it", () => {
    const error = failed(parseContribution(`${PREFIX}<#a> a mfr:Entity\n<#b> a mfr:Entity .`, opts("alice")));
    expect(error).toMatchObject({ line: 3, column: 1 });
    expect(error.message).toMatch(/closing " \." after line 2, column 17/);
  });

  it("names an undeclared prefix", () => {
    const error = failed(parseContribution(`<#a> a schema:Thing .`, opts("alice")));
    expect(error).toMatchObject({ line: 1, column: 8 });
    expect(error.message).toMatch(/@prefix schema:/);
  });

  it("reports text that stops mid-statement", () => {
    const error = failed(parseContribution(`${PREFIX}<#a> a`, opts("alice")));
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/cut off/);
  });

  it("never throws, whatever the text", () => {
    const valid = fixture("valid-complete.ttl");
    const inputs = [
      "",
      "\u0000\u0001\uFFFF",
      "{ <a> <b> <c> }",
      "<<( <a> <b> <c> )>> <p> <o> .",
      "[".repeat(10_000),
      "(".repeat(10_000),
      `${PREFIX}<#a> mfr:p ${'"'.repeat(7)} .`,
      "@base <relative> . <#a> <#b> <#c> .",
    ];
    for (let cut = 0; cut < valid.length; cut += 7) inputs.push(valid.slice(0, cut));
    for (let i = 0; i < 200; i++) {
      inputs.push(Array.from({ length: 40 }, () => String.fromCharCode(32 + Math.floor(Math.random() * 95))).join(""));
    }
    for (const input of inputs) {
      const outcome = parseContribution(input, opts("alice"));
      if (!outcome.ok) expect(outcome.error.message.length).toBeGreaterThan(0);
    }
  });
});
