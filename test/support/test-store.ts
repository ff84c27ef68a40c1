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
 * `<resource>-<instance>-0` (fleet/room-units.ts), and the replay check reads the database
 * (verifyPgDatabase) instead of running `mfr-coordinator verify` on the SQLite file.
 *
 *   npx vitest run --project postgres test/integration/session.test.ts
 */
import type { Logger } from "pino";
import { afterAll } from "vitest";
import type { Config } from "../../src/config/schema.js";
import { roomUnitsOf } from "../../src/fleet/room-units.js";
import { printVerification } from "../../src/shell/verify-report.js";
import { migrate } from "../../src/store/pg/migrations.js";
import { PgJournal } from "../../src/store/pg/pg-journal.js";
import { PgRoomStore } from "../../src/store/pg/pg-room-store.js";
import { openPool } from "../../src/store/pg/pool.js";
import { RoomLeases } from "../../src/store/pg/room-lease.js";
import type { SentRecord, StoredEvent } from "../../src/store/records.js";
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
 * the primary unit's `<resource>-<instance>-0`. Its direct line is this plus `-direct`.
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

/** What `mfr-coordinator verify` prints and its exit code, for one database. */
export interface PgVerification {
  code: number;
  lines: string[];
}

/**
 * The replay check of `mfr-coordinator verify`, over every room unit of a fleet database:
 * each logged session is replayed through the core and compared with what was recorded as
 * sent, rendered for the unit's own rooms, with the CLI's words and closing tally.
 * Read-only; works beside a running instance.
 */
export async function verifyPgDatabase(url: string, config: Config, instanceId: string): Promise<PgVerification> {
  const units = roomUnitsOf(config, instanceId);
  const pool = openPool({ url, applicationName: "mfr-test verify", max: 2 });
  const lines: string[] = [];
  const total = { sessions: 0, matched: 0, pending: 0, mismatches: 0 };
  try {
    const rooms = (await pool.query<{ room: string }>("SELECT DISTINCT room FROM journal_events ORDER BY room")).rows.map((r) => r.room);
    const unknown = rooms.filter((room) => !units.some((u) => u.key === room));
    if (unknown.length > 0) throw new Error(`the database has sessions of rooms the profile does not name: ${unknown.join(", ")}`);
    for (const unit of units) {
      const journal = new PgJournal({ pool, room: unit.key, epoch: 0 });
      const ids = await journal.sessionIds();
      const events = new Map<string, StoredEvent[]>();
      const sent = new Map<string, SentRecord[]>();
      for (const id of ids) {
        events.set(id, await journal.eventsOf(id));
        sent.set(id, await journal.sentOf(id));
      }
      const trackedAfter = await journal.sentTrackedAfter();
      const log = { sessionIds: () => ids, eventsOf: (id: string) => events.get(id) ?? [], sentOf: (id: string) => sent.get(id) ?? [], sentTrackedAfter: () => trackedAfter };
      const unitLines: string[] = [];
      printVerification(log, unit.config, (line) => unitLines.push(line));
      const tally = /^verify: (\d+) sessions, (\d+) stanzas match, (\d+) pending, (\d+) mismatches$/.exec(unitLines.pop() ?? "");
      if (!tally) throw new Error("the replay check printed no tally");
      total.sessions += Number(tally[1]);
      total.matched += Number(tally[2]);
      total.pending += Number(tally[3]);
      total.mismatches += Number(tally[4]);
      lines.push(...unitLines);
    }
  } finally {
    await pool.end().catch(() => undefined);
  }
  lines.push(`verify: ${total.sessions} sessions, ${total.matched} stanzas match, ${total.pending} pending, ${total.mismatches} mismatches`);
  return { code: total.mismatches === 0 ? 0 : 1, lines };
}
