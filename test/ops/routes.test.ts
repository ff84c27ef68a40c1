/** /metrics, /healthz and /readyz over a plain HTTP server, and the readiness reasons. */
import { afterEach, describe, expect, it } from "vitest";
import { OperationsMetrics } from "../../src/ops/metrics.js";
import { readinessOf, type ReadinessFacts } from "../../src/ops/readiness.js";
import { operationsRoutes } from "../../src/ops/routes.js";
import { serveRoutes, type RouteServer } from "../support/route-server.js";

const READY: ReadinessFacts = {
  connected: true,
  rooms: [
    { jid: "mfr@conference.localhost", joined: true },
    { jid: "mfr-log@conference.localhost", joined: true },
  ],
  storeProblem: undefined,
};

describe("readiness", () => {
  it("is ready when connected, in every room, and the store takes writes", () => {
    expect(readinessOf(READY)).toEqual({ ready: true, reasons: [] });
  });

  it("names every reason it is not", () => {
    expect(
      readinessOf({
        connected: false,
        rooms: [
          { jid: "mfr@conference.localhost", joined: false },
          { jid: "mfr-log@conference.localhost", joined: true },
        ],
        storeProblem: "cannot write the store /data/mfr-coordinator.sqlite (SQLITE_FULL: database or disk is full)",
      }),
    ).toEqual({
      ready: false,
      reasons: ["not connected to the XMPP server", "not in room mfr@conference.localhost", "cannot write the store /data/mfr-coordinator.sqlite (SQLITE_FULL: database or disk is full)"],
    });
  });

  it("warns, without making it not ready, about a room that does not keep agents' protocol messages", () => {
    const keeping = [
      { keeping: "kept" as const, note: "mfr@conference.localhost keeps agents' protocol messages" },
      { keeping: "not kept" as const, note: "reason@conference.localhost does not keep agents' protocol messages without a body" },
      { keeping: "unknown" as const, note: "construct@conference.localhost: not joined yet" },
    ];
    expect(readinessOf({ ...READY, keeping })).toEqual({ ready: true, reasons: [], warnings: ["reason@conference.localhost does not keep agents' protocol messages without a body"] });
  });

  it("is not ready before any room was entered", () => {
    expect(readinessOf({ connected: true, rooms: [], storeProblem: undefined })).toEqual({ ready: false, reasons: ["not in any room yet (starting)"] });
  });
});

describe("operations routes", () => {
  let server: RouteServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("serves the metrics, liveness and readiness (200 or 503 with reasons); leaves other paths alone", async () => {
    let facts: ReadinessFacts = READY;
    const metrics = new OperationsMetrics({ liveSessions: () => 2, queuedModelJobs: () => 0, connected: () => true }, { processMetrics: false });
    server = await serveRoutes(operationsRoutes({ metrics, readiness: () => readinessOf(facts) }));

    const scraped = await fetch(`${server.url}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await scraped.text()).toContain("mfr_live_sessions 2");

    const alive = await fetch(`${server.url}/healthz`);
    expect(alive.status).toBe(200);
    expect(await alive.json()).toEqual({ alive: true });

    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, reasons: [] });

    facts = { ...READY, connected: false };
    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ ready: false, reasons: ["not connected to the XMPP server"] });

    expect((await fetch(`${server.url}/readyz`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${server.url}/elsewhere`)).status).toBe(404);
    // The query string does not change the path.
    expect((await fetch(`${server.url}/healthz?verbose=1`)).status).toBe(200);
  });
});
