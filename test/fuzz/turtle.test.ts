/**
 * A contribution is whatever text an agent sent: parseContribution reads it into quads or
 * refuses it with a ParseError that a person can act on, and never throws.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_TURTLE_NESTING } from "../../src/rdf/nesting.js";
import { parseContribution, type ParseOutcome } from "../../src/rdf/parse.js";
import { BASE_IRI, fixture, graphOf } from "../rdf/helpers.js";

const VALID = fixture("valid-complete.ttl");
const MAX_TRIPLES = 1000;
const options = { baseIri: BASE_IRI, graphIri: graphOf("fuzz"), maxTriples: MAX_TRIPLES };

function lineCount(text: string): number {
  return text.split(/\r\n|\r|\n/).length;
}

/** The contract of the check, whatever went in. */
function expectOutcome(outcome: ParseOutcome, text: string): void {
  if (outcome.ok) {
    expect(outcome.tripleCount).toBe(outcome.quads.length);
    expect(outcome.tripleCount).toBeGreaterThan(0);
    expect(outcome.tripleCount).toBeLessThanOrEqual(MAX_TRIPLES);
    for (const quad of outcome.quads) expect(quad.graph.value).toBe(options.graphIri);
    return;
  }
  const { message, line, column } = outcome.error;
  expect(typeof message).toBe("string");
  expect(message.length).toBeGreaterThan(0);
  if (line !== null) {
    expect(Number.isInteger(line) && line >= 1).toBe(true);
    expect(line).toBeLessThanOrEqual(lineCount(text));
  }
  if (column !== null) expect(Number.isInteger(column) && column >= 1).toBe(true);
}

function check(text: string): ParseOutcome {
  const outcome = parseContribution(text, options);
  expectOutcome(outcome, text);
  return outcome;
}

/** Pieces of Turtle, so that random text gets past the first token often. */
const turtleToken = fc.constantFrom(
  "@prefix mfr: <http://purl.org/stuff/mfr/> .\n",
  "@base <http://example.org/> .",
  "PREFIX : <#>",
  "<#a>",
  "<http://example.org/x>",
  "mfr:Entity",
  ":b",
  "_:b0",
  "a",
  "[",
  "]",
  "(",
  ")",
  "{",
  "}",
  "<<",
  ">>",
  "<<(",
  ")>>",
  "{|",
  "|}",
  ";",
  ",",
  ".",
  '"text"',
  '"""long\n"""',
  "'x'@en",
  '"5"^^<http://www.w3.org/2001/XMLSchema#integer>',
  "42",
  "-1.5e3",
  "true",
  "# comment\n",
  "\n",
  " ",
  '"',
  "\\u0000",
  "<",
  "^^",
  "@",
);
const turtleish = fc.array(fc.oneof(turtleToken, fc.string({ maxLength: 3 })), { maxLength: 30 }).map((parts) => parts.join(" "));

/** One edit of the valid fixture. */
const mutation = fc.oneof(
  fc.nat().map((at) => (text: string) => text.slice(0, at % (text.length + 1))),
  fc
    .tuple(fc.nat(), fc.oneof(fc.string({ minLength: 1, maxLength: 4 }), fc.string({ unit: "binary", minLength: 1, maxLength: 4 }), turtleToken))
    .map(([at, inserted]) => (text: string) => {
      const i = at % (text.length + 1);
      return `${text.slice(0, i)}${inserted}${text.slice(i)}`;
    }),
  fc.tuple(fc.nat(), fc.nat({ max: 40 })).map(([at, length]) => (text: string) => {
    const i = at % (text.length + 1);
    return `${text.slice(0, i)}${text.slice(i + length)}`;
  }),
  fc.tuple(fc.nat(), fc.nat({ max: 80 }), fc.nat()).map(([from, length, to]) => (text: string) => {
    const i = from % (text.length + 1);
    const j = to % (text.length + 1);
    return `${text.slice(0, j)}${text.slice(i, i + length)}${text.slice(j)}`;
  }),
);

/** A statement nesting `depth` blank-node property lists or collections inside each other. */
function nestedStatement(depth: number, collections: boolean): string {
  const [open, close] = collections ? ["( ", " )"] : ["[ mfr:part ", " ]"];
  return `\n<#deep> mfr:part ${open.repeat(depth)}<#leaf>${close.repeat(depth)} .\n`;
}

describe("parseContribution is total (fuzz)", () => {
  it("on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), turtleish), (text) => {
        check(text);
      }),
      { numRuns: 1500 },
    );
  });

  it("on arbitrary bytes decoded as UTF-8", () => {
    const decoder = new TextDecoder("utf-8");
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        check(decoder.decode(bytes));
      }),
      { numRuns: 1000 },
    );
  });

  it("on the valid fixture after one to four edits: cut, inserted, deleted or copied text", () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (edits) => {
        check(edits.reduce((text, edit) => edit(text), VALID));
      }),
      { numRuns: 1000 },
    );
  });

  it("on the valid fixture with a nested statement: accepted exactly up to the nesting limit", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 * MAX_TURTLE_NESTING }), fc.boolean(), fc.nat(), (depth, collections, at) => {
        // Between two statements: after any line that ends one.
        const ends = [...VALID.matchAll(/ \.\n/g)].map((m) => m.index + 3);
        const i = ends[at % ends.length] ?? VALID.length;
        const outcome = check(`${VALID.slice(0, i)}${nestedStatement(depth, collections)}${VALID.slice(i)}`);
        expect(outcome.ok).toBe(depth <= MAX_TURTLE_NESTING);
        if (!outcome.ok) expect(outcome.error.message).toMatch(/^Turtle nested too deeply at line \d+, column \d+: more than 32 levels/);
      }),
      { numRuns: 300, examples: [[10_000, false, 0], [10_000, true, 0]] },
    );
  });
});
