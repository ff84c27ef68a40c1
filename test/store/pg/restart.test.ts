/**
 * The database goes away and comes back: PostgreSQL is killed (SIGKILL, as in a crash) and
 * started again on the same directory. A lease and a write committed before survive, a
 * write in flight at the crash does not, and the instances' pools reconnect on their own.
 * Also the throw-away server's own promises: stop() leaves nothing behind, and a missing
 * PostgreSQL is an error naming the install command.
 */
import { existsSync } from "node:fs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { canConnect } from "../../../src/localserver/port.js";
import { withConnection } from "../../../src/store/pg/pool.js";
import { RoomLeases, withFence } from "../../../src/store/pg/room-lease.js";
import { POSTGRES_INSTALL_COMMAND, PostgresNotInstalledError, startTestPostgres, useTestPostgres } from "../../support/postgres.js";
import { sleep, useMigratedDatabases } from "./fixtures.js";

const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);

async function writesOf(pool: pg.Pool, room: string): Promise<string[]> {
  const result = await pool.query<{ owner: string; epoch: string }>(
    "SELECT owner, epoch::text AS epoch FROM fenced_writes WHERE room = $1 ORDER BY id",
    [room],
  );
  return result.rows.map((row) => `${row.owner}@${row.epoch}`);
}

describe("PostgreSQL killed and started again", () => {
  it("keeps the lease and the writes committed before, loses the one in flight, and the pool reconnects", async () => {
    const { url, pools } = await database(1);
    const pool = pools[0]!;
    const leases = new RoomLeases(pool);
    const lease = (await leases.claim("room-a", "alpha", 60_000))!;
    const write = async (during?: () => Promise<void>): Promise<void> => {
      await withConnection(pool, (client) =>
        withFence(client, "room-a", lease.epoch, async (tx) => {
          await tx.query("INSERT INTO fenced_writes (room, owner, epoch) VALUES ('room-a', 'alpha', $1)", [lease.epoch]);
          await during?.();
        }),
      );
    };
    await write();

    // Crash in the middle of a fenced write: its transaction never commits.
    const inFlight = write(() => sleep(1_500));
    await sleep(100);
    const pid = server().pid;
    await server().kill();
    expect(server().running).toBe(false);
    await expect(inFlight).rejects.toThrow();
    await expect(pool.query("SELECT 1")).rejects.toThrow();

    await server().restart();
    expect(server().pid).not.toBe(pid);
    expect(await leases.current("room-a")).toEqual(lease);
    expect(await writesOf(pool, "room-a")).toEqual(["alpha@1"]);
    expect(await leases.renew("room-a", "alpha", lease.epoch, 60_000)).toMatchObject({ epoch: lease.epoch });
    await write();
    expect(await writesOf(pool, "room-a")).toEqual(["alpha@1", "alpha@1"]);
    // Another instance still cannot claim the room: the renewed lease runs.
    const other = new pg.Client(url);
    await other.connect();
    try {
      expect(await new RoomLeases(other).claim("room-a", "beta", 60_000)).toBeUndefined();
    } finally {
      await other.end();
    }
  });
});

describe("the throw-away PostgreSQL", () => {
  it("stop() ends the server and removes its directory", async () => {
    const own = await startTestPostgres();
    const { dir, port } = own;
    expect(existsSync(dir)).toBe(true);
    await own.stop();
    expect(own.running).toBe(false);
    expect(existsSync(dir)).toBe(false);
    expect(await canConnect("127.0.0.1", port)).toBe(false);
    await own.stop(); // idempotent
  });

  it("names the install command when PostgreSQL is missing", () => {
    const error = new PostgresNotInstalledError();
    expect(error.message).toContain("apt-get install -y postgresql");
    expect(error.installCommand).toBe(POSTGRES_INSTALL_COMMAND);
  });
});
