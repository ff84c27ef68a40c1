/**
 * The web view's live refresh (web/view.js `morph`) in headless Chromium: whatever two renderings
 * of a list it is given, the page ends up showing exactly the second, and a row that is in both
 * keeps its link element, so a click pressed before a refresh and released after it still lands.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser.js";
import { REPO_ROOT } from "../support/cli.js";

interface Row {
  /** A session's row (keyed by data-session), or a plain row ("No sessions yet."). */
  key: string | null;
  status: string;
  /** A cell written as th instead of td: a child whose element name changes. */
  header: boolean;
}

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.setContent("<!doctype html><html><body><main></main></body></html>");
  await page.addScriptTag({ content: readFileSync(join(REPO_ROOT, "web", "view.js"), "utf8") });
});
afterAll(async () => {
  await browser?.close();
});

const rowHtml = (r: Row) =>
  r.key === null
    ? `<tr><td colspan="2">${r.status}</td></tr>`
    : `<tr data-session="${r.key}" data-status="${r.status}"><td><a href="/sessions/${r.key}">${r.key}</a></td><${r.header ? "th" : "td"}>${r.status}</${r.header ? "th" : "td"}></tr>`;
const listHtml = (rows: Row[]) => rows.map(rowHtml).join("\n");

const rows = fc.uniqueArray(
  fc.record({
    key: fc.option(fc.constantFrom("s1", "s2", "s3", "s4", "s5", "s6"), { nil: null, freq: 4 }),
    status: fc.constantFrom("open", "solved", "failed", "No sessions yet."),
    header: fc.boolean(),
  }),
  // Keys are unique in a rendering, as session ids are; plain rows may repeat.
  { maxLength: 8, selector: (r) => r.key ?? Math.random() },
);

interface InPage {
  document: { body: { innerHTML: string }; getElementById(id: string): unknown };
  DOMParser: new () => { parseFromString(html: string, type: string): { getElementById(id: string): unknown } };
  mfrView: { morph(old: unknown, fresh: unknown): void };
}

describe("the live page's refresh (morph)", () => {
  it("ends showing exactly the new rendering, and a row in both keeps its link element", async () => {
    await fc.assert(
      fc.asyncProperty(rows, rows, async (before, after) => {
        const stays = before.filter((r) => r.key !== null && after.some((a) => a.key === r.key)).map((r) => r.key as string);
        const outcome = await page.evaluate(
          ([oldHtml, freshHtml, kept]) => {
            const w = globalThis as unknown as InPage & { document: { querySelector(s: string): { outerHTML: string; querySelectorAll(s: string): Iterable<{ dataset: { session: string }; querySelector(s: string): { mark?: string } | null }> } } };
            w.document.body.innerHTML = `<table><tbody id="sessions">${oldHtml}</tbody></table>`;
            const old = w.document.querySelector("#sessions");
            for (const tr of old.querySelectorAll("tr[data-session]")) {
              const link = tr.querySelector("a");
              if (link) link.mark = tr.dataset.session;
            }
            const fresh = new w.DOMParser().parseFromString(`<table><tbody id="sessions">${freshHtml}</tbody></table>`, "text/html").getElementById("sessions") as { outerHTML: string };
            const expected = fresh.outerHTML;
            w.mfrView.morph(old, fresh);
            const now = w.document.querySelector("#sessions");
            const links = [...now.querySelectorAll("tr[data-session]")].filter((tr) => kept.includes(tr.dataset.session));
            return { html: now.outerHTML, expected, linksKept: links.filter((tr) => tr.querySelector("a")?.mark === tr.dataset.session).length };
          },
          [listHtml(before), listHtml(after), stays] as const,
        );
        expect(outcome.html).toBe(outcome.expected);
        expect(outcome.linksKept).toBe(stays.length);
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});
