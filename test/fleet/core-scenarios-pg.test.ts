/**
 * The core scenarios (test/support/core-scenarios.ts) against a coordinator on PostgreSQL:
 * `mfr-coordinator start` with MFR_DATABASE_URL runs as one instance of a fleet, here the
 * only one, on a fresh database per scene, over a real Prosody. MFR_INSTANCE_ID is fixed, so
 * a coordinator started again after a stop is the same instance; the lease is short, so after
 * a kill -9 the killed owner's lease runs out within seconds and the new process claims the
 * room again (after SIGTERM it was released, and is claimed at once). After each test, the
 * scene's database shows the room's lease held by that instance, claimed once per start.
 *
 * What fleet mode changes, and why no scenario needs skipping: only the primary unit's
 * owner has a direct line, the web view is the instance's (over the whole database, without
 * downloads), and the XMPP resource is `<resource>-<instance>-<n>`; no core scenario depends
 * on those. The `postgres` vitest project also runs test/integration/restart.test.ts (and its
 * replay check, with `verify` given the database) in fleet mode; this file keeps the lease
 * checks after each scene.
 */
import pg from "pg";
import { afterEach, expect } from "vitest";
import { coreScenarios, type SceneStore } from "../support/core-scenarios.js";
import { useTestPostgres } from "../support/postgres.js";
import { useTestProsody } from "../support/prosody.js";

const { server, afterThis } = useTestProsody();
const { server: postgres } = useTestPostgres();

/** One instance, restarted as itself, with a lease that a kill -9 leaves to run out in 3 s. */
const FLEET_ENV = { MFR_INSTANCE_ID: "core", MFR_LEASE_MS: "3000", MFR_LEASE_RENEW_MS: "1000", MFR_LEASE_MARGIN_MS: "500" };

/** The databases of the current test's scenes. */
const databases: string[] = [];

async function query<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query<R>(sql, params);
  } finally {
    await client.end();
  }
}

/** A fresh database for one scene; its sent records are forgotten as a kill -9 between socket write and record leaves them. */
async function freshDatabase(): Promise<SceneStore> {
  const url = await postgres().createDatabase();
  databases.push(url);
  return {
    env: { ...FLEET_ENV, MFR_DATABASE_URL: url },
    forgetSentOf: async (_coordinator, sessionId) => (await query(url, "DELETE FROM journal_sent WHERE session_id = $1", [sessionId])).rowCount ?? 0,
  };
}

// The scenes really ran as a fleet instance on their database: the room's lease is the
// instance's, claimed once per start (SIGTERM released it, a kill -9 left it to run out).
afterEach(async () => {
  const restarted = !/^a session with a fix round/.test(expect.getState().currentTestName?.split(" > ").at(-1) ?? "");
  for (const url of databases.splice(0)) {
    const leases = await query<{ owner: string; epoch: string }>(url, "SELECT owner, epoch::text AS epoch FROM room_leases");
    expect(leases.rows).toEqual([{ owner: "core", epoch: restarted ? "2" : "1" }]);
  }
});

coreScenarios(server, afterThis, { title: "core scenarios on PostgreSQL (one fleet instance)", store: freshDatabase });
