/**
 * The lease keeper with a fake clock and fake leases (lease-keeper-fakes.ts): what it claims
 * and in which order, renewal, loss on a failed renewal and at its own deadline when
 * renewals hang, stop, and a property over random schedules checking its rule: whenever
 * it counts a room as owned, the database's lease for it is running and is its own.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  LeaseKeeper,
  checkTiming,
  type LeaseKeeperEvent,
  type LeaseKeeperOptions,
  type LossReason,
} from "../../src/fleet/lease-keeper.js";
import { FakeWorld, PROMPT, type Behaviour } from "./lease-keeper-fakes.js";

const LEASE_MS = 6000;
const RENEW_MS = 2000;
const MARGIN_MS = 1000;
const ME = "me";

interface Harness {
  world: FakeWorld;
  keeper: LeaseKeeper;
  /** Every callback, as "owned a@1 t=0" / "lost a (why) t=5000". */
  log: string[];
  events: LeaseKeeperEvent[];
}

function harness(rooms: readonly string[], options: Partial<LeaseKeeperOptions> = {}, world = new FakeWorld()): Harness {
  const log: string[] = [];
  const events: LeaseKeeperEvent[] = [];
  const keeper = new LeaseKeeper({
    owner: ME,
    rooms,
    leases: world.leases(),
    leaseMs: LEASE_MS,
    renewMs: RENEW_MS,
    marginMs: MARGIN_MS,
    clock: world.clock,
    onOwned: (room, epoch) => log.push(`owned ${room}@${epoch} t=${world.t}`),
    onLost: (room, why: LossReason) => log.push(`lost ${room} (${why}) t=${world.t}`),
    onEvent: (event) => events.push(event),
    // Claims from the first pass on; the announcing first pass has its own test.
    announceFirst: false,
    ...options,
  });
  return { world, keeper, log, events };
}

const renewalsOf = (world: FakeWorld, room: string): number[] =>
  world.calls.filter((call) => call.op === "renew" && call.rooms.includes(room)).map((call) => call.at);

describe("claiming", () => {
  it("claims free rooms in the order given, up to maxRooms, in one statement, and never a room another instance holds", async () => {
    const world = new FakeWorld();
    world.claim("b", "other", 60_000);
    const { keeper, log } = harness(["a", "b", "c", "d"], { maxRooms: 2 }, world);
    keeper.start();
    await world.advance(0);
    expect(log).toEqual(["owned a@1 t=0", "owned c@1 t=0"]);
    await world.advance(100_000);
    expect(log).toEqual(["owned a@1 t=0", "owned c@1 t=0"]);
    expect(world.rows.get("b")).toMatchObject({ owner: "other", epoch: 1 });
    // One statement for every room not held; none once maxRooms are held.
    expect(world.calls.filter((call) => call.op === "claim").map((call) => call.rooms)).toEqual([["a", "b", "c", "d"]]);
    expect([...keeper.owned()]).toEqual([
      ["a", 1],
      ["c", 1],
    ]);
  });

  it("with several rooms, first only says it is claiming, and claims its share at the next period", async () => {
    const world = new FakeWorld();
    const shares: unknown[] = [];
    const leases = world.leases();
    const { keeper, log } = harness(["a", "b", "c"], { announceFirst: true, leases: { ...leases, claimAny: (rooms, who, ms, max, share) => (shares.push({ max, share }), leases.claimAny(rooms, who, ms, max, share)) } }, world);
    keeper.start();
    await world.advance(0);
    expect(log).toEqual([]);
    await world.advance(RENEW_MS);
    expect(log).toEqual([`owned a@1 t=${RENEW_MS}`, `owned b@1 t=${RENEW_MS}`, `owned c@1 t=${RENEW_MS}`]);
    // Every claim counts it as claiming for two renewal periods, with the units it wants and holds.
    expect(shares).toEqual([
      { max: 0, share: { units: 3, held: 0, seenMs: 2 * RENEW_MS } },
      { max: 3, share: { units: 3, held: 0, seenMs: 2 * RENEW_MS } },
    ]);
  });

  it("stands by: tries a held room every renewal period and takes it in the first period after its lease ran out", async () => {
    const world = new FakeWorld();
    world.claim("a", "other", 7000);
    const { keeper, log } = harness(["a"], {}, world);
    keeper.start();
    await world.advance(7999);
    expect(log).toEqual([]);
    expect(world.calls.map((call) => call.at)).toEqual([0, 2000, 4000, 6000]);
    await world.advance(1);
    expect(log).toEqual(["owned a@2 t=8000"]);
    expect(keeper.holds("a")).toBe(2);
  });

  it("does not count a claim answered past its deadline, and hands it back", async () => {
    const { world, keeper, log } = harness(["a"]);
    world.plan = (call) => (call.op === "claim" && call.at === 0 ? { execAfter: 0, answerAfter: 5000 } : PROMPT);
    keeper.start();
    await world.advance(5000);
    expect(log).toEqual([]);
    expect(world.rows.get("a")).toMatchObject({ owner: ME, epoch: 1, expiresAt: 5000 }); // released at once
    await world.advance(1000);
    expect(log).toEqual(["owned a@2 t=6000"]);
  });
});

describe("renewing", () => {
  it("renews every renewMs and keeps the room as long as renewals succeed", async () => {
    const { world, keeper, log } = harness(["a"]);
    keeper.start();
    await world.advance(100_000);
    expect(renewalsOf(world, "a").slice(0, 4)).toEqual([2000, 4000, 6000, 8000]);
    expect(renewalsOf(world, "a")).toHaveLength(50);
    expect(log).toEqual(["owned a@1 t=0"]);
    expect(keeper.holds("a")).toBe(1);
    expect(world.rows.get("a")).toMatchObject({ owner: ME, epoch: 1, expiresAt: 100_000 + LEASE_MS });
  });

  it("loses the room when a renewal is refused (the lease expired or changed hands)", async () => {
    const { world, keeper, log, events } = harness(["a"]);
    keeper.start();
    await world.advance(1000);
    world.rows.set("a", { owner: "other", epoch: 2, expiresAt: 60_000 });
    await world.advance(1000);
    expect(log).toEqual(["owned a@1 t=0", "lost a (renewal refused) t=2000"]);
    expect(keeper.holds("a")).toBeUndefined();
    expect(events.map((event) => event.kind)).toEqual(["claimed", "renewal-failed", "lost"]);
    expect(events[2]).toMatchObject({ room: "a", owner: ME, epoch: 1, why: "renewal refused" });
  });

  it("loses every room of a renewal that cannot reach the database, or is fenced out", async () => {
    const { world, keeper, log, events } = harness(["a", "b"]);
    world.plan = (call) => (call.op === "renew" && call.at === 2000 ? { execAfter: undefined, answerAfter: 10, fail: new Error("connection terminated") } : PROMPT);
    keeper.start();
    await world.advance(2010);
    expect(log).toEqual(["owned a@1 t=0", "owned b@1 t=0", "lost a (database unreachable) t=2010", "lost b (database unreachable) t=2010"]);
    expect(events.filter((event) => event.kind === "renewal-failed")).toMatchObject([
      { room: "a", detail: "connection terminated" },
      { room: "b", detail: "connection terminated" },
    ]);
    // One renewal statement for both rooms.
    expect(world.calls.filter((call) => call.op === "renew")).toEqual([{ op: "renew", rooms: ["a", "b"], at: 2000 }]);

    const fenced = harness(["a"]);
    fenced.world.plan = (call) => (call.op === "renew" ? { execAfter: undefined, answerAfter: 10, fail: Object.assign(new Error("fenced"), { code: "FENCED_OUT" }) } : PROMPT);
    fenced.keeper.start();
    await fenced.world.advance(2010);
    expect(fenced.log).toEqual(["owned a@1 t=0", "lost a (fenced out) t=2010"]);
  });

  it("loses the room at once when the caller's write was fenced out", async () => {
    const { world, keeper, log } = harness(["a"]);
    keeper.start();
    await world.advance(0);
    keeper.fencedOut("a", 7); // another epoch: not the room held
    expect(keeper.holds("a")).toBe(1);
    keeper.fencedOut("a", 1);
    expect(log).toEqual(["owned a@1 t=0", "lost a (fenced out) t=0"]);
    expect(keeper.holds("a")).toBeUndefined();
  });

  it("names the lease running out, not the failed write, when a process wakes from a pause past its deadline and hears of the write first", async () => {
    const { world, keeper, log } = harness(["a", "b"]);
    keeper.start();
    await world.advance(0);
    // Woken at t=6000 (deadline 5000): the database ended the transaction it was paused in,
    // and that answer is handled before the deadline's timer runs.
    world.t = 6000;
    keeper.writeFailed("a", 1, new Error("terminating connection due to idle-in-transaction timeout"));
    keeper.writeFailed("b", 1, Object.assign(new Error("fenced"), { code: "FENCED_OUT" }));
    expect(log).toEqual(["owned a@1 t=0", "owned b@1 t=0", "lost a (lease ran out) t=6000", "lost b (lease ran out) t=6000"]);
  });
});

describe("the keeper's own deadline", () => {
  it("gives the room up when renewals hang, leaseMs − margin after the last successful send, before the database's lease runs out", async () => {
    const { world, keeper, log } = harness(["a"]);
    world.plan = (call) => (call.op === "claim" ? PROMPT : { execAfter: undefined, answerAfter: undefined });
    keeper.start();
    await world.advance(4999);
    expect(keeper.holds("a")).toBe(1);
    expect(log).toEqual(["owned a@1 t=0"]);
    await world.advance(1);
    expect(keeper.holds("a")).toBeUndefined();
    expect(log).toEqual(["owned a@1 t=0", "lost a (lease ran out) t=5000"]);
    // The database still holds it until 6000; the keeper then hands it back (its release hangs here too).
    expect(world.rows.get("a")).toMatchObject({ owner: ME, expiresAt: LEASE_MS });
    expect(renewalsOf(world, "a")).toEqual([2000]); // one renewal at a time: a hanging one is not doubled
  });

  it("counts from when the renewal was sent, not when it was answered", async () => {
    const { world, keeper, log } = harness(["a"]);
    // Each renewal is answered 1500 ms late: the deadline is 2000 + 5000, not 3500 + 5000.
    world.plan = (call) => (call.op === "renew" && call.at === 2000 ? { execAfter: 0, answerAfter: 1500 } : call.op === "renew" ? { execAfter: undefined, answerAfter: undefined } : PROMPT);
    keeper.start();
    await world.advance(6999);
    expect(keeper.holds("a")).toBe(1);
    await world.advance(1);
    expect(log).toEqual(["owned a@1 t=0", "lost a (lease ran out) t=7000"]);
  });

  it("a renewal answered after the deadline does not revive the room", async () => {
    const { world, keeper, log } = harness(["a"]);
    world.plan = (call) =>
      call.op === "renew" ? { execAfter: 0, answerAfter: 4000 } : call.op === "release" ? { execAfter: undefined, answerAfter: undefined } : PROMPT;
    keeper.start();
    await world.advance(5000);
    expect(log).toEqual(["owned a@1 t=0", "lost a (lease ran out) t=5000"]);
    await world.advance(1000); // the renewal sent at 2000 is answered (successfully) at 6000
    expect(keeper.holds("a")).toBeUndefined();
    expect(log).toEqual(["owned a@1 t=0", "lost a (lease ran out) t=5000"]);
  });

  it("a paused process finds the room given up on waking, even when the answer is delivered before its timer fires", async () => {
    const { world, keeper, log } = harness(["a"]);
    world.plan = (call) => (call.op === "renew" ? { execAfter: 0, answerAfter: 500 } : PROMPT);
    keeper.start();
    await world.advance(2100); // the renewal sent at 2000 is on its way back
    let onWaking: number | undefined | "unchecked" = "unchecked";
    world.check = () => {
      if (onWaking === "unchecked" && world.t === 9000) onWaking = keeper.holds("a");
    };
    await world.pause(6900); // SIGSTOP at 2100, SIGCONT at 9000: the answer (due 2500) is delivered first
    expect(onWaking).toBeUndefined();
    // Lost, not revived by the answer; then claimed afresh (the database's lease had run out), under a new epoch.
    expect(log).toEqual(["owned a@1 t=0", "lost a (lease ran out) t=9000", "owned a@2 t=9000"]);
  });
});

describe("stop", () => {
  it("releases every room and is silent afterwards", async () => {
    const { world, keeper, log, events } = harness(["a", "b"]);
    keeper.start();
    await world.advance(3000);
    const stopped = keeper.stop();
    expect(keeper.holds("a")).toBeUndefined();
    await world.advance(0);
    await stopped;
    expect(world.rows.get("a")).toMatchObject({ owner: ME, expiresAt: 3000 });
    expect(world.rows.get("b")).toMatchObject({ owner: ME, expiresAt: 3000 });
    expect(events.filter((event) => event.kind === "released")).toMatchObject([
      { room: "a", epoch: 1, ok: true },
      { room: "b", epoch: 1, ok: true },
    ]);
    const before = { log: [...log], events: events.length, calls: world.calls.length };
    await world.advance(100_000);
    expect({ log, events: events.length, calls: world.calls.length }).toEqual(before);
  });

  it("hands back a room whose claim is answered after stop, without telling the caller", async () => {
    const { world, keeper, log } = harness(["a"]);
    world.plan = (call) => (call.op === "claim" ? { execAfter: 0, answerAfter: 100 } : PROMPT);
    keeper.start();
    await world.advance(50);
    await keeper.stop();
    await world.advance(100);
    expect(log).toEqual([]);
    expect(world.rows.get("a")).toMatchObject({ owner: ME, expiresAt: 100 });
  });

  it("does not wait on a release that hangs longer than a lease", async () => {
    const { world, keeper } = harness(["a"]);
    keeper.start();
    await world.advance(0);
    world.plan = () => ({ execAfter: undefined, answerAfter: undefined });
    let done = false;
    void keeper.stop().then(() => (done = true));
    await world.advance(LEASE_MS - 1);
    expect(done).toBe(false);
    await world.advance(1);
    expect(done).toBe(true);
  });
});

describe("timing", () => {
  it("refuses a renewal period that leaves no renewal before the deadline, and a negative margin", () => {
    expect(() => checkTiming(6000, 2000, 1000)).not.toThrow();
    expect(() => checkTiming(6000, 5000, 1000)).toThrow(RangeError);
    expect(() => checkTiming(6000, 0, 1000)).toThrow(RangeError);
    expect(() => checkTiming(6000, 2000, -1)).toThrow(RangeError);
  });
});

type Step =
  | { kind: "advance"; ms: number }
  | { kind: "pause"; ms: number }
  | { kind: "rival"; room: string }
  | { kind: "fenced"; room: string };

const ROOMS = ["a", "b", "c"];
const room = fc.constantFrom(...ROOMS);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 3000 }).map((ms): Step => ({ kind: "advance", ms })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 12_000 }).map((ms): Step => ({ kind: "pause", ms })) },
  { weight: 2, arbitrary: room.map((r): Step => ({ kind: "rival", room: r })) },
  { weight: 1, arbitrary: room.map((r): Step => ({ kind: "fenced", room: r })) },
);
const delay = fc.integer({ min: 0, max: 8000 });
const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(PROMPT) },
  {
    weight: 4,
    arbitrary: fc.tuple(delay, delay).map(([a, b]): Behaviour => ({ execAfter: Math.min(a, b), answerAfter: Math.max(a, b) })),
  },
  { weight: 1, arbitrary: fc.option(delay, { nil: undefined }).map((execAfter): Behaviour => ({ execAfter, answerAfter: undefined })) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.option(delay, { nil: undefined }), delay).map(([execAfter, answerAfter]): Behaviour => ({
      execAfter: execAfter === undefined ? undefined : Math.min(execAfter, answerAfter),
      answerAfter,
      fail: new Error("connection terminated"),
    })),
  },
);
const timing = fc
  .record({ leaseMs: fc.integer({ min: 2000, max: 8000 }), marginMs: fc.integer({ min: 0, max: 1500 }) })
  .chain(({ leaseMs, marginMs }) =>
    fc.integer({ min: 400, max: leaseMs - marginMs - 1 }).map((renewMs) => ({ leaseMs, marginMs, renewMs })),
  );

describe("the keeper's rule, over random schedules", () => {
  it("whenever it counts a room as owned, the database's lease for it is running and is its own at that epoch", async () => {
    await fc.assert(
      fc.asyncProperty(
        timing,
        fc.integer({ min: 1, max: 3 }),
        fc.array(behaviour, { minLength: 5, maxLength: 30 }),
        fc.array(step, { minLength: 10, maxLength: 40 }),
        async (times, maxRooms, behaviours, steps) => {
          const world = new FakeWorld();
          let n = 0;
          world.plan = () => behaviours[n++ % behaviours.length]!;
          const owned = new Map<string, number>();
          const problems: string[] = [];
          const { keeper } = harness(
            ROOMS,
            {
              ...times,
              maxRooms,
              onOwned: (r, epoch) => {
                if (owned.has(r)) problems.push(`owned ${r} twice`);
                owned.set(r, epoch);
              },
              onLost: (r) => {
                if (!owned.delete(r)) problems.push(`lost ${r} not owned`);
              },
            },
            world,
          );
          world.check = () => {
            for (const r of ROOMS) {
              const epoch = keeper.holds(r);
              if (epoch === undefined) continue;
              const row = world.rows.get(r);
              if (!row || row.owner !== ME || row.epoch !== epoch || row.expiresAt <= world.t) {
                problems.push(`t=${world.t}: holds ${r}@${epoch} but the database has ${JSON.stringify(row)}`);
              }
            }
            if (keeper.owned().size > maxRooms) problems.push(`t=${world.t}: more than ${maxRooms} rooms`);
          };
          keeper.start();
          for (const s of steps) {
            if (s.kind === "advance") await world.advance(s.ms);
            else if (s.kind === "pause") await world.pause(s.ms);
            else if (s.kind === "rival") world.claim(s.room, "rival", times.leaseMs);
            else keeper.fencedOut(s.room, keeper.holds(s.room) ?? -1);
            world.check();
            if (problems.length > 0) break;
          }
          const stopped = keeper.stop();
          await world.advance(times.leaseMs);
          await stopped;
          expect(problems).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
