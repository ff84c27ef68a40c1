/** The one escaping function: nothing that could open markup or leave an attribute survives it. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "../../src/web/html.js";

/** What the escaped text must not contain: the five characters, except as the start of an entity we wrote. */
function unescaped(text: string): boolean {
  return /[<>"']/.test(text) || /&(?!(amp|lt|gt|quot|#39);)/.test(text);
}

function unescape(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e] ?? "");
}

describe("escapeHtml", () => {
  it("leaves no < > & \" ' unescaped, and loses nothing", () => {
    const markupish = fc.string({ unit: fc.constantFrom("<", ">", "&", '"', "'", "a", ";", "#", "amp", "lt", " ", "é", "\u0000", "script") });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), markupish), (text) => {
        const escaped = escapeHtml(text);
        expect(unescaped(escaped)).toBe(false);
        expect(unescape(escaped)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("the template escapes every value, nested lists included, and keeps its own markup", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { maxLength: 4 }), (a, list) => {
        const out = html`<td title="${a}">${list.map((x) => html`<b>${x}</b>`)}</td>`.markup;
        const inner = out.slice('<td title="'.length, out.length - "</td>".length);
        const [title, rest] = [inner.slice(0, inner.indexOf('">')), inner.slice(inner.indexOf('">') + 2)];
        expect(unescaped(title)).toBe(false);
        expect(unescaped(rest.replace(/<\/?b>/g, ""))).toBe(false);
      }),
    );
    expect(html`<p>${"<script>alert(1)</script>"}</p>`.markup).toBe("<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
  });
});
