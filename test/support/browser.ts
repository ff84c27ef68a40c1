/**
 * Headless Chromium for the web view's tests: Debian's `chromium` package driven by
 * playwright-core (which downloads no browser of its own). A missing browser FAILS the
 * tests with the command that installs it; they never skip.
 */
import { existsSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { chromium, type Browser, type Page } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium"];

export class BrowserNotInstalledError extends Error {
  override readonly name = "BrowserNotInstalledError";
}

export function chromiumPath(): string {
  const given = process.env.CHROMIUM_PATH;
  const found = given ? [given].find(existsSync) : CANDIDATES.find(existsSync);
  if (!found) throw new BrowserNotInstalledError(`Chromium is not installed (looked for ${given ?? CANDIDATES.join(", ")}). Install it with: sudo apt-get install -y chromium`);
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}

/**
 * Waits until the session page's model graph is drawn. A wait that runs out says what the page
 * shows instead (the graph box's state, the live line, whether the page script ran) and what
 * errors it reported, so a failure in CI can be read without a rerun.
 */
export async function waitForGraphDrawn(page: Page, errors: readonly string[], timeoutMs = 10_000): Promise<void> {
  try {
    await page.waitForSelector("#model-graph[data-state=drawn]", { timeout: timeoutMs });
  } catch (err) {
    const shown = await page
      .evaluate(() => {
        const { document } = globalThis as unknown as { document: { getElementById(id: string): { textContent: string | null; dataset: Record<string, string | undefined> } | null; body: { dataset: Record<string, string | undefined> } } };
        return {
          graphState: document.getElementById("model-graph")?.dataset.state ?? "(none)",
          graphSrc: document.getElementById("model-graph")?.dataset.src ?? "(none)",
          liveState: document.getElementById("live-state")?.textContent ?? "(none)",
          scriptReady: document.body.dataset.ready ?? "(not set)",
          cytoscapeLoaded: typeof (globalThis as { cytoscape?: unknown }).cytoscape === "function",
        };
      })
      .catch((evalErr: unknown) => ({ unreadable: String(evalErr) }));
    throw new Error(`the model graph was not drawn within ${timeoutMs} ms; the page shows ${JSON.stringify(shown)}; its errors: ${JSON.stringify(errors)}`, { cause: err });
  }
}

/** Every script error and console error a page reports, for a test to assert there are none. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(`page error: ${err.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console error: ${message.text()}`);
  });
  return errors;
}

/**
 * How many different byte values a PNG's pixel data holds: a blank (one-colour) image has a
 * handful (the row filter bytes and the colour's channels); a drawn page has many.
 */
export function pngByteVariety(png: Buffer): number {
  let offset = 8;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("ascii", offset + 4, offset + 8);
    if (type === "IDAT") idat.push(png.subarray(offset + 8, offset + 8 + length));
    offset += 12 + length;
  }
  return new Set(inflateSync(Buffer.concat(idat))).size;
}
