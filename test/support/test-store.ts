/**
 * Which store the coordinators of the integration tests run on. By default the embedded
 * SQLite file in each coordinator's data directory; with `MFR_TEST_STORE=postgres` (the
 * `postgres` project of vitest.config.ts sets it) each coordinator runs as a one-instance
 * fleet on a database of its own (src/fleet/, docs/operating.md "Running several
 * coordinators"):
 *
 *  - ONE throw-away PostgreSQL per test file (test/support/postgres.ts), started the first
 *    time a coordinator needs it and stopped after the file's tests. It fails with the
 *    install command when PostgreSQL is missing; it never skips.
 *  - A fresh database per coordinator; its restarts (same directory) get the same database
 *    and the same MFR_INSTANCE_ID, as a service restarted by its supervisor would.
 *  - A short lease (3 s, renewed every second), so that a restart after kill -9, which waits
 *    for its old lease to run out, takes over within a few seconds.
 *
 * What a test sees differently in that mode comes from here too: the XMPP resource is
 * `<resource>-<instance>-0` (fleet/room-units.ts), and the operator's commands (`verify`,
 * `export`) are given the database (MFR_DATABASE_URL) instead of the data directory.
 *
 *   npx vitest run --project postgres test/integration/session.test.ts
 */
import type { Logger } from "pino";
import { afterAll } from "vitest";
import type { Config } from "../../src/config/schema.js";
import { roomUnitsOf } from "../../src/fleet/room-units.js";
import { migrate } from "../../src/store/pg/migrations.js";
import { PgRoomStore } from "../../src/store/pg/pg-room-store.js";
import { openPool } from "../../src/store/pg/pool.js";
import { RoomLeases } from "../../src/store/pg/room-lease.js";
import { startTestPostgres, type TestPostgres } from "./postgres.js";

/** The store the integration tests' coordinators run on. */
export type TestStore = "sqlite" | "postgres";

function storeFromEnv(value: string | undefined): TestStore {
  if (value === undefined || value === "" || value === "sqlite") return "sqlite";
  if (value === "postgres") return "postgres";
  throw new Error(`MFR_TEST_STORE is "${value}": use "sqlite" (the default) or "postgres"`);
}

export const TEST_STORE: TestStore = storeFromEnv(process.env.MFR_TEST_STORE);

/** True when the coordinators run as fleet instances on PostgreSQL (MFR_TEST_STORE=postgres). */
export const onPostgres = TEST_STORE === "postgres";

/** The lease timing every test coordinator on PostgreSQL gets (MFR_LEASE_MS and the rest). */
export const TEST_LEASE = { leaseMs: 3000, renewMs: 1000, marginMs: 500 } as const;

let server: Promise<TestPostgres> | undefined;

/** This test file's PostgreSQL, started on first use (see the module comment). */
export function testPostgres(): Promise<TestPostgres> {
  server ??= startTestPostgres();
  return server;
}

// Registered while the importing test file is collected: stops the file's PostgreSQL after
// its tests (and after the hooks registered later, such as the Prosody's, which run first).
afterAll(async () => {
  const running = server;
  server = undefined;
  if (running) await (await running).stop();
}, 30_000);

/** A coordinator's database and instance name on PostgreSQL. */
export interface FleetPlace {
  readonly url: string;
  readonly instanceId: string;
}

let instances = 0;

/** A fresh database on this file's PostgreSQL, with a new instance name for it. */
export async function freshFleetPlace(): Promise<FleetPlace> {
  const url = await (await testPostgres()).createDatabase();
  return { url, instanceId: nextInstanceId() };
}

/** An instance name not used before in this file. */
export function nextInstanceId(): string {
  instances += 1;
  return `t${instances}`;
}

/** The environment that makes `mfr-coordinator start` a fleet instance at `place`. */
export function fleetEnv(place: FleetPlace): Record<string, string> {
  return {
    MFR_DATABASE_URL: place.url,
    MFR_INSTANCE_ID: place.instanceId,
    MFR_LEASE_MS: String(TEST_LEASE.leaseMs),
    MFR_LEASE_RENEW_MS: String(TEST_LEASE.renewMs),
    MFR_LEASE_MARGIN_MS: String(TEST_LEASE.marginMs),
  };
}

/**
 * The XMPP resource of the coordinator's room connection: the profile's, or on PostgreSQL
 * the primary unit's `<resource>-<instance>-0`. Its direct line's is made from it (`directLineResource`: `<resource> (chat)`).
 */
export function roomResourceOf(resource: string, instanceId: string | undefined): string {
  return instanceId === undefined ? resource : `${resource}-${instanceId}-0`;
}

/** The store an in-process coordinator runs on, and what it is built with. */
export interface InProcessStore {
  /** The configuration to build the coordinator with (on PostgreSQL: the primary unit's). */
  readonly config: Config;
  readonly store: PgRoomStore;
  /** For the Coordinator's `fleet` option. */
  readonly fleet: { maySpeak: () => boolean };
  readonly instanceId: string;
  /** Closes the store and the connection pool. */
  close(): Promise<void>;
}

/**
 * The primary room unit's store on a fresh database, as a fleet instance that has just
 * claimed the unit uses it: the schema migrated, the lease claimed (for a day: nobody else
 * runs on this database, so it is never renewed), the unit's state loaded.
 */
export async function openInProcessPgStore(config: Config, log: Logger): Promise<InProcessStore> {
  const place = await freshFleetPlace();
  const unit = roomUnitsOf(config, place.instanceId)[0]!;
  const pool = openPool({ url: place.url, applicationName: `mfr-test ${place.instanceId}` });
  try {
    await migrate(pool);
    const lease = await new RoomLeases(pool).claim(unit.key, place.instanceId, 86_400_000);
    if (!lease) throw new Error(`could not claim ${unit.key} on a fresh database`);
    let failure: unknown;
    const store = await PgRoomStore.open({
      pool,
      unit: unit.key,
      rooms: unit.rooms,
      epoch: lease.epoch,
      log,
      onFailure: (err) => {
        failure = err;
        log.error({ err }, "a write to the test database failed");
      },
    });
    return {
      config: unit.config,
      store,
      fleet: { maySpeak: () => failure === undefined },
      instanceId: place.instanceId,
      close: async () => {
        await store.close();
        await pool.end();
      },
    };
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
}
