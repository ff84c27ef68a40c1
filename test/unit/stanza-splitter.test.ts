import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { xml } from "@xmpp/client";
import { StanzaSplitter } from "../../src/xmpp/stanza-splitter.js";
import { startTag } from "../../src/xmpp/raw-stanza.js";

/** Characters that make a splitter's life hard: markup characters wherever XML allows them. */
const tricky = (exclude: string) =>
  fc.string({ unit: fc.constantFrom(..."a<>/'\"=!?-[]& é😀\n".split("").filter((c) => !exclude.includes(c))), maxLength: 12 });

const attribute = fc.tuple(fc.constantFrom("id", "to", "from", "x:y"), fc.boolean(), tricky("<&")).map(([name, single, value]) => {
  const quote = single ? "'" : '"';
  return ` ${name}=${quote}${value.split(quote).join("")}${quote}`;
});

/** Element content: text, comments, CDATA sections and processing instructions holding `<` and `>`, nested elements. */
const element: fc.Memo<string> = fc.memo((n) => {
  const name = fc.constantFrom("message", "body", "stream:features", "x", "a-b");
  const attrs = fc.array(attribute, { maxLength: 3 }).map((a) => [...new Set(a)].join(""));
  const text = tricky("<&").map((t) => t.replace(/\]\]>/g, ""));
  const comment = tricky("").map((t) => `<!--${t.replace(/-/g, "")}-->`);
  const cdata = tricky("").map((t) => `<![CDATA[${t.replace(/\]/g, "")}]]>`);
  const pi = tricky("").map((t) => `<?pi ${t.replace(/\?/g, "")}?>`);
  const child = n <= 1 ? fc.oneof(text, comment, cdata, pi) : fc.oneof(text, comment, cdata, pi, element(n - 1));
  return fc.oneof(
    fc.tuple(name, attrs, fc.constantFrom("/>", " />")).map(([tag, a, close]) => `<${tag}${a}${close}`),
    fc.tuple(name, attrs, fc.array(child, { maxLength: 4 })).map(([tag, a, kids]) => `<${tag}${a}>${kids.join("")}</${tag}>`),
  );
});

const HEADER = "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' id='a>b' version='1.0'>";

const streamArb = fc.record({
  stanzas: fc.array(element(3), { maxLength: 6 }),
  gaps: fc.array(fc.constantFrom("", " ", "\n", "\r\n\t"), { minLength: 7, maxLength: 7 }),
  closed: fc.boolean(),
});

function split(stream: string, cuts: number[]): { stanzas: string[]; all: string[] } {
  const stanzas: string[] = [];
  const all: string[] = [];
  const splitter = new StanzaSplitter({
    passThrough: (t) => all.push(t),
    stanza: (t) => {
      stanzas.push(t);
      all.push(t);
    },
  });
  const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const p of [...points, stream.length]) {
    splitter.push(stream.slice(from, p));
    from = p;
  }
  return { stanzas, all };
}

describe("splitting a stream into stanzas", () => {
  it("hands on each top-level element whole and everything else unchanged, in order, however the text is cut", () => {
    fc.assert(
      fc.property(streamArb, fc.array(fc.nat(), { maxLength: 30 }), ({ stanzas, gaps, closed }, cuts) => {
        const stream = HEADER + stanzas.map((s, i) => (gaps[i] ?? "") + s).join("") + (gaps[6] ?? "") + (closed ? "</stream:stream>" : "");
        const out = split(stream, cuts);
        expect(out.stanzas).toEqual(stanzas);
        expect(out.all.join("")).toBe(stream);
      }),
      { numRuns: 500 },
    );
  });

  it("hands a stanza on as soon as its last `>` arrives, not with the next push", () => {
    const got: string[] = [];
    const splitter = new StanzaSplitter({ passThrough: () => undefined, stanza: (t) => got.push(t) });
    splitter.push(`${HEADER}<message to='r'><body>a lon`);
    splitter.push("g text</body></mess");
    expect(got).toEqual([]);
    splitter.push("age>");
    expect(got).toEqual(["<message to='r'><body>a long text</body></message>"]);
    splitter.push("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>");
    expect(got[1]).toBe("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>");
  });
});

describe("reading a stanza's start tag", () => {
  it("gives the attributes the serialiser wrote, whatever characters they hold", () => {
    const value = fc.string({ unit: fc.constantFrom(..."ab'\"<>&/= é😀\u0001\n".split("")), maxLength: 20 });
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("from", "to", "type", "id", "xml:lang"), value), (attrs) => {
        const text = xml("message", attrs, xml("body", {}, "x")).toString();
        expect(startTag(text)).toEqual({ name: "message", attrs });
      }),
    );
  });

  it("reads double quotes, character references and an empty element; refuses what is no tag", () => {
    expect(startTag(`<presence from="r@m/a&#x27;b&#39;c" type = 'unavailable'/>`)).toEqual({ name: "presence", attrs: { from: "r@m/a'b'c", type: "unavailable" } });
    expect(startTag("<message from='a' broken>")).toBeNull();
    expect(startTag("text")).toBeNull();
  });
});
