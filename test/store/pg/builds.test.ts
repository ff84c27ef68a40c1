/**
 * Which build wrote each record, on the shared PostgreSQL store: migration 5 gives the
 * journal's inputs and sent records the build that wrote them, and sent records the digest of
 * what their stanza decides, as the SQLite store's schema v8 does; rows written before keep
 * neither, and a reader of a database not yet migrated reads them as such. A database an
 * earlier build's fleet instance wrote (test/fixtures/stores/pg-m4-3418cec.sql: migration 4)
 * replays without a mismatch before it is migrated and after, and a tampered copy does not.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrate } from "../../../src/store/pg/migrations.js";
import { PgJournal } from "../../../src/store/pg/pg-journal.js";
import { PgRoomReader } from "../../../src/store/pg/pg-room-reader.js";
import { PgRoomStore } from "../../../src/store/pg/pg-room-store.js";
import { PgStoreReader } from "../../../src/store/pg/pg-store-reader.js";
import { openPool } from "../../../src/store/pg/pool.js";
import { RoomLeases } from "../../../src/store/pg/room-lease.js";
import { runCli, type CliRun } from "../../support/cli.js";
import { useTestPostgres } from "../../support/postgres.js";
import { T0, contribution, start } from "../helpers.js";
import { useMigratedDatabases } from "./fixtures.js";

const UNIT = "mfr@conference.example";
const FIXTURES = new URL("../../fixtures/stores/", import.meta.url);
const PROFILE = fileURLToPath(new URL("profile.ttl", FIXTURES));
/** The fixture's SQL without psql's meta-commands (`\restrict`), which only psql runs. */
const FIXTURE_SQL = readFileSync(new URL("pg-m4-3418cec.sql", FIXTURES), "utf8")
  .split("\n")
  .filter((line) => !line.startsWith("\\"))
  .join("\n");

const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);

describe("build ids on the shared store", () => {
  it("PgJournal writes its build with each input and sent record, with the stanza's decisive digest", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const lease = (await new RoomLeases(pool).claim(UNIT, "alpha", 60_000))!;
    const journal = new PgJournal({ pool, room: UNIT, epoch: lease.epoch, build: "0.1.0+aaaaaaa" });
    const seq = await journal.append("s1", start("s1"), T0);
    await journal.recordSent({ sessionId: "s1", eventSeq: seq, position: 0, at: T0, digest: "whole", decisive: "d1:decides", what: "ModelContributionRequest" });
    await journal.recordSent({ sessionId: "s1", eventSeq: seq, position: 1, at: T0, digest: "whole2", what: "say primary", build: "0.1.0+bbbbbbb" });
    const later = new PgJournal({ pool, room: UNIT, epoch: lease.epoch, build: "0.1.0+ccccccc" });
    await later.append("s1", contribution("s1", "alice"), T0 + 1);

    const reader = new PgRoomReader(pool, UNIT);
    expect(await reader.sentOf("s1")).toEqual([
      { sessionId: "s1", eventSeq: seq, position: 0, at: T0, digest: "whole", decisive: "d1:decides", what: "ModelContributionRequest", build: "0.1.0+aaaaaaa" },
      { sessionId: "s1", eventSeq: seq, position: 1, at: T0, digest: "whole2", what: "say primary", build: "0.1.0+bbbbbbb" },
    ]);
    expect(await reader.inputBuildsOf("s1")).toEqual([
      { build: "0.1.0+aaaaaaa", inputs: 1 },
      { build: "0.1.0+ccccccc", inputs: 1 },
    ]);
  });

  it("PgRoomStore records the same, in memory at once and in the database", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const lease = (await new RoomLeases(pool).claim(UNIT, "alpha", 60_000))!;
    const store = await PgRoomStore.open({ pool, unit: UNIT, rooms: [UNIT], epoch: lease.epoch, log: pino({ level: "silent" }), onFailure: () => undefined, build: "0.1.0+ddddddd" });
    const seq = await store.append("s1", start("s1"), T0);
    store.recordSent({ sessionId: "s1", eventSeq: seq, position: 0, at: T0, digest: "whole", decisive: "d1:decides", what: "ModelContributionRequest" });
    const expected = [{ sessionId: "s1", eventSeq: seq, position: 0, at: T0, digest: "whole", decisive: "d1:decides", what: "ModelContributionRequest", build: "0.1.0+ddddddd" }];
    expect(store.sentOf("s1")).toEqual(expected);
    await store.close();
    expect(await new PgRoomReader(pool, UNIT).sentOf("s1")).toEqual(expected);
    expect(await new PgRoomReader(pool, UNIT).inputBuildsOf("s1")).toEqual([{ build: "0.1.0+ddddddd", inputs: 1 }]);
  });

  it("migration 5 keeps the rows of a database at migration 4, without a build; a reader reads them before it and after", async () => {
    const url = await server().createDatabase();
    const pool = openPool({ url, applicationName: "builds-test" });
    try {
      await migrate(pool, MIGRATIONS.slice(0, 4));
      // Rows as migration 4's writers left them.
      await pool.query(`INSERT INTO journal_events (room, session_id, kind, at, live, epoch, input) VALUES ($1, 's1', 'start', $2, true, 1, $3::json)`, [UNIT, T0, JSON.stringify(start("s1"))]);
      await pool.query(`INSERT INTO journal_sent (room, session_id, event_seq, position, at, digest, what) VALUES ($1, 's1', 1, 0, $2, 'whole', 'ModelContributionRequest')`, [UNIT, T0]);
      const asWritten = [{ sessionId: "s1", eventSeq: 1, position: 0, at: T0, digest: "whole", what: "ModelContributionRequest" }];

      const before = await PgStoreReader.open(url);
      expect(before.schemaVersion).toBe(4);
      expect(await before.room(UNIT).sentOf("s1")).toEqual(asWritten);
      expect(await before.room(UNIT).inputBuildsOf("s1")).toEqual([{ build: undefined, inputs: 1 }]);
      await before.close();

      expect((await migrate(pool)).applied).toEqual([5, 6]);
      const columns = await pool.query<{ table_name: string; column_name: string }>(
        "SELECT table_name, column_name FROM information_schema.columns WHERE column_name IN ('build', 'decisive') ORDER BY table_name, column_name",
      );
      expect(columns.rows.map((c) => `${c.table_name}.${c.column_name}`)).toEqual(["journal_events.build", "journal_sent.build", "journal_sent.decisive"]);
      const after = await PgStoreReader.open(url);
      const records = await after.room(UNIT).sentOf("s1");
      expect(records).toEqual(asWritten);
      expect(records[0]).not.toHaveProperty("build");
      expect(await after.room(UNIT).inputBuildsOf("s1")).toEqual([{ build: undefined, inputs: 1 }]);
      await after.close();
    } finally {
      await pool.end();
    }
  });
});

describe("the PostgreSQL store fixture of an earlier build (migration 4)", () => {
  /** A fresh database holding the fixture; its URL. */
  async function loaded(): Promise<string> {
    const url = await server().createDatabase();
    const pool = openPool({ url, applicationName: "fixture-loader" });
    try {
      await pool.query(FIXTURE_SQL);
    } finally {
      // The dump empties search_path for its session: that pool is not used again.
      await pool.end();
    }
    return url;
  }

  const verify = (url: string): Promise<CliRun> => runCli(["verify", "--profile", PROFILE], { MFR_DATABASE_URL: url }, 60_000);

  it("replays without a mismatch, as it was and once migrated, its rows without a build", async () => {
    const url = await loaded();
    const asIs = await verify(url);
    expect(asIs.code, asIs.stdout + asIs.stderr).toBe(0);
    // However this build words its messages: 3418cec's wording may differ, its decisions may not.
    expect(asIs.stdout).toMatch(/^verify: 2 sessions, \d+ stanzas match, \d+ differ in wording only, 0 pending, 0 mismatches/m);

    const pool = openPool({ url, applicationName: "fixture-migrate" });
    try {
      expect((await migrate(pool)).applied).toEqual([5, 6]);
      const unstamped = await pool.query<{ n: string }>("SELECT (SELECT count(*) FROM journal_events WHERE build IS NOT NULL) + (SELECT count(*) FROM journal_sent WHERE build IS NOT NULL OR decisive IS NOT NULL) AS n");
      expect(unstamped.rows[0]?.n).toBe("0");
    } finally {
      await pool.end();
    }
    const migrated = await verify(url);
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    expect(migrated.stdout).toBe(asIs.stdout);
    const [, matched, wording] = / (\d+) stanzas match, (\d+) differ/.exec(migrated.stdout) ?? [];
    expect(Number(matched) + Number(wording)).toBeGreaterThan(10);
  }, 60_000);

  it("reports a tampered copy: a sent record deleted", async () => {
    const url = await loaded();
    const pool = openPool({ url, applicationName: "fixture-tamper" });
    try {
      await pool.query("DELETE FROM journal_sent WHERE seq = (SELECT min(seq) FROM journal_sent WHERE session_id IN (SELECT id FROM journal_archived))");
    } finally {
      await pool.end();
    }
    const run = await verify(url);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/: input \d+, stanza 1 \(ModelContributionRequest\): replay sends it, but it was never recorded as sent$/m);
    expect(run.stdout).toMatch(/ 1 mismatches/);
  }, 60_000);
});
