import { DataFactory, Parser, Writer } from "n3";
import { describe, expect, it } from "vitest";
import {
  countXmlForbiddenChars,
  escapeXmlForbiddenInJson,
  escapeXmlForbiddenInTurtle,
  hasXmlForbiddenChars,
  replaceXmlForbiddenChars,
} from "../../src/base/xml-chars.js";
import { ALL_FORBIDDEN, FORBIDDEN_CHARS, forbiddenCodePoints, isXmlChar } from "../support/forbidden-chars.js";

const { literal, namedNode, quad } = DataFactory;

function turtleOf(value: string, subject = "http://example.org/s"): string {
  const writer = new Writer({ prefixes: { ex: "http://example.org/" } });
  writer.addQuad(quad(namedNode(subject), namedNode("http://example.org/p"), literal(value)));
  let out = "";
  writer.end((_err, result: string) => (out = result));
  return out;
}

describe("the XML 1.0 character rule", () => {
  it("agrees with the spec on every UTF-16 code unit alone", () => {
    const disagreements: string[] = [];
    for (let cu = 0; cu <= 0xffff; cu++) {
      if (hasXmlForbiddenChars(`a${String.fromCharCode(cu)}b`) === isXmlChar(cu)) disagreements.push(`U+${cu.toString(16)}`);
    }
    expect(disagreements).toEqual([]);
  });

  it("accepts valid surrogate pairs, tab, LF and CR, and counts lone surrogates one by one", () => {
    for (const ok of ["\t\n\r", "\u{1F600}", "\u{10FFFF}", "\u{1FFFE}", "\uD7FF\uE000\uFFFD", "\uDBFF\uDFFF"]) expect(hasXmlForbiddenChars(ok), JSON.stringify(ok)).toBe(false);
    expect(countXmlForbiddenChars("\uDC00\uD800")).toBe(2); // low before high is no pair
    expect(countXmlForbiddenChars("\uD800\uD800\uDC00")).toBe(1); // the second high pairs with the low
    expect(countXmlForbiddenChars(ALL_FORBIDDEN)).toBe(FORBIDDEN_CHARS.length);
  });

  it.each(FORBIDDEN_CHARS)("$name is replaced with U+FFFD, and nothing else changes", ({ char }) => {
    const text = `a\t${char}\u{1F600}<&>`;
    expect(hasXmlForbiddenChars(text)).toBe(true);
    expect(countXmlForbiddenChars(text)).toBe(1);
    expect(replaceXmlForbiddenChars(text)).toBe("a\t\uFFFD\u{1F600}<&>");
  });

  it.each(FORBIDDEN_CHARS)("$name survives JSON: escaped text is XML-safe and JSON.parse gives the value back", ({ char }) => {
    const value = { message: `before${char}after\\${char}`, [`key${char}`]: [char] };
    const text = escapeXmlForbiddenInJson(JSON.stringify(value, null, 2));
    expect(forbiddenCodePoints(text)).toEqual([]);
    expect(JSON.parse(text)).toEqual(value);
  });

  it.each(FORBIDDEN_CHARS.filter((f) => !f.loneSurrogate))("$name survives Turtle: escaped text is XML-safe and n3 reads the value back", ({ char }) => {
    const value = `before${char}after\\${char}"`;
    const text = escapeXmlForbiddenInTurtle(turtleOf(value));
    expect(forbiddenCodePoints(text)).toEqual([]);
    const [read] = new Parser().parse(text);
    expect(read?.object.value).toBe(value);
  });

  it("U+FFFE and U+FFFF in an IRI survive Turtle too", () => {
    const iri = "http://example.org/s\uFFFE\uFFFF";
    const text = escapeXmlForbiddenInTurtle(turtleOf("v", iri));
    expect(forbiddenCodePoints(text)).toEqual([]);
    expect(new Parser().parse(text)[0]?.subject.value).toBe(iri);
  });

  it.each(FORBIDDEN_CHARS.filter((f) => f.loneSurrogate))("a $name in Turtle becomes U+FFFD (n3 rejects a \\u escape of a surrogate)", ({ char }) => {
    expect(() => new Parser().parse(`<http://a> <http://b> "${char === "\uD800" ? "\\uD800" : "\\uDFFF"}" .`)).toThrow();
    const text = escapeXmlForbiddenInTurtle(turtleOf(`a${char}b\u{1F600}`));
    expect(forbiddenCodePoints(text)).toEqual([]);
    expect(new Parser().parse(text)[0]?.object.value).toBe("a\uFFFDb\u{1F600}");
  });

  it("text without forbidden characters is returned as it is", () => {
    const text = 'plain "text" with \\u0041 already escaped, <tags> & \u{1F600}';
    expect(replaceXmlForbiddenChars(text)).toBe(text);
    expect(escapeXmlForbiddenInJson(text)).toBe(text);
    expect(escapeXmlForbiddenInTurtle(text)).toBe(text);
  });
});
