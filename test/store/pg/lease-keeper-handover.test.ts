/**
 * Two lease keepers (src/fleet/lease-keeper.ts) for the same rooms on a real PostgreSQL,
 * with short leases (2 s) and real time: A owns the room, B stands by. A is cut off from the
 * database, or paused (its timers and the answers it awaits stop, its monotonic clock goes
 * on, as under SIGSTOP): A gives the room up by its own deadline before B's claim succeeds,
 * B then owns it under a higher epoch, and A's late write at its old epoch is fenced out.
 */
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { LeaseKeeper, PROCESS_CLOCK, type KeeperClock, type KeeperLeases, type LossReason } from "../../../src/fleet/lease-keeper.js";
import { withConnection } from "../../../src/store/pg/pool.js";
import { FencedOut, RoomLeases, withFence } from "../../../src/store/pg/room-lease.js";
import { useTestPostgres } from "../../support/postgres.js";
import { sleep, useMigratedDatabases } from "./fixtures.js";

const LEASE_MS = 2000;
const RENEW_MS = 400;
const MARGIN_MS = 500;
const ROOM = "room-a";

const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);

/** Resolves when `check` is true, polling every 10 ms; fails after `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error("timed out waiting");
    await sleep(10);
  }
}

/** A keeper of ROOM for `owner`, recording when it owned and lost it (by the monotonic clock). */
function keeperOf(owner: string, leases: KeeperLeases, clock: KeeperClock = PROCESS_CLOCK) {
  const seen: { owned?: { epoch: number; at: number }; lost?: { why: LossReason; at: number } } = {};
  const hooks: { onOwned?: () => void } = {};
  const keeper = new LeaseKeeper({
    owner,
    rooms: [ROOM],
    leases,
    leaseMs: LEASE_MS,
    renewMs: RENEW_MS,
    marginMs: MARGIN_MS,
    clock,
    onOwned: (_room, epoch) => {
      seen.owned = { epoch, at: performance.now() };
      hooks.onOwned?.();
    },
    onLost: (_room, why) => {
      seen.lost ??= { why, at: performance.now() };
    },
  });
  return { keeper, seen, hooks };
}

/** Leases that can be cut off from the database: from then on no statement is sent and none is answered. */
function severable(leases: RoomLeases): KeeperLeases & { cut(): void } {
  let cut = false;
  const never = new Promise<never>(() => undefined);
  return {
    cut: () => {
      cut = true;
    },
    claimAny: (rooms, owner, ms, max) => (cut ? never : leases.claimAny(rooms, owner, ms, max)),
    renewAll: (owner, held, ms) => (cut ? never : leases.renewAll(owner, held, ms)),
    release: (room, owner, epoch) => (cut ? never : leases.release(room, owner, epoch)),
  };
}

/**
 * A process that can be paused: while paused its timers do not fire and the answers it
 * awaits are not delivered (they come on resuming, timers and answers in the order they came
 * due); its monotonic clock goes on, as under SIGSTOP/SIGCONT.
 */
function pausable(leases: RoomLeases) {
  let paused = false;
  let waiting: (() => void)[] = [];
  const deliver = (fn: () => void): void => {
    if (paused) waiting.push(fn);
    else fn();
  };
  const clock: KeeperClock = {
    now: () => performance.now(),
    setTimer: (fn, ms) => setTimeout(() => deliver(fn), ms),
    clearTimer: (timer) => clearTimeout(timer as NodeJS.Timeout),
  };
  const held = <T>(promise: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) =>
      promise.then(
        (value) => deliver(() => resolve(value)),
        (err: unknown) => deliver(() => reject(err instanceof Error ? err : new Error(String(err)))),
      ),
    );
  const wrapped: KeeperLeases = {
    claimAny: (rooms, owner, ms, max) => held(leases.claimAny(rooms, owner, ms, max)),
    renewAll: (owner, rows, ms) => held(leases.renewAll(owner, rows, ms)),
    release: (room, owner, epoch) => held(leases.release(room, owner, epoch)),
  };
  return {
    clock,
    leases: wrapped,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      const due = waiting;
      waiting = [];
      for (const fn of due) fn();
    },
  };
}

async function fencedWrite(pool: pg.Pool, owner: string, epoch: number): Promise<void> {
  await withConnection(pool, (client) =>
    withFence(client, ROOM, epoch, async (tx) => {
      await tx.query("INSERT INTO fenced_writes (room, owner, epoch) VALUES ($1, $2, $3)", [ROOM, owner, epoch]);
    }),
  );
}

describe("two keepers for the same room", () => {
  it("A cut off from the database gives the room up by its own deadline, before B's claim succeeds; A's late write is fenced out", async () => {
    const { pools } = await database(2);
    const aLeases = severable(new RoomLeases(pools[0]!));
    const a = keeperOf("alpha", aLeases);
    const b = keeperOf("beta", new RoomLeases(pools[1]!));
    let aHeldWhenBOwned: number | undefined | "unseen" = "unseen";
    b.hooks.onOwned = () => {
      aHeldWhenBOwned = a.keeper.holds(ROOM);
    };
    try {
      a.keeper.start();
      await until(() => a.seen.owned !== undefined);
      b.keeper.start();
      await sleep(3 * RENEW_MS);
      expect(b.seen.owned).toBeUndefined(); // B stands by while A renews
      expect(a.keeper.holds(ROOM)).toBe(a.seen.owned!.epoch);

      aLeases.cut();
      await until(() => b.seen.owned !== undefined);
      expect(a.seen.lost?.why).toBe("lease ran out");
      expect(a.seen.lost!.at).toBeLessThan(b.seen.owned!.at);
      expect(aHeldWhenBOwned).toBeUndefined();
      expect(b.seen.owned!.epoch).toBeGreaterThan(a.seen.owned!.epoch);

      await expect(fencedWrite(pools[0]!, "alpha", a.seen.owned!.epoch)).rejects.toBeInstanceOf(FencedOut);
      await fencedWrite(pools[1]!, "beta", b.seen.owned!.epoch);
    } finally {
      await Promise.all([a.keeper.stop(), b.keeper.stop()]);
    }
    const released = await new RoomLeases(pools[1]!).current(ROOM);
    expect(released).toMatchObject({ owner: "beta", epoch: b.seen.owned!.epoch });
    expect(await new RoomLeases(pools[1]!).claim(ROOM, "gamma", LEASE_MS)).toMatchObject({ epoch: b.seen.owned!.epoch + 1 });
  });

  it("A paused past its lease finds the room given up on waking, B owns it under a higher epoch, and A's late write is fenced out", async () => {
    const { pools } = await database(2);
    const paused = pausable(new RoomLeases(pools[0]!));
    const a = keeperOf("alpha", paused.leases, paused.clock);
    const b = keeperOf("beta", new RoomLeases(pools[1]!));
    let aHeldWhenBOwned: number | undefined | "unseen" = "unseen";
    b.hooks.onOwned = () => {
      aHeldWhenBOwned = a.keeper.holds(ROOM);
    };
    try {
      a.keeper.start();
      await until(() => a.seen.owned !== undefined);
      b.keeper.start();
      await sleep(3 * RENEW_MS);
      expect(b.seen.owned).toBeUndefined();

      paused.pause();
      await until(() => b.seen.owned !== undefined);
      // B's claim went through only after A's own deadline had passed.
      expect(aHeldWhenBOwned).toBeUndefined();
      expect(b.seen.owned!.epoch).toBeGreaterThan(a.seen.owned!.epoch);
      expect(a.seen.lost).toBeUndefined(); // A sleeps: nothing of it has run

      paused.resume();
      await until(() => a.seen.lost !== undefined, LEASE_MS);
      expect(a.seen.lost!.why).toBe("lease ran out");
      expect(a.keeper.holds(ROOM)).toBeUndefined();
      await sleep(2 * RENEW_MS);
      expect(a.keeper.holds(ROOM)).toBeUndefined(); // late answers did not revive it, and B holds it

      await expect(fencedWrite(pools[0]!, "alpha", a.seen.owned!.epoch)).rejects.toBeInstanceOf(FencedOut);
      await fencedWrite(pools[1]!, "beta", b.seen.owned!.epoch);
      const writes = await pools[1]!.query<{ owner: string }>("SELECT owner FROM fenced_writes WHERE room = $1", [ROOM]);
      expect(writes.rows.map((row) => row.owner)).toEqual(["beta"]);
    } finally {
      paused.resume();
      await Promise.all([a.keeper.stop(), b.keeper.stop()]);
    }
  });
});
