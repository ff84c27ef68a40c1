/**
 * The operations endpoints of a coordinator running in this process against a real
 * Prosody of its own (it is stopped and started again here): /readyz before the start,
 * once in its rooms, while the server is away and after it is back, and with its store
 * moved away; /metrics after a real session, and the reconnect.
 */
import { mkdtempSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import type { Coordinator } from "../../src/coordinator/coordinator.js";
import { writeLocalAgentProfile } from "../../src/localserver/agent-profile.js";
import { Mode, MFR } from "../../src/base/vocab.js";
import { DATABASE_FILE } from "../../src/store/index.js";
import { buildCoordinator } from "../support/in-process-coordinator.js";
import { onPostgres } from "../support/test-store.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, startTestProsody, uniqueRoom, type LocalProsody } from "../support/prosody.js";
import { toldPrivately } from "../support/room-kit.js";
import { serveRoutes, type RouteServer } from "../support/route-server.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent } from "../support/scripted-agent.js";
import { operationsRoutes } from "../../src/ops/routes.js";

interface ReadyBody {
  ready: boolean;
  reasons: string[];
}

let server: LocalProsody;
let dir: string;
let room: string;
let logRoom: string;
let store: { close(): Promise<void> };
let coordinator: Coordinator;
let http: RouteServer;
const stops: Array<() => Promise<unknown>> = [];

async function readyz(): Promise<{ status: number; body: ReadyBody }> {
  const response = await fetch(`${http.url}/readyz`);
  return { status: response.status, body: (await response.json()) as ReadyBody };
}

/** Asks /readyz until it answers `status` (probes are cheap; the coordinator gets there by itself). */
async function readyzBecomes(status: number, timeoutMs = 10_000): Promise<ReadyBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await readyz();
    if (answer.status === status) return answer.body;
    if (Date.now() > deadline) throw new Error(`/readyz stayed ${answer.status}: ${JSON.stringify(answer.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Asks /metrics until `series` reads `value`. */
async function sampleBecomes(series: string, value: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await sample(series)) !== value) {
    if (Date.now() > deadline) throw new Error(`${series} stayed ${await sample(series)}, not ${value}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One sample of the Prometheus text, by its series as written (name and labels). */
async function sample(series: string): Promise<number | undefined> {
  const text = await (await fetch(`${http.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  server = await startTestProsody();
  dir = mkdtempSync(join(tmpdir(), "mfr-ops-"));
  room = uniqueRoom(server);
  logRoom = uniqueRoom(server, "log");
  const account = await registerUser(server, "coordinator");
  const { profile, secrets } = writeLocalAgentProfile(dir, {
    node: "coordinator",
    nick: "Coordinator",
    server,
    account,
    passwordKey: "coordinator",
    resource: "Coordinator",
    room,
    statements: [`agent:logRoomJid "${logRoom}" ;`],
    mfrConfig: `mfr:dataDir "${join(dir, "data")}" ; mfr:contributionTimeout 4000 ; mfr:reasoningTimeout 4000 ; mfr:validationTimeout 10000 ;`,
  });
  const config = loadConfig({ profile, secrets }, {}, dir);
  ({ coordinator, store } = await buildCoordinator(config, pino({ level: "silent" })));
  http = await serveRoutes(operationsRoutes({ metrics: coordinator.metrics, readiness: () => coordinator.readiness() }));
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await http?.close();
  await coordinator?.stop();
  await store?.close();
  await server?.stop();
});

describe("operations endpoints over a real server", () => {
  it("/readyz is 503 with the reasons before the start, and 200 once connected and in every room", async () => {
    const before = await readyz();
    expect(before.status).toBe(503);
    expect(before.body).toEqual({ ready: false, reasons: ["not connected to the XMPP server", "not in any room yet (starting)"] });
    expect((await fetch(`${http.url}/healthz`)).status).toBe(200);

    await coordinator.start();
    expect(await readyzBecomes(200)).toEqual({ ready: true, reasons: [] });
  });

  it("/metrics shows a session that ran: started, completed as solved, what it received, how long it took", async () => {
    const human = await TestPeer.connect(peerOptions(server, await registerUser(server, "alice")));
    stops.push(() => human.stop());
    await human.joinRoom(room, "alice");
    for (const [nick, turtle] of [["modeler", MODELER_TURTLE], ["planner", PLANNER_TURTLE]] as const) {
      const agent = await ScriptedAgent.join(server, room, nick, { contribution: () => turtle, solution: () => GOOD_SOLUTION });
      stops.push(() => agent.stop());
      await agent.announce();
    }
    await new Promise((r) => setTimeout(r, 200)); // the announcements reach the coordinator first

    await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot to the warehouse with one truck" });
    const complete = await human.waitForMessage(
      (m: ReceivedMessage) => m.payload?.mode === Mode.ModelNegotiation && m.payload.messageType === `${MFR}SessionComplete`,
      20_000,
    );
    expect((complete.payload?.json as { status?: string }).status).toBe("solved");

    expect(await sample("mfr_sessions_started_total")).toBe(1);
    expect(await sample('mfr_sessions_completed_total{status="solved"}')).toBe(1);
    expect(await sample("mfr_contributions_received_total")).toBe(2);
    expect(await sample("mfr_proposals_received_total")).toBe(2);
    expect(await sample('mfr_validation_duration_seconds_count{outcome="sound"}')).toBe(1);
    expect(await sample('mfr_session_phase_duration_seconds_count{phase="reasoning"}')).toBe(1);
    expect(await sample("mfr_live_sessions")).toBe(0);
    expect(await sample("mfr_model_jobs_queued")).toBe(0);
    expect(await sample("mfr_xmpp_connected")).toBe(1);
    expect(await sample("mfr_direct_line_connected")).toBe(1);
    expect(await sample("mfr_xmpp_reconnects_total")).toBe(0);
  });

  // Not a room unit's: in a fleet the process's metrics are the instance's, beside its units'
  // (src/fleet/fleet-metrics.ts), so a unit's coordinator on PostgreSQL has none of its own.
  it.skipIf(onPostgres)("/metrics has the process's metrics, the event loop's lag among them", async () => {
    expect(await sample("nodejs_eventloop_lag_p99_seconds")).toBeGreaterThanOrEqual(0);
  });

  it("/metrics counts refused input by reason: a session that does not exist, JSON that does not read", async () => {
    const latecomer = await ScriptedAgent.join(server, room, "latecomer", { contribution: () => undefined });
    stops.push(() => latecomer.stop());
    await latecomer.contribute("no-such-session", MODELER_TURTLE);
    await latecomer.peer.waitForMessage(toldPrivately(room, 'There is no session "no-such-session"'));
    await latecomer.peer.sendGroupchat(room, { payload: { mode: Mode.ModelNegotiation, mime: "application/json", content: "{ broken" } });
    await latecomer.peer.waitForMessage(toldPrivately(room, "I could not read your ModelNegotiation message"));

    expect(await sample('mfr_inputs_refused_total{reason="unknown-session"}')).toBe(1);
    expect(await sample('mfr_inputs_refused_total{reason="malformed-payload"}')).toBe(1);
    expect(await sample('mfr_inputs_refused_total{reason="throttled"}')).toBe(0);
    expect(await sample("mfr_contributions_received_total")).toBe(3);
  });

  // SQLite only: it moves the data directory's database file away. On PostgreSQL there is no
  // file; a database that cannot be reached is the fleet's readiness (src/fleet/fleet.ts).
  it.skipIf(onPostgres)("/readyz names the store moved away while open, and is ready again once it is back", async () => {
    const path = join(dir, "data", DATABASE_FILE);
    renameSync(path, `${path}.aside`);
    try {
      const moved = await readyz();
      expect(moved.status).toBe(503);
      expect(moved.body.reasons).toEqual([`the store file ${path} is gone (moved or deleted while open); what is written now would be lost at restart`]);
    } finally {
      renameSync(`${path}.aside`, path);
    }
    expect((await readyz()).status).toBe(200);
  });

  it("/readyz is 503 while the server is away (not connected, not in the rooms) and 200 after the reconnect, which /metrics counts", async () => {
    await server.kill();
    const away = await readyzBecomes(503);
    expect(away.reasons).toEqual(expect.arrayContaining(["not connected to the XMPP server", `not in room ${room}`, `not in room ${logRoom}`]));
    expect(await sample("mfr_xmpp_connected")).toBe(0);
    await sampleBecomes("mfr_direct_line_connected", 0);

    await server.restart();
    expect(await readyzBecomes(200, 15_000)).toEqual({ ready: true, reasons: [] });
    expect(await sample("mfr_xmpp_reconnects_total")).toBe(1);
    // The direct line comes back on its own backoff; readiness does not wait for it.
    await sampleBecomes("mfr_direct_line_connected", 1, 15_000);
  }, 30_000);
});
