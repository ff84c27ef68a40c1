/**
 * The web view in a real browser (headless Debian Chromium) over a real coordinator and a
 * real Prosody: a session appears live, its page follows it to the end without a reload,
 * the graph has one node per model item with the finding on its node, the timeline has
 * every logged event, untrusted text stays text, and no script error reaches the console.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExampleAgent } from "../../examples/agents/example-agent.js";
import { MODELER_SCRIPT, PLANNER_SCRIPT, SAMPLE_PROBLEM } from "../../examples/agents/sample-problem.js";
import { MFR, Mode } from "../../src/base/vocab.js";
import { collectPageErrors, launchBrowser, pngByteVariety, waitForGraphDrawn } from "../support/browser.js";
import { REPO_ROOT, runCli } from "../support/cli.js";
import { CoordinatorProcess } from "../support/coordinator-process.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { onPostgres } from "../support/test-store.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, PLANNER_TURTLE_BROKEN, ScriptedAgent, type AgentScript } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();

/** An agent-supplied literal that would run if it were ever written into a page as markup. */
const HOSTILE_NAME = `<script>window.pwned = true</script><img src=x onerror="window.pwned = true">crate`;
const MODELER_WITH_HOSTILE_NAME = `${MODELER_TURTLE}<#crate> a mfr:Entity ; mfr:entityType "Box" ; schema:name ${JSON.stringify(HOSTILE_NAME)} .\n`;
/**
 * truck, depot, warehouse, crate, drive (modeler); oneTruck, delivered (planner); and the
 * types the entities name (Vehicle, Location, Box), drawn and listed as items of their own.
 */
const MODEL_ITEMS = 10;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const negotiation = (type: string, sessionId?: string) => (m: ReceivedMessage) =>
  m.payload?.mode === Mode.ModelNegotiation && m.payload.messageType === `${MFR}${type}` && (sessionId === undefined || (m.payload.json as { sessionId?: string }).sessionId === sessionId);

async function coordinatorWithWebView(env: Record<string, string> = {}): Promise<{ room: string; coordinator: CoordinatorProcess; url: string }> {
  const room = uniqueRoom(server());
  const coordinator = await CoordinatorProcess.start({ server: server(), room, mfrConfig: "mfr:contributionTimeout 60000 ; mfr:reasoningTimeout 20000 ; mfr:httpPort 0 ;", env });
  afterThis(() => coordinator.kill());
  const listening = await coordinator.waitForLog((l) => l.msg === "web view listening");
  await coordinator.joined(room);
  return { room, coordinator, url: String(listening.url) };
}

async function agent(room: string, nick: string, script: AgentScript): Promise<ScriptedAgent> {
  const a = await ScriptedAgent.join(server(), room, nick, script);
  afterThis(() => a.stop());
  await a.announce();
  return a;
}

async function person(room: string): Promise<TestPeer> {
  const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
  afterThis(() => human.stop());
  await human.joinRoom(room, "alice");
  return human;
}

/** Where the screenshot goes: MFR_SCREENSHOT_DIR (e.g. `docs`, to refresh the picture in the README and docs/web-view.md), or the temp directory. */
function screenshotPath(): string {
  const dir = process.env.MFR_SCREENSHOT_DIR ? resolve(REPO_ROOT, process.env.MFR_SCREENSHOT_DIR) : join(tmpdir(), "mfr-web-view");
  mkdirSync(dir, { recursive: true });
  return join(dir, "session-page.png");
}

async function graphNodes(page: Page): Promise<Array<{ id: string; label: string; kind: string; degree: number; classes: string[] }>> {
  return page.evaluate(() => {
    const view = (globalThis as unknown as InPage).mfrView;
    return (view.cy?.nodes() ?? []).map((n) => ({ id: n.id(), label: n.data("label"), kind: n.data("kind"), degree: n.degree(false), classes: n.classes() }));
  });
}

/** The drawing's zoom and the size of its box, and the edges by kind, as the page's cytoscape has them. */
async function graphView(page: Page): Promise<{ zoom: number; fontSize: number; width: number; height: number; edges: Record<string, number> }> {
  return page.evaluate(() => {
    const cy = (globalThis as unknown as InPage).mfrView.cy;
    if (!cy) throw new Error("no graph drawn");
    const edges: Record<string, number> = {};
    for (const e of cy.edges()) edges[e.data("kind")] = (edges[e.data("kind")] ?? 0) + 1;
    return { zoom: cy.zoom(), fontSize: parseFloat(cy.nodes()[0]?.style("font-size") ?? "0"), width: cy.width(), height: cy.height(), edges };
  });
}

/** A mark the test leaves on an element, to see whether the page's refreshes kept it. */
interface LinkMarks {
  document: { querySelector(selector: string): { mark?: string } | null };
}

/** What the tests read inside the page (the compiler here knows Node, not the DOM). */
interface InPage {
  document: {
    getElementById(id: string): { textContent: string | null; getBoundingClientRect(): { x: number; y: number; width: number; height: number } } | null;
    querySelectorAll(selector: string): { length: number };
  };
  mfrView: {
    cy: {
      nodes(): Array<{ id(): string; data(k: string): string; degree(loops: boolean): number; classes(): string[]; style(k: string): string }>;
      edges(): Array<{ data(k: string): string }>;
      zoom(): number;
      width(): number;
      height(): number;
    } | null;
  };
  notReloaded?: boolean;
  pwned?: boolean;
}

describe("the web view in a browser", () => {
  it("follows a session live: sessions page, timeline, graph with its finding, proposals, downloads", async () => {
    const { room, url, coordinator } = await coordinatorWithWebView();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const human = await person(room);
    await agent(room, "modeler", { contribution: (round) => (round === 1 ? MODELER_WITH_HOSTILE_NAME : undefined), solution: () => GOOD_SOLUTION });
    // The planner's fix is sent by the test, once the browser watches the session.
    const planner = await agent(room, "planner", { contribution: (round) => (round === 1 ? PLANNER_TURTLE_BROKEN : undefined), solution: () => GOOD_SOLUTION });
    await new Promise((r) => setTimeout(r, 200)); // the announcements reach the coordinator first

    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    afterThis(() => page.close());
    const errors = collectPageErrors(page);
    await page.goto(new URL("/sessions", url).href);
    await page.waitForSelector("body[data-ready]");
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.getElementById("live-state")?.textContent === "live");

    await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot to the warehouse with one truck" });
    const request = await human.waitForMessage(negotiation("ModelContributionRequest"));
    const sessionId = String((request.payload?.json as { sessionId: string }).sessionId);
    // The session appears on the open sessions page without a reload.
    await page.waitForSelector(`tr[data-session="${sessionId}"]`, { timeout: 10_000 });

    await human.waitForMessage((m) => negotiation("ModelContributionRequest", sessionId)(m) && (m.payload?.json as { round: number }).round === 2, 15_000);
    await page.click(`tr[data-session="${sessionId}"] a`);
    await waitForGraphDrawn(page, errors);

    // One node per model item, the same items as the table; the violation on its node.
    const nodes = await graphNodes(page);
    expect(nodes).toHaveLength(MODEL_ITEMS);
    expect(await page.locator("table.items tbody tr[data-item]").count()).toBe(MODEL_ITEMS);
    const focus = await page.locator("table.findings tr.sev-Violation").first().getAttribute("data-focus");
    expect(focus).toMatch(/#delivered$/);
    expect(nodes.find((n) => n.id === focus)?.classes).toContain("violation");
    expect(nodes.filter((n) => n.classes.includes("violation"))).toHaveLength(1);

    // Untrusted text is text: shown as written, never run.
    expect(await page.locator(`table.items tr[data-item$="#crate"] td`).first().textContent()).toBe(HOSTILE_NAME);
    expect(nodes.find((n) => n.id.endsWith("#crate"))?.label).toBe(HOSTILE_NAME);
    expect(await page.locator("main script, main img").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as InPage).pwned)).toBeUndefined();

    expect(pngByteVariety(await page.screenshot({ fullPage: true }))).toBeGreaterThan(40);
    expect(pngByteVariety(await page.locator("#model-graph").screenshot())).toBeGreaterThan(10);

    // A graph the server could not give says so; the page tries again at the session's next step.
    await page.route("**/graph.json", (route) => route.fulfill({ status: 503, body: "busy" }), { times: 1 });
    await page.reload();
    await page.waitForSelector("#model-graph[data-state=failed]", { state: "attached", timeout: 10_000 });
    expect(await graphNodes(page)).toHaveLength(0);
    await page.evaluate(() => ((globalThis as unknown as InPage).notReloaded = true));
    // A mark on the timeline's first row: the refreshes to come must keep the element (a click
    // pressed before a refresh and released after it still lands; a selection stays).
    await page.evaluate(() => {
      const row = (globalThis as unknown as LinkMarks).document.querySelector('#timeline tr[data-index="0"]');
      if (row) row.mark = "first";
    });

    // The fix arrives; the page follows the session to its end by itself, the graph drawn again.
    await planner.contribute(sessionId, PLANNER_TURTLE);
    await page.waitForSelector('tr[data-kind="complete"]', { timeout: 20_000 });
    await page.waitForFunction(() => {
      const { document } = globalThis as unknown as InPage;
      return document.querySelectorAll("#model-graph[data-state=drawn]").length === 1 && document.querySelectorAll("table.findings tr.sev-Violation").length === 0;
    });
    expect(await page.evaluate(() => (globalThis as unknown as InPage).notReloaded)).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as LinkMarks).document.querySelector('#timeline tr[data-index="0"]')?.mark)).toBe("first");
    expect(await page.locator("#session-status").textContent()).toBe("solved");
    expect((await graphNodes(page)).filter((n) => n.classes.includes("violation"))).toHaveLength(0);

    // Every kind of event, and every logged input, is on the timeline.
    const kinds = await page.locator("table.timeline tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-kind")));
    for (const kind of ["request", "contribution-request", "contribution", "validation-started", "validation", "fix-round", "solution-request", "proposal", "complete"]) expect(kinds).toContain(kind);
    expect(kinds.filter((k) => k === "contribution"), kinds.join(",")).toHaveLength(3);
    expect(kinds.filter((k) => k === "validation")).toHaveLength(2);
    expect(kinds.filter((k) => k === "proposal")).toHaveLength(2);
    // The logged inputs: the page's download of them, or on PostgreSQL `mfr-coordinator export`.
    let exported: { events: Array<{ at: number; input: { kind: string } }> };
    if (onPostgres) {
      const out = mkdtempSync(join(tmpdir(), "mfr-export-"));
      const store = coordinator.storeForCli();
      expect((await runCli(["export", sessionId, ...store.args, "--out", out], store.env)).code).toBe(0);
      exported = JSON.parse(readFileSync(join(out, `${sessionId}.events.json`), "utf8")) as typeof exported;
    } else {
      const eventsHref = await page.locator('a[href$=".events.json"]').getAttribute("href");
      exported = (await page.evaluate(async (href) => (await fetch(href as string)).json(), eventsHref)) as typeof exported;
    }
    expect(exported.events.length).toBeGreaterThanOrEqual(8);
    for (const event of exported.events) {
      expect(await page.locator(`table.timeline tr[data-at="${event.at}"][data-input="${event.input.kind}"]`).count(), `${event.input.kind} at ${event.at}`).toBeGreaterThan(0);
    }
    const downloads = await page.locator(".downloads a").evaluateAll((links) => links.map((a) => a.textContent));
    if (onPostgres) {
      // A fleet's web view offers no downloads: the export files are made by `mfr-coordinator
      // export` from the database (docs/web-view.md, "Several instances"), and their addresses answer 404.
      expect(downloads).toEqual([]);
      expect((await fetch(new URL(`/sessions/${sessionId}/export/${sessionId}.trig`, url))).status).toBe(404);
    } else {
      // The other downloads are the export's files.
      expect(downloads).toEqual([`${sessionId}.trig`, `${sessionId}.validation.json`, `${sessionId}.proposals.json`, `${sessionId}.events.json`]);
      const trig = await page.evaluate(async (href) => (await fetch(href)).text(), `/sessions/${sessionId}/export/${sessionId}.trig`);
      expect(trig).toContain("Truck 1");
    }

    // Proposals with their verdicts (this model has no formal part: unverifiable).
    expect(await page.locator("table.proposals tbody tr[data-agent]").count()).toBe(2);

    // The archived session reads the same after a reload (rebuilt from its logged inputs).
    const liveKinds = kinds.join(",");
    await page.reload();
    await waitForGraphDrawn(page, errors, 30_000);
    expect((await page.locator("table.timeline tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-kind")))).join(",")).toBe(liveKinds);
    expect(await graphNodes(page)).toHaveLength(MODEL_ITEMS);

    // The sessions page filters by status.
    await page.goto(new URL("/sessions?status=solved", url).href);
    expect(await page.locator(`tr[data-session="${sessionId}"]`).count()).toBe(1);
    await page.goto(new URL("/sessions?status=failed", url).href);
    expect(await page.locator(`tr[data-session="${sessionId}"]`).count()).toBe(0);

    // The operations endpoints are served by the same server, from the same step stream.
    const metrics = await (await fetch(new URL("/metrics", url))).text();
    // A fleet labels each owned unit's series with its room (docs/operating.md, "Running several coordinators").
    const unitLabel = onPostgres ? `,room="${room}"` : "";
    expect(metrics.split("\n")).toContain(`mfr_sessions_completed_total{status="solved"${unitLabel}} 1`);
    const ready = await fetch(new URL("/readyz", url));
    expect(ready.status).toBe(200);
    expect((await fetch(new URL("/healthz", url))).status).toBe(200);

    // The one refused graph is a console error in Chromium; nothing else.
    expect(errors.filter((e) => !e.includes("503"))).toEqual([]);
    expect(errors).toHaveLength(1);
  }, 90_000);

  it("draws the demo's model: actions, goals and constraints linked to what they use, one node per listed item, legible at zoom 1", async () => {
    const { room, url } = await coordinatorWithWebView();
    const human = await person(room);
    // The demo's own agents and scripts (src/programs/demo/run-demo.ts), without the reference solver.
    for (const [nick, script] of [["modeler", MODELER_SCRIPT], ["planner", PLANNER_SCRIPT]] as const) {
      const account = await registerUser(server(), nick);
      const exampleAgent = new ExampleAgent({ ...peerOptions(server(), account), room, nick, script, thinkMs: 50 });
      afterThis(() => exampleAgent.stop());
      await exampleAgent.start();
    }
    await new Promise((r) => setTimeout(r, 300)); // the announcements reach the coordinator first

    await human.sendGroupchat(room, { body: `mfr-start ${SAMPLE_PROBLEM}` });
    const request = await human.waitForMessage(negotiation("ModelContributionRequest"));
    const sessionId = String((request.payload?.json as { sessionId: string }).sessionId);
    await human.waitForMessage(negotiation("SessionComplete", sessionId), 30_000);

    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    afterThis(() => page.close());
    const errors = collectPageErrors(page);
    await page.goto(new URL(`/sessions/${sessionId}`, url).href);
    await waitForGraphDrawn(page, errors);
    expect(await page.locator("#session-status").textContent()).toBe("solved");

    const nodes = await graphNodes(page);
    // One node per row of the items table: the 13 items, the 3 types and the 3 predicates no state variable declares.
    expect(nodes).toHaveLength(await page.locator("table.items tbody tr[data-item]").count());
    expect(nodes).toHaveLength(19);
    const linked = (kind: string) => nodes.filter((n) => n.kind === kind);
    expect(linked("actions").map((n) => n.label).sort()).toEqual(["drive", "load", "unload"]);
    expect(linked("goals")).toHaveLength(1);
    for (const n of [...linked("actions"), ...linked("goals"), ...linked("entities"), ...linked("types"), ...linked("predicates")]) expect(n.degree, n.label).toBeGreaterThan(0);

    // Every kind of edge the model has; labels drawn at 13 px and the drawing at zoom 1 (sized to the graph, not shrunk into a box).
    const drawn = await graphView(page);
    for (const kind of ["typedAs", "parameter", "reads", "changes", "requires", "appliesTo"]) expect(drawn.edges[kind], kind).toBeGreaterThan(0);
    expect(drawn.fontSize).toBe(13);
    expect(drawn.zoom, `zoom ${drawn.zoom}`).toBeGreaterThanOrEqual(0.93);
    expect(drawn.height).toBeGreaterThan(300);
    // The legend names every kind of edge, in the page itself.
    const legend = await page.locator("#graph-legend li[data-edge-kind]").evaluateAll((items) => items.map((li) => li.getAttribute("data-edge-kind")));
    expect(legend).toEqual(["parameter", "reads", "changes", "requires", "appliesTo", "typedAs", "link"]);
    expect(await page.locator("#graph-legend").isVisible()).toBe(true);

    // The README's screenshot: the model of the demo's session, solved, at 1× (legend, graph, items).
    const section = await page.evaluate(() => {
      const { document, scrollY } = globalThis as unknown as InPage & { scrollY: number };
      const r = document.getElementById("model")?.getBoundingClientRect();
      return r ? { x: r.x, y: r.y + scrollY, width: r.width, height: r.height } : undefined;
    });
    if (!section) throw new Error("no model section");
    const shot = await page.screenshot({ fullPage: true, clip: { x: section.x - 16, y: section.y - 8, width: section.width + 32, height: section.height + 16 } });
    writeFileSync(screenshotPath(), shot);
    expect(pngByteVariety(shot)).toBeGreaterThan(40);
    expect(errors).toEqual([]);
  }, 90_000);

  it("with a token: refused without it, a browser opens it once with ?token= and stays in", async () => {
    const token = "web-view-test-token-0123456789";
    const { url } = await coordinatorWithWebView({ MFR_HTTP_TOKEN: token });
    expect((await fetch(new URL("/sessions", url))).status).toBe(401);
    expect((await fetch(new URL("/sessions", url), { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const page = await browser.newPage();
    afterThis(() => page.close());
    const errors = collectPageErrors(page);
    const refused = await page.goto(new URL("/sessions", url).href);
    expect(refused?.status()).toBe(401);
    await page.goto(new URL(`/sessions?token=${token}`, url).href);
    expect(page.url()).toBe(new URL("/sessions", url).href);
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.getElementById("live-state")?.textContent === "live");
    // Refused pages are a console error in Chromium; only the one we asked for.
    expect(errors.filter((e) => !e.includes("401"))).toEqual([]);
  }, 60_000);
});
