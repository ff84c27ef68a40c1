/**
 * The shared store's migrations against a real PostgreSQL: applied exactly once when
 * instances start at the same moment, all or nothing, and a schema newer than the code is
 * refused without being touched.
 */
import type pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import {
  MIGRATIONS,
  SCHEMA_TABLE,
  SchemaMismatchError,
  SchemaTooNewError,
  checkMigrationOrder,
  migrate,
  schemaVersionOf,
  type Migration,
} from "../../../src/store/pg/migrations.js";
import { openPool } from "../../../src/store/pg/pool.js";
import { useTestPostgres } from "../../support/postgres.js";

const { server } = useTestPostgres();
const pools: pg.Pool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

/** A fresh database and `count` pools on it (as many instances). */
async function instances(count: number): Promise<pg.Pool[]> {
  const url = await server().createDatabase();
  const opened = Array.from({ length: count }, (_, i) => openPool({ url, applicationName: `instance-${i}` }));
  pools.push(...opened);
  return opened;
}

async function appliedVersions(pool: pg.Pool): Promise<number[]> {
  const result = await pool.query<{ version: number }>(`SELECT version FROM ${SCHEMA_TABLE} ORDER BY version`);
  return result.rows.map((row) => row.version);
}

const withSecond: Migration[] = [
  ...MIGRATIONS,
  { version: MIGRATIONS.length + 1, name: "a later table", sql: "CREATE TABLE later_things (id integer PRIMARY KEY)" },
];

describe("migrate", () => {
  it("brings a new database to the newest version and records each migration", async () => {
    const [pool] = await instances(1);
    const outcome = await migrate(pool!);
    expect(outcome).toEqual({ from: 0, to: MIGRATIONS.length, applied: MIGRATIONS.map((m) => m.version) });
    expect(await appliedVersions(pool!)).toEqual(MIGRATIONS.map((m) => m.version));
    const columns = await pool!.query<{ column_name: string; data_type: string }>(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'room_leases' ORDER BY ordinal_position",
    );
    expect(columns.rows.map((c) => `${c.column_name} ${c.data_type}`)).toEqual([
      "room text",
      "owner text",
      "epoch bigint",
      "expires_at timestamp with time zone",
      "claimed_at timestamp with time zone",
    ]);
    expect(await migrate(pool!)).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length, applied: [] });
  });

  it("applies each migration exactly once when instances start at the same moment", async () => {
    for (let round = 0; round < 5; round++) {
      const racers = await instances(3);
      const outcomes = await Promise.all(racers.map((pool) => migrate(pool, withSecond)));
      const applied = outcomes.flatMap((o) => o.applied).sort((a, b) => a - b);
      expect(applied).toEqual(withSecond.map((m) => m.version));
      // All pending migrations of one start go in one transaction: one instance applied them all.
      expect(outcomes.filter((o) => o.applied.length > 0)).toHaveLength(1);
      expect(await appliedVersions(racers[0]!)).toEqual(withSecond.map((m) => m.version));
      await Promise.all(racers.map((pool) => pool.end()));
      pools.splice(0);
    }
  });

  it("applies only the migrations a database lacks", async () => {
    const [pool] = await instances(1);
    await migrate(pool!);
    expect(await migrate(pool!, withSecond)).toEqual({
      from: MIGRATIONS.length,
      to: withSecond.length,
      applied: [withSecond.length],
    });
    await pool!.query("INSERT INTO later_things (id) VALUES (1)");
  });

  it("refuses a database whose schema is newer than the code, changing nothing", async () => {
    const [pool] = await instances(1);
    await migrate(pool!, withSecond);
    const error = await migrate(pool!).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(SchemaTooNewError);
    expect(error).toMatchObject({ databaseVersion: withSecond.length, codeVersion: MIGRATIONS.length });
    expect(String((error as Error).message)).toMatch(/newer than this coordinator knows.*upgrade the coordinator/);
    expect(await schemaVersionOf(pool!)).toBe(withSecond.length);
  });

  it("refuses a database migrated by other code (another migration under the same version), changing nothing", async () => {
    const [pool] = await instances(1);
    const otherBranch: Migration[] = [
      ...MIGRATIONS,
      { version: MIGRATIONS.length + 1, name: "another branch's table", sql: "CREATE TABLE other_things (id integer)" },
    ];
    await migrate(pool!, otherBranch);
    const error = await migrate(pool!, withSecond).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error).toMatchObject({ version: withSecond.length, databaseName: "another branch's table", codeName: "a later table" });
    const tables = await pool!.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'later_things'");
    expect(tables.rowCount).toBe(0);
  });

  it("applies nothing when one pending migration fails", async () => {
    const [pool] = await instances(1);
    const broken: Migration[] = [...withSecond, { version: withSecond.length + 1, name: "broken", sql: "CREATE TABLE (" }];
    await expect(migrate(pool!, broken)).rejects.toThrow(/syntax error/);
    expect(await schemaVersionOf(pool!)).toBe(0);
    const tables = await pool!.query("SELECT 1 FROM information_schema.tables WHERE table_name IN ('room_leases', 'later_things')");
    expect(tables.rowCount).toBe(0);
  });

  it("rejects a list whose versions do not run 1, 2, 3, … before touching the database", () => {
    expect(() => checkMigrationOrder(MIGRATIONS)).not.toThrow();
    expect(() => checkMigrationOrder([{ version: 2, name: "gap", sql: "" }])).toThrow(/must run 1, 2, 3/);
    expect(() =>
      checkMigrationOrder([
        { version: 1, name: "a", sql: "" },
        { version: 1, name: "again", sql: "" },
      ]),
    ).toThrow(/must run 1, 2, 3/);
  });
});
