/**
 * What the shared store's tests have in common: a fresh migrated database per test on the
 * file's own PostgreSQL, pools on it (one per simulated coordinator instance, with the
 * session limits a test asks for) ended after
 * each test, and a table for fenced writes.
 */
import type pg from "pg";
import { afterEach } from "vitest";
import { migrate } from "../../../src/store/pg/migrations.js";
import { openPool, type SessionLimits } from "../../../src/store/pg/pool.js";
import type { TestPostgres } from "../../support/postgres.js";

/** A table the tests write to through withFence: one row per write, with the writer's owner and epoch. */
export const FENCED_WRITES_DDL =
  "CREATE TABLE fenced_writes (id serial PRIMARY KEY, room text NOT NULL, owner text NOT NULL, epoch bigint NOT NULL)";

/** Pools ended after each test of the calling file; `database(n)` opens a fresh migrated database and n pools on it. */
export function useMigratedDatabases(server: () => TestPostgres): {
  database: (instances: number, options?: { limits?: SessionLimits }) => Promise<{ url: string; pools: pg.Pool[] }>;
} {
  const opened: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((pool) => pool.end().catch(() => undefined)));
  });
  return {
    database: async (instances, options = {}) => {
      const url = await server().createDatabase();
      const pools = Array.from({ length: instances }, (_, i) => openPool({ url, applicationName: `instance-${i}`, ...(options.limits ? { limits: options.limits } : {}) }));
      opened.push(...pools);
      await migrate(pools[0]!);
      await pools[0]!.query(FENCED_WRITES_DDL);
      return { url, pools };
    },
  };
}

/** Resolves after `ms` of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
