import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { xml } from "@xmpp/client";
import { feedParserInWholeTexts, TextFeed } from "../../src/xmpp/text-feed.js";

type Element = ReturnType<typeof xml>;

/** A stream as the server sends it: a header, then message stanzas with long texts (some non-ASCII). */
const streamArb = fc
  .array(fc.tuple(fc.string({ unit: fc.constantFrom("a", "é", "€", "😀", "&", "<", ">", "\"", "\n", " ") , maxLength: 3000 }), fc.string({ maxLength: 20 })), { minLength: 1, maxLength: 6 })
  .map((bodies) => {
    const header = "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>";
    const stanzas = bodies.map(([text, attr]) => xml("message", { from: `room@muc/${attr}`, type: "groupchat" }, xml("body", {}, text), xml("payload", { xmlns: "urn:x" }, text.repeat(3))));
    return { header, stanzas };
  });

/** Byte offsets at which the socket delivers the stream. */
const cutsArb = fc.array(fc.nat(), { maxLength: 40 });

async function parsed(chunks: Buffer[], hook: boolean): Promise<string[]> {
  const { Parser } = (await import("@xmpp/xml")) as unknown as { Parser: new () => { write(s: string): void; on(e: string, f: (el: Element) => void): void } };
  const parser = new Parser();
  const out: string[] = [];
  parser.on("element", (el) => out.push(el.toString()));
  const connection = { parser, _onData: (data: Buffer) => parser.write(data.toString("utf8")) };
  if (hook) feedParserInWholeTexts(connection);
  for (const chunk of chunks) connection._onData(chunk);
  return out;
}

function cut(bytes: Buffer, offsets: number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, p));
    from = p;
  }
  return chunks;
}

describe("feeding the XML parser whole texts", () => {
  it("yields the same stanzas as one write of the whole stream, however the socket cuts it (even inside a UTF-8 character)", async () => {
    await fc.assert(
      fc.asyncProperty(streamArb, cutsArb, async ({ header, stanzas }, offsets) => {
        const bytes = Buffer.from(header + stanzas.map((s) => s.toString()).join("\n"), "utf8");
        const expected = stanzas.map((s) => s.toString());
        expect(await parsed([bytes], false)).toEqual(expected);
        expect(await parsed(cut(bytes, offsets), true)).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it("holds back a text no `<` ends yet, and a tag not closed yet", () => {
    const written: string[] = [];
    const feed = new TextFeed((t) => written.push(t));
    feed.push("<message><body>");
    feed.push("a long text, still going");
    expect(written).toEqual(["<message><body>"]);
    feed.push(" and ending</body></mess");
    expect(written.join("")).toBe("<message><body>a long text, still going and ending</body>");
    feed.push("age>");
    expect(written.join("")).toBe("<message><body>a long text, still going and ending</body></message>");
  });

  it("passes a stanza on whole when a chunk ends right after it (nothing complete is ever held)", () => {
    const written: string[] = [];
    const feed = new TextFeed((t) => written.push(t));
    feed.push("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>");
    expect(written.join("")).toBe("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>");
  });
});
