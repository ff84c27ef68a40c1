/**
 * rdf/syntax-error.ts: whatever n3 throws becomes a ParseError an agent author can act on:
 * the line and column (1-based) of the problem, a hint at the usual cause, and an excerpt of
 * the line (at most 60 characters, … where cut). It never throws: an error it cannot place
 * is said as it is, with line and column null.
 */
import fc from "fast-check";
import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import { describeSyntaxError } from "../../src/rdf/syntax-error.js";

/** What describeSyntaxError makes of n3's own error for this Turtle. */
function described(text: string) {
  try {
    new Parser({ baseIRI: "https://mfr.example/s/" }).parse(text);
  } catch (error) {
    return describeSyntaxError(error, text);
  }
  throw new Error(`parsed: ${text}`);
}

describe("n3's errors, placed and explained", () => {
  it("an undefined prefix: where it is used, and how to declare it", () => {
    const text = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#a> a mfr:Entity .\n<#b> a ex:Thing .";
    expect(described(text)).toEqual({
      message: 'Turtle syntax error at line 3, column 8: Undefined prefix "ex:". Declare the prefix before using it, e.g. @prefix ex: <…> . Near: <#b> a ex:Thing .',
      line: 3,
      column: 8,
    });
  });

  it("a missing dot: said to be missing after the previous token", () => {
    const e = described("<#a> <#p> <#b>\n<#c> <#p> <#d> .");
    expect(e).toMatchObject({ line: 2, column: 6 });
    expect(e.message).toContain('A statement probably lacks its closing " ." after line 2, column 4');
  });

  it("an unclosed string: located at its quote, with how to write quotes", () => {
    const e = described('<#a> <#p> "unclosed .\n<#c> <#p> <#d> .');
    expect(e).toMatchObject({ line: 1, column: 11 });
    expect(e.message).toContain("A string is not closed or contains an unescaped quote");
  });

  it("text that stops mid-statement is asked whether it was cut off", () => {
    for (const text of ["<#a> <#p> ", "<#a> <#p> <#b> ; <#q> ["]) expect(described(text).message).toContain("is it cut off?");
  });

  it("a lexer error with no token is placed by the text it quotes, after the last good token", () => {
    expect(described("<#a> <#p> <#b> .\n<#a> <#p> @@@ .")).toMatchObject({ line: 2, column: 11 });
  });

  it("the column is where an undefined prefix is used, on any line, after any indentation (property)", () => {
    fc.assert(
      fc.property(fc.nat(6), fc.nat(20), fc.constantFrom("\n", "\r\n"), fc.stringMatching(/^[a-z]{1,6}$/), (before, indent, eol, prefix) => {
        fc.pre(prefix !== "a");
        const lines = [...Array.from({ length: before }, (_, i) => `<#s${i}> <#p> <#o${i}> .`), `${" ".repeat(indent)}<#x> a ${prefix}:Thing .`];
        const e = described(lines.join(eol));
        expect(e.line).toBe(before + 1);
        expect(e.column).toBe(indent + 8);
        expect(e.message).toContain(`at line ${before + 1}, column ${indent + 8}: Undefined prefix "${prefix}:"`);
        expect(e.message).toContain(`@prefix ${prefix}: <…> .`);
      }),
      { numRuns: 60 },
    );
  });

  it("the excerpt of a long line is at most 60 characters, with … where cut (property)", () => {
    fc.assert(
      fc.property(fc.nat(120), fc.nat(120), (left, right) => {
        const text = `<#a> <#p> "${"w".repeat(left)}" .${" ".repeat(2)}<#a> <#p> ex:bad .${" <#a> <#p> <#b> .".repeat(Math.ceil(right / 17))}`;
        const near = described(text).message.split(" Near: ")[1] ?? "";
        expect(near.replace(/…/g, "").length).toBeLessThanOrEqual(60);
        expect(near).toContain("ex:bad");
        if (text.trim().length <= 60) expect(near).toBe(text.trim());
        else expect(near).toContain("…");
      }),
      { numRuns: 60 },
    );
  });
});

describe("never throws; what it cannot place it says as it is", () => {
  it("a thrown non-Error, or an Error without a line, has line and column null", () => {
    expect(describeSyntaxError("boom", "x")).toEqual({ message: "The Turtle could not be parsed: boom", line: null, column: null });
    expect(describeSyntaxError(new RangeError("Maximum call stack size exceeded"), "[[[[")).toEqual({
      message: "The Turtle could not be parsed: Maximum call stack size exceeded",
      line: null,
      column: null,
    });
  });

  it("a line only in the message is still read; a line past the text gives no excerpt", () => {
    expect(describeSyntaxError(new Error("Something odd on line 2."), "a\nbb\n")).toEqual({ message: "Turtle syntax error at line 2: Something odd. Near: bb", line: 2, column: null });
    expect(describeSyntaxError(new Error("Odd on line 9"), "a")).toEqual({ message: "Turtle syntax error at line 9: Odd.", line: 9, column: null });
  });

  it("returns a non-empty message for anything thrown, with any context, on any text (property)", () => {
    const context = fc.record(
      {
        line: fc.oneof(fc.integer({ min: -3, max: 50 }), fc.constant(undefined)),
        token: fc.option(fc.record({ type: fc.string(), line: fc.integer({ min: -3, max: 50 }), start: fc.integer({ min: -5, max: 500 }), end: fc.integer({ min: -5, max: 500 }) }, { requiredKeys: [] }), { nil: undefined }),
        previousToken: fc.option(fc.record({ type: fc.string(), line: fc.integer(), end: fc.integer() }, { requiredKeys: [] }), { nil: undefined }),
      },
      { requiredKeys: [] },
    );
    const thrown = fc.oneof(
      fc.anything(),
      fc.tuple(fc.string(), fc.option(context, { nil: undefined })).map(([message, ctx]) => Object.assign(new Error(message), ctx === undefined ? {} : { context: ctx })),
      fc.tuple(fc.string(), fc.nat(40)).map(([m, n]) => new Error(`Unexpected "${m}" on line ${n}.`)),
    );
    fc.assert(
      fc.property(thrown, fc.string({ maxLength: 300 }), (error, text) => {
        const e = describeSyntaxError(error, text);
        expect(e.message.length).toBeGreaterThan(0);
        expect(e.line === null || Number.isInteger(e.line)).toBe(true);
        if (e.line === null) expect(e.column).toBeNull();
      }),
      // An object whose toString is not a function makes String() itself throw (found by this property).
      { numRuns: 300, examples: [[{ toString: "" }, ""]] },
    );
  });
});
