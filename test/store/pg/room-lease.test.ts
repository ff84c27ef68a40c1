/**
 * Room leases against a real PostgreSQL, with short leases (300 ms) and real waiting: claim,
 * renew and release by the database's clock, racing claimers, and fenced writes of an
 * instance that lost its room.
 */
import type pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { withConnection } from "../../../src/store/pg/pool.js";
import { FencedOut, RoomLeases, checkLeaseMs, withFence, type RoomLease } from "../../../src/store/pg/room-lease.js";
import { useTestPostgres } from "../../support/postgres.js";
import { sleep, useMigratedDatabases } from "./fixtures.js";

/** A lease that must run out during the test: short, waited out for real. */
const LEASE_MS = 300;
/** Past a 300 ms lease, with room for a busy machine's timers. */
const PAST_LEASE_MS = LEASE_MS + 100;
/**
 * A lease that must still run when the test looks: long enough that no stall of a busy
 * machine between two statements lets it run out (a 300 ms lease did, once, between a claim
 * and the next statement while another test suite loaded the machine).
 */
const RUNNING_MS = 60_000;

const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);

async function dbNow(pool: pg.Pool): Promise<number> {
  const result = await pool.query<{ now: Date }>("SELECT now() AS now");
  return result.rows[0]!.now.getTime();
}

/** Writes one row for `room` through the fence, as `owner` at `epoch`, on a connection of its own. */
async function fencedWrite(pool: pg.Pool, room: string, owner: string, epoch: number, during?: () => Promise<void>): Promise<void> {
  await withConnection(pool, (client) =>
    withFence(client, room, epoch, async (tx) => {
      await tx.query("INSERT INTO fenced_writes (room, owner, epoch) VALUES ($1, $2, $3)", [room, owner, epoch]);
      await during?.();
    }),
  );
}

async function writesOf(pool: pg.Pool, room: string): Promise<string[]> {
  const result = await pool.query<{ owner: string; epoch: string }>(
    "SELECT owner, epoch::text AS epoch FROM fenced_writes WHERE room = $1 ORDER BY id",
    [room],
  );
  return result.rows.map((row) => `${row.owner}@${row.epoch}`);
}

describe("claim", () => {
  it("takes a room never claimed at epoch 1, for leaseMs by the database's clock", async () => {
    const { pools } = await database(1);
    const leases = new RoomLeases(pools[0]!);
    const before = await dbNow(pools[0]!);
    const lease = await leases.claim("room-a", "alpha", LEASE_MS);
    const after = await dbNow(pools[0]!);
    expect(lease).toMatchObject({ room: "room-a", owner: "alpha", epoch: 1 });
    expect(lease!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + LEASE_MS);
    expect(lease!.expiresAt.getTime()).toBeLessThanOrEqual(after + LEASE_MS);
    expect(await leases.current("room-a")).toEqual(lease);
    expect(await leases.current("room-never")).toBeUndefined();
  });

  it("fails while the lease runs, for another owner and for the owner itself; succeeds after expiry with the next epoch", async () => {
    const { pools } = await database(2);
    const [alpha, beta] = pools.map((pool) => new RoomLeases(pool));
    expect((await alpha!.claim("room-a", "alpha", RUNNING_MS))?.epoch).toBe(1);
    expect(await beta!.claim("room-a", "beta", LEASE_MS)).toBeUndefined();
    expect(await alpha!.claim("room-a", "alpha", LEASE_MS)).toBeUndefined();
    expect((await alpha!.claim("room-b", "alpha", LEASE_MS))?.epoch).toBe(1);
    await sleep(PAST_LEASE_MS);
    expect(await beta!.claim("room-b", "beta", RUNNING_MS)).toMatchObject({ owner: "beta", epoch: 2 });
    expect(await alpha!.claim("room-b", "alpha", LEASE_MS)).toBeUndefined();
  });

  it("goes by the database's clock, not the instance's: an instance whose clock runs an hour ahead still finds the lease running", async () => {
    const { pools } = await database(2);
    const [alpha, beta] = pools.map((pool) => new RoomLeases(pool));
    const lease = (await alpha!.claim("room-a", "alpha", 60_000))!;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 3_600_000);
      expect(Date.now()).toBeGreaterThan(lease.expiresAt.getTime());
      expect(await beta!.claim("room-a", "beta", LEASE_MS)).toBeUndefined();
      expect(await alpha!.renew("room-a", "alpha", lease.epoch, 60_000)).toMatchObject({ epoch: lease.epoch });
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps rooms apart", async () => {
    const { pools } = await database(1);
    const leases = new RoomLeases(pools[0]!);
    expect((await leases.claim("room-a", "alpha", LEASE_MS))?.epoch).toBe(1);
    expect((await leases.claim("room-b", "beta", LEASE_MS))?.epoch).toBe(1);
  });

  it("rejects a lease length that is not a whole number of milliseconds from 1 ms to a day", async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 86_400_001]) expect(() => checkLeaseMs(bad)).toThrow(RangeError);
    const { pools } = await database(1);
    await expect(new RoomLeases(pools[0]!).claim("room-a", "alpha", 0)).rejects.toThrow(RangeError);
  });
});

describe("renew", () => {
  it("extends the lease of the current owner at the current epoch, keeping others out past the first expiry", async () => {
    const { pools } = await database(2);
    const [alpha, beta] = pools.map((pool) => new RoomLeases(pool));
    const first = (await alpha!.claim("room-a", "alpha", 1000))!;
    const renewed = await alpha!.renew("room-a", "alpha", first.epoch, RUNNING_MS);
    expect(renewed).toMatchObject({ owner: "alpha", epoch: first.epoch });
    expect(renewed!.expiresAt.getTime()).toBeGreaterThan(first.expiresAt.getTime());
    await sleep(1100);
    // The first lease would have expired; the renewed one has not.
    expect(await beta!.claim("room-a", "beta", LEASE_MS)).toBeUndefined();
    const again = await alpha!.renew("room-a", "alpha", first.epoch, RUNNING_MS);
    expect(again!.expiresAt.getTime()).toBeGreaterThan(renewed!.expiresAt.getTime());
  });

  it("fails for another owner, for another epoch, and after expiry even when nobody claimed the room", async () => {
    const { pools } = await database(1);
    const leases = new RoomLeases(pools[0]!);
    const lease = (await leases.claim("room-a", "alpha", LEASE_MS))!;
    expect(await leases.renew("room-a", "beta", lease.epoch, LEASE_MS)).toBeUndefined();
    expect(await leases.renew("room-a", "alpha", lease.epoch + 1, LEASE_MS)).toBeUndefined();
    expect(await leases.renew("room-b", "alpha", lease.epoch, LEASE_MS)).toBeUndefined();
    await sleep(PAST_LEASE_MS);
    expect(await leases.renew("room-a", "alpha", lease.epoch, LEASE_MS)).toBeUndefined();
    // An expired lease is not revived: its owner claims again, under a new epoch.
    expect(await leases.claim("room-a", "alpha", LEASE_MS)).toMatchObject({ owner: "alpha", epoch: 2 });
  });
});

describe("release", () => {
  it("ends the lease at once: another instance claims the room without waiting, at the next epoch", async () => {
    const { pools } = await database(2);
    const [alpha, beta] = pools.map((pool) => new RoomLeases(pool));
    const lease = (await alpha!.claim("room-a", "alpha", 60_000))!;
    expect(await alpha!.release("room-a", "beta", lease.epoch)).toBe(false);
    expect(await alpha!.release("room-a", "alpha", lease.epoch + 1)).toBe(false);
    expect(await beta!.claim("room-a", "beta", LEASE_MS)).toBeUndefined();
    expect(await alpha!.release("room-a", "alpha", lease.epoch)).toBe(true);
    expect(await alpha!.release("room-a", "alpha", lease.epoch)).toBe(false);
    expect(await alpha!.renew("room-a", "alpha", lease.epoch, LEASE_MS)).toBeUndefined();
    expect(await beta!.claim("room-a", "beta", LEASE_MS)).toMatchObject({ owner: "beta", epoch: 2 });
    expect(await alpha!.release("room-a", "alpha", lease.epoch)).toBe(false);
  });
});

describe("racing claimers", () => {
  it("exactly one of two instances claiming a new room at the same moment wins", async () => {
    const { pools } = await database(2);
    const [alpha, beta] = pools.map((pool) => new RoomLeases(pool));
    for (let round = 0; round < 60; round++) {
      const room = `room-${round}`;
      const [a, b] = await Promise.all([alpha!.claim(room, "alpha", LEASE_MS), beta!.claim(room, "beta", LEASE_MS)]);
      expect([a, b].filter((lease) => lease !== undefined)).toHaveLength(1);
      expect((a ?? b)!.epoch).toBe(1);
      expect((await alpha!.current(room))?.owner).toBe((a ?? b)!.owner);
    }
  });

  it("exactly one of three instances claiming an expired room at the same moment wins, at the next epoch", async () => {
    const { pools } = await database(3);
    const leases = pools.map((pool) => new RoomLeases(pool));
    const owners = ["alpha", "beta", "gamma"];
    const rooms = Array.from({ length: 20 }, (_, i) => `room-${i}`);
    for (const room of rooms) await leases[0]!.claim(room, "first", 1);
    await sleep(20);
    // A lease of a second: the winner's must still run when the slowest of the three asks.
    for (let round = 2; round <= 4; round++) {
      for (const room of rooms) {
        const results = await Promise.all(leases.map((lease, i) => lease.claim(room, owners[i]!, 1000)));
        const won = results.filter((lease) => lease !== undefined);
        expect(won).toHaveLength(1);
        expect(won[0]!.epoch).toBe(round);
      }
      await sleep(1100);
    }
  });
});

describe("withFence", () => {
  it("lets the owner write at its epoch, and refuses a former owner's write after another instance took over, writing nothing", async () => {
    const { pools } = await database(2);
    const [alpha, beta] = pools.map((pool) => new RoomLeases(pool));
    const mine = (await alpha!.claim("room-a", "alpha", LEASE_MS))!;
    await fencedWrite(pools[0]!, "room-a", "alpha", mine.epoch);
    await sleep(PAST_LEASE_MS); // alpha "paused": its lease expired
    const theirs = (await beta!.claim("room-a", "beta", LEASE_MS))!;
    expect(theirs.epoch).toBe(mine.epoch + 1);
    let ran = false;
    await withConnection(pools[0]!, async (client) => {
      const error = await withFence(client, "room-a", mine.epoch, async () => {
        ran = true;
      }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(FencedOut);
      expect(error).toMatchObject({ room: "room-a", epoch: mine.epoch, currentEpoch: theirs.epoch });
      // The connection is usable again, not left inside an aborted transaction.
      expect((await client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    });
    expect(ran).toBe(false);
    await expect(fencedWrite(pools[0]!, "room-a", "alpha", mine.epoch)).rejects.toBeInstanceOf(FencedOut);
    await fencedWrite(pools[1]!, "room-a", "beta", theirs.epoch);
    expect(await writesOf(pools[0]!, "room-a")).toEqual(["alpha@1", "beta@2"]);
  });

  it("refuses a write for a room that has no lease", async () => {
    const { pools } = await database(1);
    const error = await fencedWrite(pools[0]!, "room-none", "alpha", 1).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FencedOut);
    expect(error).toMatchObject({ currentEpoch: undefined });
    expect(await writesOf(pools[0]!, "room-none")).toEqual([]);
  });

  it("rolls back the writes of a function that throws", async () => {
    const { pools } = await database(1);
    const lease = (await new RoomLeases(pools[0]!).claim("room-a", "alpha", 60_000))!;
    await expect(
      fencedWrite(pools[0]!, "room-a", "alpha", lease.epoch, async () => {
        throw new Error("the session core refused");
      }),
    ).rejects.toThrow("the session core refused");
    expect(await writesOf(pools[0]!, "room-a")).toEqual([]);
  });

  it("keeps a claim out while a write begun at the current epoch is under way, without making the claim wait; the claim succeeds after the commit", async () => {
    const { pools } = await database(2);
    const [alpha, beta] = pools.map((pool) => new RoomLeases(pool));
    const mine = (await alpha!.claim("room-a", "alpha", LEASE_MS))!;
    const events: string[] = [];
    await fencedWrite(pools[0]!, "room-a", "alpha", mine.epoch, async () => {
      await sleep(PAST_LEASE_MS); // the lease expires while the write is in its transaction
      const started = performance.now();
      const lease = await beta!.claim("room-a", "beta", LEASE_MS);
      events.push(`claim during the write: ${lease?.epoch ?? "refused"}`);
      // Refused at once (the row is passed over), not after the write: the write is still open.
      expect(performance.now() - started).toBeLessThan(PAST_LEASE_MS);
      events.push("write commits");
    });
    events.push(`claim after the commit: ${(await beta!.claim("room-a", "beta", LEASE_MS))?.epoch}`);
    expect(events).toEqual(["claim during the write: refused", "write commits", "claim after the commit: 2"]);
    expect(await writesOf(pools[0]!, "room-a")).toEqual(["alpha@1"]);
  });

  it("does not hold up the owner's renewal while its write is under way", async () => {
    const { pools } = await database(2);
    const alpha = new RoomLeases(pools[1]!);
    const mine = (await alpha.claim("room-a", "alpha", RUNNING_MS))!;
    let renewed: RoomLease | undefined;
    await fencedWrite(pools[0]!, "room-a", "alpha", mine.epoch, async () => {
      // Inside the write's transaction, on another connection: answered before the write commits.
      renewed = await alpha.renew("room-a", "alpha", mine.epoch, RUNNING_MS);
    });
    expect(renewed).toMatchObject({ owner: "alpha", epoch: mine.epoch });
    expect(await writesOf(pools[0]!, "room-a")).toEqual(["alpha@1"]);
  });
});

describe("an owner stopped inside a write", () => {
  it("cannot hold the room: the database ends its silent transaction, a standby claims the room at the next epoch, and the late commit writes nothing", async () => {
    const IDLE_LIMIT_MS = 200;
    const { pools } = await database(2, { limits: { idleInTransactionMs: IDLE_LIMIT_MS } });
    const [alpha, beta] = pools.map((pool) => new RoomLeases(pool));
    const mine = (await alpha!.claim("room-a", "alpha", LEASE_MS))!;
    const claims: Array<number | "refused"> = [];
    // The owner's client falls silent between its write and its commit (a process stopped
    // there says nothing either); meanwhile a standby asks for the room every 100 ms.
    const write = fencedWrite(pools[0]!, "room-a", "alpha", mine.epoch, async () => {
      for (let i = 0; i < 10; i++) {
        await sleep(100);
        const lease = await beta!.claim("room-a", "beta", LEASE_MS);
        claims.push(lease?.epoch ?? "refused");
        if (lease) break;
      }
    });
    await expect(write).rejects.toThrow(/idle-in-transaction|terminat|Connection/i);
    // Refused while the lease ran, taken once it ran out and the silent transaction was ended.
    expect(claims.at(-1)).toBe(mine.epoch + 1);
    expect(claims.slice(0, -1).every((c) => c === "refused")).toBe(true);
    expect(claims.length).toBeLessThanOrEqual(Math.ceil((Math.max(LEASE_MS, IDLE_LIMIT_MS) + 300) / 100));
    expect(await writesOf(pools[1]!, "room-a")).toEqual([]);
    // The former owner's next write is fenced out; the new owner's goes through.
    await expect(fencedWrite(pools[0]!, "room-a", "alpha", mine.epoch)).rejects.toBeInstanceOf(FencedOut);
    await fencedWrite(pools[1]!, "room-a", "beta", mine.epoch + 1);
    expect(await writesOf(pools[1]!, "room-a")).toEqual(["beta@2"]);
  });
});

/** Ends `room`'s lease in the past by the database's clock, as if it had run out. */
async function expire(pool: pg.Pool, room: string): Promise<void> {
  await pool.query("UPDATE room_leases SET expires_at = now() - interval '1 second' WHERE room = $1", [room]);
}

describe("claimAny and renewAll: one statement for many rooms", () => {
  it("claims up to max of the free rooms in the order given: never claimed at epoch 1, expired at the next epoch, never one held", async () => {
    const { pools } = await database(1);
    const leases = new RoomLeases(pools[0]!);
    await leases.claim("b", "other", RUNNING_MS);
    await leases.claim("c", "other", RUNNING_MS);
    await expire(pools[0]!, "c");
    const won = await leases.claimAny(["a", "b", "c", "d"], "alpha", RUNNING_MS, 2);
    expect([...won.keys()].sort()).toEqual(["a", "c"]);
    expect(won.get("a")).toMatchObject({ owner: "alpha", epoch: 1 });
    expect(won.get("c")).toMatchObject({ owner: "alpha", epoch: 2 });
    expect(await leases.current("b")).toMatchObject({ owner: "other", epoch: 1 });
    expect(await leases.current("d")).toBeUndefined();
    // The next pass takes what is left, and nothing is free after that.
    expect([...(await leases.claimAny(["a", "b", "c", "d"], "alpha", RUNNING_MS, 5)).keys()]).toEqual(["d"]);
    expect((await leases.claimAny(["a", "b", "c", "d"], "beta", RUNNING_MS, 5)).size).toBe(0);
  });

  it("gives each room of a race to exactly one of two instances claiming the same free rooms at the same moment", async () => {
    const { pools } = await database(2);
    const rooms = Array.from({ length: 20 }, (_, i) => `room-${i}`);
    const [alpha, beta] = await Promise.all([new RoomLeases(pools[0]!).claimAny(rooms, "alpha", RUNNING_MS, 20), new RoomLeases(pools[1]!).claimAny(rooms, "beta", RUNNING_MS, 20)]);
    for (const room of rooms) {
      const current = await new RoomLeases(pools[0]!).current(room);
      const winner = alpha.has(room) ? "alpha" : beta.has(room) ? "beta" : undefined;
      expect(alpha.has(room) && beta.has(room), room).toBe(false);
      // A room nobody won was inserted by one while the other passed over it: it is the inserter's.
      expect(current?.owner, room).toBe(winner ?? current?.owner);
      expect(current?.epoch, room).toBe(1);
    }
    expect(alpha.size + beta.size).toBe(rooms.length);
  });

  it("shares the free rooms among the instances claiming now: each takes its share, together all of them, and one that stopped claiming no longer counts", async () => {
    const { pools } = await database(3);
    const rooms = Array.from({ length: 30 }, (_, i) => `room-${i}`);
    const [alpha, beta, gamma] = pools.map((pool) => new RoomLeases(pool));
    const share = (held: number, seenMs = RUNNING_MS) => ({ units: rooms.length, held, seenMs });
    // The rooms have rows (an earlier run's owner, gone): a claim at the same moment then
    // locks its share of them. (Rooms never claimed before are inserted instead, where two
    // claims at once may choose the same ones: the one that loses takes its share a period later.)
    for (const room of rooms) await alpha!.claim(room, "earlier", RUNNING_MS);
    for (const room of rooms) await expire(pools[0]!, room);
    // Three instances started together: each first only says it is claiming.
    for (const [leases, who] of [[alpha, "alpha"], [beta, "beta"], [gamma, "gamma"]] as const) expect((await leases!.claimAny(rooms, who, RUNNING_MS, 0, share(0))).size).toBe(0);
    // Then all claim at once: a third each, and every room taken.
    const won = await Promise.all([alpha!.claimAny(rooms, "alpha", RUNNING_MS, 30, share(0)), beta!.claimAny(rooms, "beta", RUNNING_MS, 30, share(0)), gamma!.claimAny(rooms, "gamma", RUNNING_MS, 30, share(0))]);
    expect(won.map((w) => w.size)).toEqual([10, 10, 10]);
    expect(new Set(won.flatMap((w) => [...w.keys()])).size).toBe(30);
    // Gamma's rooms come free; it stopped claiming long ago (its count ran out): alpha and beta take 5 each.
    for (const room of won[2]!.keys()) await expire(pools[0]!, room);
    await pools[0]!.query("UPDATE fleet_claimers SET seen_until = now() - interval '1 second' WHERE instance = 'gamma'");
    const after = await Promise.all([alpha!.claimAny(rooms, "alpha", RUNNING_MS, 30, share(10)), beta!.claimAny(rooms, "beta", RUNNING_MS, 30, share(10))]);
    expect(after.map((w) => w.size)).toEqual([5, 5]);
    // Never beyond max: a share larger than max takes max.
    expect((await new RoomLeases(pools[0]!).claimAny(["solo-1", "solo-2", "solo-3"], "delta", RUNNING_MS, 1, { units: 3, held: 0, seenMs: 1000 })).size).toBe(1);
  });

  it("passes over a room whose row a write has locked, without waiting, and takes it after the commit", async () => {
    const { pools } = await database(2);
    const [alpha, beta] = pools.map((pool) => new RoomLeases(pool));
    const mine = (await alpha!.claim("room-a", "alpha", RUNNING_MS))!;
    await expire(pools[1]!, "room-a");
    let during: ReadonlyMap<string, RoomLease> | undefined;
    await fencedWrite(pools[0]!, "room-a", "alpha", mine.epoch, async () => {
      const started = performance.now();
      during = await beta!.claimAny(["room-a", "room-b"], "beta", RUNNING_MS, 2);
      expect(performance.now() - started).toBeLessThan(PAST_LEASE_MS);
    });
    expect([...during!.keys()]).toEqual(["room-b"]);
    expect([...(await beta!.claimAny(["room-a"], "beta", RUNNING_MS, 1)).values()]).toMatchObject([{ room: "room-a", epoch: 2 }]);
  });

  it("renews each running lease of the owner at its epoch, and not one that expired, changed hands or is at another epoch", async () => {
    const { pools } = await database(1);
    const leases = new RoomLeases(pools[0]!);
    const a = (await leases.claim("a", "alpha", LEASE_MS))!;
    const b = (await leases.claim("b", "alpha", RUNNING_MS))!;
    const c = (await leases.claim("c", "alpha", RUNNING_MS))!;
    await expire(pools[0]!, "c");
    await leases.claim("c", "beta", RUNNING_MS); // c changed hands
    const d = (await leases.claim("d", "alpha", RUNNING_MS))!;
    await expire(pools[0]!, "d"); // d expired, nobody claimed it
    const renewed = await leases.renewAll("alpha", [{ room: "a", epoch: a.epoch }, { room: "b", epoch: b.epoch + 1 }, { room: "c", epoch: c.epoch }, { room: "d", epoch: d.epoch }], RUNNING_MS);
    expect([...renewed.keys()]).toEqual(["a"]);
    expect(renewed.get("a")!.expiresAt.getTime()).toBeGreaterThan(a.expiresAt.getTime());
    expect(await leases.current("c")).toMatchObject({ owner: "beta", epoch: 2 });
    expect((await leases.current("d"))!.expiresAt.getTime()).toBeLessThan(await dbNow(pools[0]!));
    expect((await leases.renewAll("alpha", [], RUNNING_MS)).size).toBe(0);
  });
});
