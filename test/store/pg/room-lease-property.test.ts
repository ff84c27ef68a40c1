/**
 * A property over interleavings of claim, renew, release, expiry and fenced writes by three
 * instances sharing one room, against a real PostgreSQL. Each step's outcome is predicted by
 * a small model and checked against the database, and throughout:
 *   - at most one owner at any epoch;
 *   - the epoch strictly increases at each change of hands (every successful claim);
 *   - a fenced write with a stale epoch always fails with FencedOut and writes nothing.
 *
 * Expiry is the database's clock moving past the lease: the step moves the lease's end to
 * the past (the timing tests in room-lease.test.ts wait for real expiry), so the outcome of
 * every step is known in advance however busy the machine is. Two owners claiming at the
 * same moment is a step of its own.
 */
import fc from "fast-check";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { withConnection } from "../../../src/store/pg/pool.js";
import { FencedOut, RoomLeases, withFence } from "../../../src/store/pg/room-lease.js";
import { useTestPostgres } from "../../support/postgres.js";
import { useMigratedDatabases } from "./fixtures.js";

const OWNERS = ["alpha", "beta", "gamma"] as const;
type Owner = (typeof OWNERS)[number];
const LONG_LEASE_MS = 3_600_000;

type Step =
  | { kind: "claim"; owner: Owner }
  | { kind: "race"; owners: [Owner, Owner] }
  | { kind: "renew"; owner: Owner }
  | { kind: "release"; owner: Owner }
  | { kind: "expire" }
  | { kind: "write"; owner: Owner };

const owner = fc.constantFrom(...OWNERS);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: owner.map((o): Step => ({ kind: "claim", owner: o })) },
  {
    weight: 2,
    arbitrary: fc.uniqueArray(owner, { minLength: 2, maxLength: 2 }).map((os): Step => ({ kind: "race", owners: [os[0]!, os[1]!] })),
  },
  { weight: 2, arbitrary: owner.map((o): Step => ({ kind: "renew", owner: o })) },
  { weight: 1, arbitrary: owner.map((o): Step => ({ kind: "release", owner: o })) },
  { weight: 2, arbitrary: fc.constant<Step>({ kind: "expire" }) },
  { weight: 4, arbitrary: owner.map((o): Step => ({ kind: "write", owner: o })) },
);

/** What the database should hold: the room's lease, and the epoch each instance last claimed (what it believes it holds). */
interface Model {
  lease: { owner: Owner; epoch: number; running: boolean } | undefined;
  believed: Map<Owner, number>;
  /** Owner of each epoch ever claimed. */
  owners: Map<number, Owner>;
  writes: string[];
}

const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);

describe("room leases under any interleaving of three instances", () => {
  it("keep one owner per epoch, raise the epoch at each claim, and fence every stale write", async () => {
    const { pools } = await database(3);
    const leases = new Map(OWNERS.map((o, i) => [o, new RoomLeases(pools[i]!)] as const));
    const poolOf = new Map(OWNERS.map((o, i) => [o, pools[i]!] as const));
    let run = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        run += 1;
        const room = `room-${run}`;
        const model: Model = { lease: undefined, believed: new Map(), owners: new Map(), writes: [] };
        const free = (): boolean => model.lease === undefined || !model.lease.running;
        const holds = (o: Owner): boolean =>
          model.lease !== undefined && model.lease.running && model.lease.owner === o && model.believed.get(o) === model.lease.epoch;
        const claimed = (o: Owner, epoch: number): void => {
          const previous = model.lease?.epoch ?? 0;
          expect(epoch).toBe(previous + 1); // strictly increasing at each change of hands
          expect(model.owners.has(epoch)).toBe(false); // one owner per epoch
          model.owners.set(epoch, o);
          model.lease = { owner: o, epoch, running: true };
          model.believed.set(o, epoch);
        };

        for (const s of steps) {
          switch (s.kind) {
            case "claim": {
              const expected = free();
              const lease = await leases.get(s.owner)!.claim(room, s.owner, LONG_LEASE_MS);
              expect(lease !== undefined).toBe(expected);
              if (lease) claimed(s.owner, lease.epoch);
              break;
            }
            case "race": {
              const expected = free();
              const results = await Promise.all(s.owners.map((o) => leases.get(o)!.claim(room, o, LONG_LEASE_MS)));
              const winners = s.owners.filter((_, i) => results[i] !== undefined);
              expect(winners).toHaveLength(expected ? 1 : 0);
              for (const [i, o] of s.owners.entries()) if (results[i]) claimed(o, results[i].epoch);
              break;
            }
            case "renew": {
              const expected = holds(s.owner);
              const lease = await leases.get(s.owner)!.renew(room, s.owner, model.believed.get(s.owner) ?? 0, LONG_LEASE_MS);
              expect(lease !== undefined).toBe(expected);
              break;
            }
            case "release": {
              const expected = holds(s.owner);
              expect(await leases.get(s.owner)!.release(room, s.owner, model.believed.get(s.owner) ?? 0)).toBe(expected);
              if (expected) model.lease!.running = false;
              break;
            }
            case "expire": {
              await pools[0]!.query("UPDATE room_leases SET expires_at = now() - interval '1 millisecond' WHERE room = $1", [room]);
              if (model.lease) model.lease.running = false;
              break;
            }
            case "write": {
              const epoch = model.believed.get(s.owner) ?? 0;
              const current = model.lease?.epoch === epoch;
              const outcome = await fencedWrite(poolOf.get(s.owner)!, room, s.owner, epoch);
              if (current) {
                expect(outcome).toBe("written");
                model.writes.push(`${s.owner}@${epoch}`);
              } else {
                expect(outcome).toBeInstanceOf(FencedOut);
              }
              break;
            }
          }
          // The database agrees with the model after every step.
          const stored = await leases.get("alpha")!.current(room);
          expect(stored && { owner: stored.owner, epoch: stored.epoch }).toEqual(
            model.lease && { owner: model.lease.owner, epoch: model.lease.epoch },
          );
        }

        // Every write that landed was made by its epoch's owner, and only the predicted ones landed.
        const rows = await pools[0]!.query<{ owner: string; epoch: string }>(
          "SELECT owner, epoch::text AS epoch FROM fenced_writes WHERE room = $1 ORDER BY id",
          [room],
        );
        const landed = rows.rows.map((row) => `${row.owner}@${row.epoch}`);
        expect(landed).toEqual(model.writes);
        for (const row of rows.rows) expect(model.owners.get(Number(row.epoch))).toBe(row.owner);
      }),
      { numRuns: 200 },
    );
  });
});

async function fencedWrite(pool: pg.Pool, room: string, owner: Owner, epoch: number): Promise<"written" | unknown> {
  try {
    await withConnection(pool, (client) =>
      withFence(client, room, epoch, async (tx) => {
        await tx.query("INSERT INTO fenced_writes (room, owner, epoch) VALUES ($1, $2, $3)", [room, owner, epoch]);
      }),
    );
    return "written";
  } catch (err) {
    return err;
  }
}
