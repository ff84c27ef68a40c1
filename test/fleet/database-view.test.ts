/**
 * The web view of a fleet instance on a real PostgreSQL: sessions are written into two rooms'
 * journals (each room claimed by its own owner, as two instances would), and the view shows
 * every one of them through its HTTP routes — live and archived, with their status and
 * timelines; a session's page as fresh as the database, the list at the next refresh; the
 * rooms this instance owns from their hosts; bounded lists; no export files; the old
 * snapshot kept while the database is away. And a Fleet that owns no room serves it too.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { DatabaseView, type DatabaseViewLimits, type OwnedHost } from "../../src/fleet/database-view.js";
import { Fleet } from "../../src/fleet/fleet.js";
import { startFleetWebView } from "../../src/fleet/fleet-http.js";
import { operationsRoutes } from "../../src/ops/routes.js";
import { stepSession } from "../../src/session/step.js";
import type { Session } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import type { SessionStep } from "../../src/host/session-host.js";
import { PgJournal } from "../../src/store/pg/pg-journal.js";
import { RoomLeases } from "../../src/store/pg/room-lease.js";
import { sessionFromEvents } from "../../src/store/replay.js";
import { HttpServerError, type RunningWebView } from "../../src/web/index.js";
import { writeConfigProfile } from "../support/config-profile.js";
import { useTestPostgres } from "../support/postgres.js";
import { T0, cancel, contribution, start } from "../store/helpers.js";
import { useMigratedDatabases } from "../store/pg/fixtures.js";

const ROOM_A = "alpha@conference.example";
const ROOM_B = "beta@conference.example";
const TOKEN = "a-fleet-web-view-token-0123";
const log = pino({ level: "silent" });

const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two rooms on one database, each claimed by an instance of its own; the journals write as their owners. */
async function twoRooms(): Promise<{ url: string; a: PgJournal; b: PgJournal; viewPool: pg.Pool }> {
  const { url, pools } = await database(3);
  const [poolA, poolB, viewPool] = pools as [pg.Pool, pg.Pool, pg.Pool];
  const leaseA = await new RoomLeases(poolA).claim(ROOM_A, "instance-a", 120_000);
  const leaseB = await new RoomLeases(poolB).claim(ROOM_B, "instance-b", 120_000);
  if (!leaseA || !leaseB) throw new Error("the rooms could not be claimed");
  return {
    url,
    a: new PgJournal({ pool: poolA, room: ROOM_A, epoch: leaseA.epoch, now: () => T0 + 60_000 }),
    b: new PgJournal({ pool: poolB, room: ROOM_B, epoch: leaseB.epoch, now: () => T0 + 60_000 }),
    viewPool,
  };
}

/** Appends the inputs, the n-th at `at + n`. */
async function write(journal: PgJournal, inputs: Input[], at: number): Promise<void> {
  for (const [i, input] of inputs.entries()) await journal.append(input.sessionId, input, at + i);
}

/** Archives a session as its owner would: the session its logged events build, completed. */
async function archive(journal: PgJournal, id: string): Promise<Session> {
  const session = sessionFromEvents(id, await journal.eventsOf(id));
  if (!session) throw new Error(`no session ${id}`);
  await journal.archive(session);
  return session;
}

/** The database view (refreshed by hand: its own period is long) behind the fleet's web server. */
async function serve(viewPool: pg.Pool, options: { limits?: Partial<DatabaseViewLimits>; token?: string; host?: string } = {}): Promise<{ view: DatabaseView; web: RunningWebView; get: (path: string) => Promise<Response> }> {
  const view = new DatabaseView({ pool: viewPool, log, refreshMs: 600_000, ...(options.limits ? { limits: options.limits } : {}) });
  cleanups.push(() => view.close());
  await view.refresh();
  const web = await startFleetWebView({
    host: options.host ?? "127.0.0.1",
    port: 0,
    token: options.token,
    view,
    operations: operationsRoutes({ metrics: { contentType: "text/plain", text: () => Promise.resolve("") }, readiness: () => ({ ready: true, reasons: [] }) }),
    now: () => T0 + 100_000,
    log,
  });
  cleanups.push(() => web.close());
  const base = web.url.replace("0.0.0.0", "127.0.0.1");
  return { view, web, get: (path) => fetch(new URL(path, base)) };
}

/** The sessions page's rows: id → status. */
async function listed(get: (path: string) => Promise<Response>, query = ""): Promise<Record<string, string>> {
  const answer = await get(`/sessions${query}`);
  expect(answer.status).toBe(200);
  const rows: Record<string, string> = {};
  for (const [, id, status] of (await answer.text()).matchAll(/<tr data-session="([^"]*)" data-status="([^"]*)">/g)) rows[id!] = status!;
  return rows;
}

/** The agents cell of one session's row on the sessions page. */
async function agentsListed(get: (path: string) => Promise<Response>, id: string): Promise<string> {
  const text = await (await get("/sessions")).text();
  const row = new RegExp(`<tr data-session="${id}"[^>]*>([\\s\\S]*?)</tr>`).exec(text)?.[1] ?? "";
  return [...row.matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1])[0] ?? "";
}

interface PageSeen {
  status: number;
  sessionStatus: string | undefined;
  /** Each timeline row as `input:kind`, in order. */
  timeline: string[];
  agents: string | undefined;
  html: string;
}

async function pageOf(get: (path: string) => Promise<Response>, id: string): Promise<PageSeen> {
  const answer = await get(`/sessions/${id}`);
  const html = await answer.text();
  return {
    status: answer.status,
    sessionStatus: /id="session-status">([^<]*)</.exec(html)?.[1],
    timeline: [...html.matchAll(/<tr class="event [^"]*" data-kind="([^"]*)" data-input="([^"]*)"/g)].map((m) => `${m[2]}:${m[1]}`),
    agents: /<dt>Agents<\/dt><dd>([^<]*)<\/dd>/.exec(html)?.[1],
    html,
  };
}

/** Reads a server-sent event stream until `until` is in what came, or fails after `ms`. */
async function streamUntil(response: Response, until: string, ms = 10_000): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = setTimeout(() => void reader.cancel(), ms);
  try {
    while (!text.includes(until)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

/** A host of an owned room holding the sessions of `byId` (which the test changes); its step listeners, for the test to tell of steps. */
function ownedHost(byId: Record<string, Session>): { host: OwnedHost; listeners: Set<(step: SessionStep) => void> } {
  const listeners = new Set<(step: SessionStep) => void>();
  const host: OwnedHost = {
    onStep: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    session: (id) => byId[id],
    sessions: { byId },
  };
  return { host, listeners };
}

/** A live session in each room, and an archived one in each, the archived ones started first. */
async function sessionsInBothRooms(a: PgJournal, b: PgJournal): Promise<void> {
  await write(a, [start("a-done"), contribution("a-done", "ada"), cancel("a-done")], T0);
  await archive(a, "a-done");
  await write(b, [start("b-done"), contribution("b-done", "bo"), cancel("b-done")], T0 + 100);
  await archive(b, "b-done");
  await write(a, [start("a-live"), contribution("a-live", "ada")], T0 + 200);
  await write(b, [start("b-live")], T0 + 300);
}

describe("the web view of a fleet instance", () => {
  it("lists the sessions of every room, live and archived, with their status and agents", async () => {
    const { a, b, viewPool } = await twoRooms();
    await sessionsInBothRooms(a, b);
    const { get } = await serve(viewPool);

    expect(await listed(get)).toEqual({ "a-live": "collecting", "b-live": "collecting", "a-done": "cancelled", "b-done": "cancelled" });
    expect(Object.keys(await listed(get, "?status=live")).sort()).toEqual(["a-live", "b-live"]);
    expect(Object.keys(await listed(get, "?status=cancelled")).sort()).toEqual(["a-done", "b-done"]);
    // The agents of an archived session are read from its archived form; a live one's from its events.
    expect(await agentsListed(get, "b-done")).toBe("bo");
    expect(await agentsListed(get, "a-live")).toBe("ada");
  });

  it("a session's page has its timeline, live or archived, of either room, and offers no export files", async () => {
    const { a, b, viewPool } = await twoRooms();
    await sessionsInBothRooms(a, b);
    const { get } = await serve(viewPool);

    const done = await pageOf(get, "b-done");
    expect(done.status).toBe(200);
    expect(done.sessionStatus).toBe("cancelled");
    expect(done.timeline).toEqual(["start:request", "start:contribution-request", "contribution:contribution", "cancel:cancel", "cancel:complete"]);
    expect(done.agents).toBe("bo");

    const live = await pageOf(get, "a-live");
    expect(live.status).toBe(200);
    expect(live.sessionStatus).toBe("collecting");
    expect(live.timeline).toEqual(["start:request", "start:contribution-request", "contribution:contribution"]);
    expect(live.agents).toBe("ada");

    // The export files are made from the embedded store, which a fleet instance does not have.
    expect(live.html).not.toContain("/export/");
    expect(done.html).not.toContain("class=\"downloads\"");
    expect((await get("/sessions/a-live/export/a-live.events.json")).status).toBe(404);
    expect((await get("/sessions/nobody")).status).toBe(404);
  });

  it("a page is as fresh as the database; the list, and live streams, follow at the next refresh", async () => {
    const { a, b, viewPool } = await twoRooms();
    await sessionsInBothRooms(a, b);
    const { view, get } = await serve(viewPool);

    // Another instance takes a contribution in and starts a session after the last refresh.
    await write(b, [contribution("b-live", "bo")], T0 + 1_000);
    await write(b, [start("b-new")], T0 + 1_100);
    const caughtUp = await pageOf(get, "b-live");
    expect(caughtUp.timeline).toEqual(["start:request", "start:contribution-request", "contribution:contribution"]);
    expect(caughtUp.agents).toBe("bo");
    const fresh = await pageOf(get, "b-new");
    expect(fresh.status).toBe(200);
    expect(fresh.sessionStatus).toBe("collecting");
    // Two inputs between two looks: the timeline has both (it is rebuilt from the events, not from the steps passed on).
    await write(b, [contribution("b-new", "bo"), contribution("b-new", "cy")], T0 + 1_150);
    expect((await pageOf(get, "b-new")).timeline).toEqual(["start:request", "start:contribution-request", "contribution:contribution", "contribution:contribution"]);

    // Room A's owner cancels and archives its live session; the list shows it at the next refresh.
    await write(a, [cancel("a-live")], T0 + 1_200);
    await archive(a, "a-live");
    await write(a, [start("a-next")], T0 + 1_300);
    expect((await listed(get))["a-live"]).toBe("collecting");
    expect((await listed(get))["a-next"]).toBeUndefined();
    const events = await get("/events");
    const heard = streamUntil(events, "a-next");
    await view.refresh();
    expect(await heard).toContain("event: step");
    expect(await listed(get)).toEqual({ "a-next": "collecting", "b-new": "collecting", "b-live": "collecting", "a-live": "cancelled", "b-done": "cancelled", "a-done": "cancelled" });
    expect(await agentsListed(get, "a-live")).toBe("ada");
    expect((await pageOf(get, "a-live")).sessionStatus).toBe("cancelled");
  });

  it("the sessions of a room this instance owns come from its host, and the host's steps reach the live streams", async () => {
    const { a, b, viewPool } = await twoRooms();
    await sessionsInBothRooms(a, b);
    await write(a, [start("a-quiet")], T0 + 400);
    const { view, get } = await serve(viewPool);

    // The host is ahead of the database: a contribution stepped but not logged yet, and a session only in memory.
    const fromDatabase = sessionFromEvents("a-live", await a.eventsOf("a-live"))!;
    const ahead = stepSession(fromDatabase, contribution("a-live", "cy"), T0 + 2_000).session!;
    const inMemory = stepSession(undefined, start("a-memory"), T0 + 2_100).session!;
    const byId: Record<string, Session> = { "a-live": ahead, "a-memory": inMemory };
    const { host, listeners } = ownedHost(byId);
    view.addOwned(ROOM_A, host);

    expect(await listed(get, "?status=live")).toEqual({ "a-memory": "collecting", "a-live": "collecting", "b-live": "collecting" });
    // A session the host completed and archived before it was registered: its page finds it in the archive.
    await write(a, [cancel("a-quiet")], T0 + 2_050);
    await archive(a, "a-quiet");
    const quiet = await pageOf(get, "a-quiet");
    expect(quiet.status).toBe(200);
    expect(quiet.sessionStatus).toBe("cancelled");
    expect(quiet.timeline).toEqual(["start:request", "start:contribution-request", "cancel:cancel", "cancel:complete"]);
    expect((await pageOf(get, "a-live")).agents).toBe("ada, cy");
    const stream = await get("/sessions/a-memory/events");
    const heard = streamUntil(stream, "a-memory");
    for (const listener of listeners) listener({ at: T0 + 2_200, input: contribution("a-memory", "dee"), before: inMemory, after: inMemory, effects: [] });
    expect(await heard).toContain("event: step");

    // The host completes a session: archived at once, before the database's archive lists it.
    const cancelled = stepSession(ahead, cancel("a-live"), T0 + 2_300).session!;
    delete byId["a-live"];
    for (const listener of listeners) listener({ at: T0 + 2_300, input: cancel("a-live"), before: ahead, after: cancelled, effects: [] });
    expect((await listed(get))["a-live"]).toBe("cancelled");
    expect((await pageOf(get, "a-live")).sessionStatus).toBe("cancelled");

    // The room is given up: its sessions are read from the database again.
    view.removeOwned(ROOM_A, host);
    expect(listeners.size).toBe(0);
    expect(await listed(get, "?status=live")).toEqual({ "a-live": "collecting", "b-live": "collecting" });
    expect((await pageOf(get, "a-live")).agents).toBe("ada");
  });

  it("a session an owned host completed keeps its page and graph when the database's archive lists it, before any load", async () => {
    const { a, b, viewPool } = await twoRooms();
    await sessionsInBothRooms(a, b);
    // No page load may run: what a page shows is what the view holds (as when loads are at their bound, or one is already under way).
    const { view, get } = await serve(viewPool, { limits: { concurrentLoads: 0 } });
    const live = sessionFromEvents("a-live", await a.eventsOf("a-live"))!;
    const byId: Record<string, Session> = { "a-live": live };
    const { host, listeners } = ownedHost(byId);
    view.addOwned(ROOM_A, host);

    // The host completes the session and its owner archives it; the next refresh lists it from the database.
    const cancelled = stepSession(live, cancel("a-live"), T0 + 2_300).session!;
    delete byId["a-live"];
    for (const listener of listeners) listener({ at: T0 + 2_300, input: cancel("a-live"), before: live, after: cancelled, effects: [] });
    await write(a, [cancel("a-live")], T0 + 2_300);
    await archive(a, "a-live");
    expect((await pageOf(get, "a-live")).sessionStatus).toBe("cancelled");
    await view.refresh();
    expect((await listed(get))["a-live"]).toBe("cancelled");

    // The session the host completed is the archived one: it stays at hand, not gone until a load brings it.
    const page = await pageOf(get, "a-live");
    expect(page.status).toBe(200);
    expect(page.sessionStatus).toBe("cancelled");
    const graph = await get("/sessions/a-live/graph.json");
    expect(graph.status).toBe(200);
  });

  it("is bounded: the newest archived and live sessions are listed, an older one still opens by its address", async () => {
    const { a, b, viewPool } = await twoRooms();
    await sessionsInBothRooms(a, b);
    const { get } = await serve(viewPool, { limits: { archivedListed: 1, liveSessions: 1, eventsPerSession: 1 } });

    expect(await listed(get)).toEqual({ "b-live": "collecting", "b-done": "cancelled" });
    const older = await pageOf(get, "a-done");
    expect(older.status).toBe(200);
    expect(older.sessionStatus).toBe("cancelled");
    // One event kept per session: the timeline is cut there, the session is whole.
    expect(older.timeline).toEqual(["start:request", "start:contribution-request"]);
    expect(older.agents).toBe("ada");
  });

  it("an id two instances both chose is shown once, as the most recently started, its rooms' events kept apart", async () => {
    const { a, b, viewPool } = await twoRooms();
    await write(a, [start("twice", "Room A's problem"), contribution("twice", "ada")], T0);
    await write(b, [start("twice", "Room B's problem"), contribution("twice", "bo")], T0 + 100);
    const { view, get } = await serve(viewPool);

    expect(await listed(get)).toEqual({ twice: "collecting" });
    const page = await pageOf(get, "twice");
    expect(page.html).toContain("Room B&#39;s problem");
    expect(page.agents).toBe("bo");
    expect(page.timeline).toEqual(["start:request", "start:contribution-request", "contribution:contribution"]);
    // Room A's session goes on; the view still shows room B's, whole and alone.
    await write(a, [contribution("twice", "cy")], T0 + 200);
    await view.refresh();
    expect((await pageOf(get, "twice")).agents).toBe("bo");
    expect((await pageOf(get, "twice")).timeline).toHaveLength(3);
  });

  it("keeps showing the last snapshot while the database cannot be read, and catches up when it can", async () => {
    const { a, b, viewPool } = await twoRooms();
    await sessionsInBothRooms(a, b);
    const { view, get } = await serve(viewPool);
    const before = await listed(get);

    // Started again whatever happens here: the tests after this one need it.
    cleanups.push(async () => {
      if (!server().running) await server().restart();
    });
    await server().kill();
    await view.refresh();
    expect(await listed(get)).toEqual(before);
    const page = await pageOf(get, "b-live");
    expect(page.status).toBe(200);
    expect(page.sessionStatus).toBe("collecting");
    expect((await get("/sessions/a-done")).status).toBe(404);
    expect((await get("/healthz")).status).toBe(200);

    await server().restart();
    await write(b, [start("b-after")], T0 + 5_000);
    await view.refresh();
    expect((await listed(get))["b-after"]).toBe("collecting");
  });

  it("keeps the single view's access rules: a token beyond loopback, and the operations routes beside", async () => {
    const { viewPool } = await twoRooms();
    const view = new DatabaseView({ pool: viewPool, log });
    cleanups.push(() => view.close());
    await expect(startFleetWebView({ host: "0.0.0.0", port: 0, token: undefined, view, operations: [], now: () => T0, log })).rejects.toBeInstanceOf(HttpServerError);

    const { get, web } = await serve(viewPool, { host: "0.0.0.0", token: TOKEN });
    expect((await get("/sessions")).status).toBe(401);
    const url = new URL("/sessions", web.url.replace("0.0.0.0", "127.0.0.1"));
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(new URL("/healthz", url), { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});

describe("a fleet instance's web server", () => {
  it("shows the sessions of a room another instance owns, beside /readyz", async () => {
    const { url, b } = await twoRooms();
    await write(b, [start("b-live"), contribution("b-live", "bo")], T0);
    await write(b, [start("b-done"), cancel("b-done")], T0 + 100);
    await archive(b, "b-done");

    // This instance's only room is ROOM_B, whose lease instance-b holds: it stands by.
    const dir = mkdtempSync(join(tmpdir(), "mfr-fleet-web-"));
    const profile = writeConfigProfile(dir, `agent:roomJid "${ROOM_B}" ;`, "mfr:httpPort 0 ;");
    const config = loadConfig({ profile }, { XMPP_PASSWORD: "pw", MFR_DATABASE_URL: url, MFR_INSTANCE_ID: "instance-c" }, dir);
    const fleet = new Fleet({ config, log });
    cleanups.push(() => fleet.stop());
    await fleet.start();
    const base = fleet.webUrl;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const get = (path: string) => fetch(new URL(path, base));

    const rows = async (): Promise<Record<string, string>> => listed(get);
    const deadline = Date.now() + 10_000;
    while (Object.keys(await rows()).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await rows()).toEqual({ "b-live": "collecting", "b-done": "cancelled" });
    expect((await pageOf(get, "b-live")).timeline).toEqual(["start:request", "start:contribution-request", "contribution:contribution"]);
    const ready = await get("/readyz");
    expect(await ready.json()).toMatchObject({ role: "standby", instance: "instance-c", rooms: [] });
  });
});
