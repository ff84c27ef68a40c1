/**
 * unescapeXml reads an attribute value as XML means it: the five predefined entities and
 * character references, nothing else (a name Object.prototype answers to is no entity).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unescapeXml } from "../../src/xmpp/raw-stanza.js";

const PREDEFINED: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'" };

describe("unescapeXml", () => {
  it("gives back any text that escaping made, and leaves unknown entities as they are", () => {
    const unknown = fc.constantFrom("&constructor;", "&valueof;", "&tostring;", "&nbsp;", "&proto;");
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), unknown)), (pieces) => {
        const escaped = pieces.map((p) => (p.startsWith("&") && p.endsWith(";") && !(p in PREDEFINED) ? p : p.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;")));
        expect(unescapeXml(escaped.join(""))).toBe(pieces.join(""));
      }),
      { numRuns: 300 },
    );
  });

  it("reads character references, decimal and hexadecimal", () => {
    expect(unescapeXml("&#65;&#x42;&#x1F600;")).toBe("AB\u{1F600}");
    expect(unescapeXml("&#x110000;")).toBe("&#x110000;");
  });
});
