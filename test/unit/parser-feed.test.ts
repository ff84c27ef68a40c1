import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { xml } from "@xmpp/client";
import { feedParserWholeStanzas } from "../../src/xmpp/parser-feed.js";
import { receivedBytesOf } from "../../src/xmpp/received-size.js";

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

async function parsed(chunks: Buffer[], hook: boolean, drop?: (stanza: string) => boolean): Promise<string[]> {
  const { Parser } = (await import("@xmpp/xml")) as unknown as { Parser: new () => { write(s: string): void; on(e: string, f: (el: Element) => void): void } };
  const parser = new Parser();
  const out: string[] = [];
  parser.on("element", (el) => out.push(el.toString()));
  const connection = { parser, _onData: (data: Buffer) => parser.write(data.toString("utf8")) };
  if (hook) feedParserWholeStanzas(connection, { drop });
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

describe("feeding the XML parser whole stanzas", () => {
  it("gives each parsed stanza the UTF-8 size of the text it came in, before any other listener sees it", async () => {
    await fc.assert(
      fc.asyncProperty(streamArb, cutsArb, async ({ header, stanzas }, offsets) => {
        const texts = stanzas.map((s) => s.toString());
        const bytes = Buffer.from(header + texts.join("\n"), "utf8");
        const { Parser } = (await import("@xmpp/xml")) as unknown as { Parser: new () => { write(s: string): void; on(e: string, f: (el: Element) => void): void } };
        const parser = new Parser();
        const sizes: Array<number | undefined> = [];
        parser.on("element", (el) => sizes.push(receivedBytesOf(el)));
        const connection = { parser, _onData: (data: Buffer) => parser.write(data.toString("utf8")) };
        feedParserWholeStanzas(connection);
        for (const chunk of cut(bytes, offsets)) connection._onData(chunk);
        expect(sizes).toEqual(texts.map((text) => Buffer.byteLength(text, "utf8")));
      }),
      { numRuns: 100 },
    );
  });

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

  it("drops unparsed exactly the stanzas the owner declines, and parses the rest as before", async () => {
    await fc.assert(
      fc.asyncProperty(streamArb, cutsArb, fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), async ({ header, stanzas }, offsets, declined) => {
        const texts = stanzas.map((s) => s.toString());
        const bytes = Buffer.from(header + texts.join(" "), "utf8");
        const seen: string[] = [];
        const drop = (stanza: string): boolean => {
          seen.push(stanza);
          return declined[seen.length - 1] === true;
        };
        expect(await parsed(cut(bytes, offsets), true, drop)).toEqual(texts.filter((_, i) => declined[i] !== true));
        // The owner saw each stanza once, as the server wrote it.
        expect(seen).toEqual(texts);
      }),
      { numRuns: 100 },
    );
  });
});
