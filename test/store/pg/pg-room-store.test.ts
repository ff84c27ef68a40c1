/**
 * The room unit's store on a real PostgreSQL (src/store/pg/pg-room-store.ts), as an owner
 * uses it: what one owner writes, the next owner (a new epoch, after the lease changed
 * hands) reads back the same; writes keep their call order however they overlap; once
 * another owner claims the room, or the database goes away mid-write, the store stops at the
 * first failure, tells its owner once, and refuses the rest without touching the database;
 * pruning removes the unit's old archived sessions from the database and from memory.
 */
import fc from "fast-check";
import pg from "pg";
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { runningBuildId } from "../../../src/base/build-info.js";
import type { EvidenceRow } from "../../../src/agent-choice/evidence.js";
import type { Input } from "../../../src/session/step-io.js";
import { HEARD_KEPT_MS } from "../../../src/store/heard-log.js";
import { type HeardRecord } from "../../../src/host/heard.js";
import { PgJournal } from "../../../src/store/pg/pg-journal.js";
import { PgRoomStore } from "../../../src/store/pg/pg-room-store.js";
import { FencedOut, RoomLeases } from "../../../src/store/pg/room-lease.js";
import type { SentRecord, StoredEvent } from "../../../src/host/journal-records.js";
import { useTestPostgres } from "../../support/postgres.js";
import { T0, cancel, completedSession, contribution, start } from "../helpers.js";
import { sleep, useMigratedDatabases } from "./fixtures.js";

const UNIT = "mfr@conference.example";
const LOG_ROOM = "mfr-log@conference.example";
const PHASE_ROOM = "mfr-construct@conference.example";
const ROOMS = [UNIT, LOG_ROOM, PHASE_ROOM];
const OTHER_UNIT = "elsewhere@conference.example";
const LEASE_MS = 60_000;
/** The store's wall clock: the heard keys written at T0 + … are within its loaded window. */
const NOW = T0 + 60_000;

const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);
const silent = pino({ level: "silent" });

interface Owned {
  store: PgRoomStore;
  epoch: number;
  failures: unknown[];
}

/** Claims `unit` for `owner` and opens its store at the new epoch; `failures` collects what onFailure is told. */
async function own(pool: pg.Pool, owner: string, options: { unit?: string; rooms?: string[]; leaseMs?: number; log?: pino.Logger } = {}): Promise<Owned> {
  const unit = options.unit ?? UNIT;
  const lease = await new RoomLeases(pool).claim(unit, owner, options.leaseMs ?? LEASE_MS);
  if (!lease) throw new Error(`${owner} could not claim ${unit}`);
  const failures: unknown[] = [];
  const store = await PgRoomStore.open({
    pool,
    unit,
    rooms: options.rooms ?? ROOMS,
    epoch: lease.epoch,
    log: options.log ?? silent,
    now: () => NOW,
    onFailure: (err) => failures.push(err),
  });
  return { store, epoch: lease.epoch, failures };
}

/** Lets the store's writes settle, then hands the room over (the lease released at its epoch). */
async function handOver(pool: pg.Pool, owned: Owned, owner: string, unit = UNIT): Promise<void> {
  await owned.store.drained();
  await owned.store.close();
  expect(await new RoomLeases(pool).release(unit, owner, owned.epoch)).toBe(true);
}

function evidence(identity: string, kind: EvidenceRow["kind"], lastSeen: number, contributions = 0): EvidenceRow {
  return { identity, kind, nick: identity.replace(/^.*:/, ""), firstSeen: T0, lastSeen, contributions, proposals: 0 };
}

/** A sent record as the store reads it back: with the build that wrote it (this one's, by default). */
function sent(sessionId: string, eventSeq: number, position: number, what = "groupchat"): SentRecord {
  return { sessionId, eventSeq, position, at: T0 + eventSeq + position, digest: `d-${sessionId}-${eventSeq}-${position}`, what, build: runningBuildId() };
}

/** Everything an owner reads from the store, for the given rooms, keys and session ids. */
function reads(store: PgRoomStore, probe: { heard: Array<[string, string[]]>; ids: string[] }) {
  return {
    sent: Object.fromEntries(probe.ids.map((id) => [id, store.sentOf(id)])),
    heard: probe.heard.map(([room, keys]) => [room, keys, store.heardBefore(room, keys)]),
    lastHeard: Object.fromEntries(ROOMS.map((room) => [room, store.lastHeardAt(room)])),
    present: Object.fromEntries(ROOMS.map((room) => [room, store.presentUntil(room)])),
    archived: Object.fromEntries(probe.ids.map((id) => [id, store.archivedSession(id)])),
    listed: store.listArchived(100),
    knows: Object.fromEntries(probe.ids.map((id) => [id, store.knows(id)])),
  };
}

/** Rows of a table that mention a session id or a room (for "nothing of it reached the database"). */
async function count(pool: pg.Pool, sql: string, params: unknown[]): Promise<number> {
  const result = await pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${sql}`, params);
  return Number(result.rows[0]!.n);
}

describe("what one owner writes, the next owner reads back", () => {
  it("inputs with the heard keys of every room of the unit, sent records, archive, artefacts, heard, presence and evidence", async () => {
    const { pools } = await database(2);
    const [poolA, poolB] = [pools[0]!, pools[1]!];
    // A session id used in another unit before the takeover, and one after it.
    const other = new PgJournal({ pool: poolA, room: OTHER_UNIT, epoch: (await new RoomLeases(poolA).claim(OTHER_UNIT, "gamma", LEASE_MS))!.epoch });
    await other.append("z-before", start("z-before"), T0);

    const first = await own(poolA, "alpha");
    expect(first.epoch).toBe(1);
    const { store } = first;
    expect(store.liveEvents()).toEqual([]);
    expect(store.knows("z-before")).toBe(true);

    const appends: Array<{ input: Input; at: number; heard?: HeardRecord }> = [
      { input: start("a"), at: T0 + 1, heard: { room: UNIT, keys: ["sid:a-start", "msg:a-start"], at: T0 + 1 } },
      { input: contribution("a", "ada"), at: T0 + 2, heard: { room: PHASE_ROOM, keys: ["sid:ada-1"], at: T0 + 2 } },
      { input: start("b"), at: T0 + 3, heard: { room: UNIT, keys: ["sid:b-start"], at: T0 + 3 } },
      { input: start("c"), at: T0 + 4 },
      { input: contribution("b", "bo"), at: T0 + 5, heard: { room: PHASE_ROOM, keys: ["sid:bo-1", "msg:bo-1"], at: T0 + 5 } },
      { input: cancel("c"), at: T0 + 6, heard: { room: UNIT, keys: ["sid:c-cancel"], at: T0 + 6 } },
    ];
    const seqs = await Promise.all(appends.map(({ input, at, heard }) => store.append(input.sessionId, input, at, heard)));
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    const [seqA, , seqB, seqC] = seqs as [number, number, number, number];
    const records = [sent("a", seqA, 0), sent("a", seqA, 1, "tell ada"), sent("b", seqB, 0), sent("c", seqC, 0)];
    for (const record of records) store.recordSent(record);
    const archivedC = completedSession("c", T0 + 4, T0 + 6);
    store.archive(archivedC);
    store.saveArtefact("a", "validation", '{"conforms":true}');
    store.saveArtefact("a", "model-trig", "<#g> { <#s> <#p> <#o> . }");
    // A message taken in that became no input, in the log room; and presence, which never moves back.
    store.recordHeard({ room: LOG_ROOM, keys: ["sid:chatter"], at: T0 + 7 });
    store.markPresent(UNIT, T0 + 8);
    store.markPresent(PHASE_ROOM, T0 + 9);
    store.markPresent(UNIT, T0 + 2);
    const rows = [evidence("jid:ada@agents.example", "protocol", T0 + 20, 1), evidence("jid:bo@agents.example", "disco", T0 + 10), evidence("nick:cy", "person", T0 + 30)];
    store.saveEvidenceRows(rows);
    await store.drained();
    expect(first.failures).toEqual([]);
    expect(store.writeProblem()).toBeUndefined();

    const probe = {
      heard: [
        [UNIT, ["sid:a-start"]],
        [UNIT, ["other", "msg:a-start"]],
        [UNIT, ["sid:ada-1"]],
        [PHASE_ROOM, ["sid:ada-1"]],
        [PHASE_ROOM, ["msg:bo-1"]],
        [LOG_ROOM, ["sid:chatter"]],
        [LOG_ROOM, ["sid:a-start"]],
        [UNIT, ["sid:c-cancel"]],
        [UNIT, []],
      ] as Array<[string, string[]]>,
      ids: ["a", "b", "c", "z-before", "z-after", "never"],
    };
    await handOver(poolA, first, "alpha");
    await other.append("z-after", start("z-after"), T0);

    const second = await own(poolB, "beta");
    expect(second.epoch).toBe(2);
    const expected: StoredEvent[] = appends
      .map(({ input, at }, i) => ({ seq: seqs[i]!, sessionId: input.sessionId, at, input }))
      .filter((e) => e.sessionId !== "c");
    expect(second.store.liveEvents()).toEqual(expected);
    const before = reads(store, probe);
    const after = reads(second.store, probe);
    // The first owner learnt of z-after only from the database, at a takeover: the one after it knows it.
    expect(before.knows["z-after"]).toBe(false);
    expect(after.knows["z-after"]).toBe(true);
    expect({ ...after, knows: { ...after.knows, "z-after": false } }).toEqual(before);
    // The values themselves, not only their agreement.
    expect(after.sent).toMatchObject({ a: records.slice(0, 2), b: [records[2]], c: [] });
    expect(after.heard.map(([, , heard]) => heard)).toEqual([true, true, false, true, true, true, false, true, false]);
    expect(after.lastHeard).toEqual({ [UNIT]: T0 + 6, [LOG_ROOM]: T0 + 7, [PHASE_ROOM]: T0 + 5 });
    expect(after.present).toEqual({ [UNIT]: T0 + 8, [LOG_ROOM]: undefined, [PHASE_ROOM]: T0 + 9 });
    expect(after.archived.c).toEqual(archivedC);
    expect(after.listed).toEqual([{ id: "c", problem: archivedC.problem, status: "cancelled", startedAt: T0 + 4, completedAt: T0 + 6 }]);
    expect(after.knows).toMatchObject({ a: true, b: true, c: true, "z-before": true, never: false });
    // Evidence is shared by every instance: least recently seen first.
    expect(second.store.loadEvidence()).toEqual([rows[1], rows[0], rows[2]]);
    // Artefacts are not read back by the owner: export reads them.
    const artefacts = await new PgJournal({ pool: poolB, room: UNIT, epoch: second.epoch }).artefacts("a");
    expect(artefacts.map((a) => [a.kind, a.content, a.at])).toEqual([
      ["validation", '{"conforms":true}', NOW],
      ["model-trig", "<#g> { <#s> <#p> <#o> . }", NOW],
    ]);
    // Every row the first owner wrote carries its epoch.
    expect(await count(poolB, "journal_events WHERE room = $1 AND epoch <> $2", [UNIT, first.epoch])).toBe(0);
    expect(await count(poolB, "journal_artefacts WHERE room = $1 AND epoch <> $2", [UNIT, first.epoch])).toBe(0);
    await second.store.close();
  });

  it("an owner that wrote nothing leaves the next one an empty unit, and only the unit's own sessions", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const elsewhere = await own(pool, "gamma", { unit: OTHER_UNIT, rooms: [OTHER_UNIT] });
    await elsewhere.store.append("x", start("x"), T0, { room: OTHER_UNIT, keys: ["sid:x"], at: T0 });
    elsewhere.store.archive(completedSession("x", T0));
    elsewhere.store.markPresent(OTHER_UNIT, T0);
    await elsewhere.store.close();

    const owned = await own(pool, "alpha");
    expect(owned.store.liveEvents()).toEqual([]);
    expect(owned.store.listArchived(10)).toEqual([]);
    expect(owned.store.archivedSession("x")).toBeUndefined();
    expect(owned.store.heardBefore(OTHER_UNIT, ["sid:x"])).toBe(false);
    expect(owned.store.lastHeardAt(UNIT)).toBeUndefined();
    expect(owned.store.presentUntil(OTHER_UNIT)).toBeUndefined();
    // Ids are chosen by every instance: one used in another unit is taken.
    expect(owned.store.knows("x")).toBe(true);
    await owned.store.close();
  });

  it("keeps the newest archived sessions whole across a takeover, and the newest ones stay when more are archived", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const first = await own(pool, "alpha");
    // More than the store keeps whole (50), each started after the one before.
    const ids = Array.from({ length: 55 }, (_, i) => `s${String(i).padStart(2, "0")}`);
    for (const [i, id] of ids.entries()) {
      await first.store.append(id, start(id), T0 + i * 10);
      first.store.archive(completedSession(id, T0 + i * 10, T0 + i * 10 + 5));
    }
    await handOver(pool, first, "alpha");

    const second = await own(pool, "beta");
    const newest = ids.slice(-50);
    expect(second.store.listArchived(100).map((s) => s.id)).toEqual([...ids].reverse());
    expect(newest.every((id) => second.store.archivedSession(id) !== undefined)).toBe(true);
    expect(second.store.archivedSession("s04")).toBeUndefined();
    // One more completes: the oldest kept whole makes room for it, never the newest.
    second.store.archive(completedSession("s55", T0 + 1000, T0 + 1005));
    expect(second.store.archivedSession("s55")).toBeDefined();
    expect(second.store.archivedSession("s54")).toBeDefined();
    expect(second.store.archivedSession("s05")).toBeUndefined();
    expect(ids.slice(-49).every((id) => second.store.archivedSession(id) !== undefined)).toBe(true);
    await second.store.close();
  });
});

describe("closing the store", () => {
  it("writes the inputs and records queued before close, and refuses those after it", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const owned = await own(pool, "alpha");
    const { store } = owned;
    // As the coordinator stops: its last writes are queued, then the fleet closes the store.
    const appended = store.append("a", start("a"), T0, { room: UNIT, keys: ["sid:a"], at: T0 });
    store.recordSent(sent("a", 1, 0));
    store.markPresent(UNIT, T0 + 5);
    store.saveEvidenceRows([evidence("jid:ada@agents.example", "protocol", T0)]);
    await store.close();
    await expect(appended).resolves.toBeGreaterThan(0);
    await expect(store.append("b", start("b"), T0 + 1)).rejects.toThrow(/closed/);
    expect(owned.failures).toEqual([]);

    const journal = new PgJournal({ pool, room: UNIT, epoch: owned.epoch });
    expect((await journal.liveEvents()).map((e) => e.sessionId)).toEqual(["a"]);
    expect(await journal.sentOf("a")).toEqual([sent("a", 1, 0)]);
    expect(await count(pool, "room_presence WHERE room = $1 AND until = $2", [UNIT, T0 + 5])).toBe(1);
    expect(await count(pool, "agent_evidence", [])).toBe(1);
  });
});

type Op = { kind: "append"; session: string; start: boolean } | { kind: "sent"; session: string } | { kind: "archive"; session: string };

const SESSIONS = ["s0", "s1", "s2"] as const;
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ session: fc.constantFrom(...SESSIONS), start: fc.boolean() }).map((o): Op => ({ kind: "append", ...o })) },
  { weight: 2, arbitrary: fc.constantFrom(...SESSIONS).map((session): Op => ({ kind: "sent", session })) },
  { weight: 2, arbitrary: fc.constantFrom(...SESSIONS).map((session): Op => ({ kind: "archive", session })) },
);

describe("writes keep their call order", () => {
  it("appends resolve in call order with increasing sequence numbers, and sent records and archives land between them as called, under any interleaving", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        run += 1;
        const unit = `unit-${run}@conference.example`;
        const owned = await own(pool, "alpha", { unit, rooms: [unit] });
        const { store } = owned;
        // Called back to back, nothing awaited in between.
        const settled: number[] = [];
        const appends: Array<Promise<number>> = [];
        /** What the database should hold: each append's liveness (as the journal decides it), the sent records in call order. */
        const model: Array<{ call: number; session: string; live: boolean }> = [];
        const hasLive = new Map<string, boolean>();
        const sentOrder: string[] = [];
        ops.forEach((o, call) => {
          const at = T0 + call;
          if (o.kind === "append") {
            const input = o.start ? start(o.session) : contribution(o.session, `agent${call}`);
            const live = o.start || hasLive.get(o.session) === true;
            if (live) hasLive.set(o.session, true);
            model.push({ call, session: o.session, live });
            const index = appends.length;
            appends.push(store.append(o.session, input, at, { room: unit, keys: [`sid:${call}`], at }).then((seq) => (settled.push(index), seq)));
          } else if (o.kind === "sent") {
            store.recordSent({ sessionId: o.session, eventSeq: call, position: 0, at, digest: `d${call}`, what: "groupchat" });
            sentOrder.push(`d${call}`);
          } else {
            store.archive(completedSession(o.session, at));
            for (const entry of model) if (entry.session === o.session) entry.live = false;
            hasLive.set(o.session, false);
          }
        });
        const seqs = await Promise.all(appends);
        await store.drained();
        expect(owned.failures).toEqual([]);
        expect(settled).toEqual(appends.map((_, i) => i));
        expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);

        const journal = new PgJournal({ pool, room: unit, epoch: owned.epoch });
        const live = await journal.liveEvents();
        const expected = model.map((entry, i) => ({ ...entry, seq: seqs[i]! })).filter((entry) => entry.live);
        expect(live.map((e) => [e.seq, e.sessionId, e.at])).toEqual(expected.map((e) => [e.seq, e.session, T0 + e.call]));
        const digests = await pool.query<{ digest: string }>("SELECT digest FROM journal_sent WHERE room = $1 ORDER BY seq", [unit]);
        expect(digests.rows.map((r) => r.digest)).toEqual(sentOrder);
        // Every archive in the database is the last one asked for of its session.
        const archived = await journal.listArchived(10);
        const lastArchive = new Map(ops.flatMap((o, call) => (o.kind === "archive" ? [[o.session, T0 + call] as const] : [])));
        expect(new Map(archived.map((s) => [s.id, s.startedAt]))).toEqual(lastArchive);
        await store.close();
      }),
      { numRuns: 30 },
    );
  }, 120_000);

  it("an archive asked for right after an append is durable after it: the appended input leaves replay with its session", async () => {
    const { pools } = await database(1);
    const owned = await own(pools[0]!, "alpha");
    const { store } = owned;
    // Nothing awaited: the session's start and, at once, its archive (a session cancelled as it starts).
    const appended = store.append("a", start("a"), T0, { room: UNIT, keys: ["sid:a"], at: T0 });
    store.archive(completedSession("a", T0, T0 + 2));
    const seq = await appended;
    await store.drained();
    // Had the archive committed first, the start would still be live, and the next owner would bring the session back.
    const rows = await pools[0]!.query<{ seq: string; live: boolean }>("SELECT seq::text AS seq, live FROM journal_events WHERE room = $1 ORDER BY seq", [UNIT]);
    expect(rows.rows.map((r) => [Number(r.seq), r.live])).toEqual([[seq, false]]);
    expect(store.listArchived(5).map((s) => s.id)).toEqual(["a"]);
    await handOver(pools[0]!, owned, "alpha");
    const next = await own(pools[0]!, "beta");
    expect(next.store.liveEvents()).toEqual([]);
    expect(next.store.archivedSession("a")?.completion?.status).toBe("cancelled");
    await next.store.close();
  });
});

/** A logger whose error lines a test can read. */
function errorLog(): { log: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  const written: string[] = [];
  const log = pino({ level: "error" }, { write: (line: string) => void written.push(line) });
  return { log, lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** One of every write the store takes, for session `id`, none awaited: what a refused store must keep out of the database. */
function everyWrite(store: PgRoomStore, id: string, at: number): Array<Promise<unknown>> {
  const appended = store.append(id, start(id), at, { room: PHASE_ROOM, keys: [`sid:${id}`], at });
  store.recordSent({ sessionId: id, eventSeq: 1, position: 0, at, digest: `digest-${id}`, what: "groupchat" });
  store.archive(completedSession(id, at));
  store.saveArtefact(id, "validation", `report of ${id}`);
  store.recordHeard({ room: UNIT, keys: [`heard:${id}`], at });
  store.markPresent(LOG_ROOM, at);
  store.saveEvidenceRows([evidence(`jid:${id}@agents.example`, "protocol", at)]);
  return [appended, store.prune({ maxCount: 0, now: at })];
}

/** How many rows of any write of `everyWrite(…, id, at)` the database holds. */
async function rowsOf(pool: pg.Pool, id: string, at: number): Promise<number> {
  const counts = await Promise.all([
    count(pool, "journal_events WHERE session_id = $1", [id]),
    count(pool, "journal_sent WHERE digest = $1", [`digest-${id}`]),
    count(pool, "journal_archived WHERE id = $1", [id]),
    count(pool, "journal_artefacts WHERE session_id = $1", [id]),
    count(pool, "journal_heard WHERE key = ANY($1::text[])", [[`sid:${id}`, `heard:${id}`]]),
    count(pool, "room_presence WHERE until = $1", [at]),
    count(pool, "agent_evidence WHERE identity = $1", [`jid:${id}@agents.example`]),
  ]);
  return counts.reduce((a, b) => a + b, 0);
}

describe("a burst of writes", () => {
  it("is committed in a few transactions, not one per write, each write resolving once committed, in order", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const owned = await own(pool, "a");
    const connect = vi.spyOn(pool, "connect");
    const appends: Array<Promise<number>> = [];
    appends.push(owned.store.append("s", start("s"), T0));
    for (let i = 0; i < 300; i++) {
      owned.store.recordHeard({ room: UNIT, keys: [`burst:${i}`], at: T0 + i });
      if (i % 30 === 0) appends.push(owned.store.append("s", contribution("s", `agent${i}`), T0 + i));
    }
    const seqs = await Promise.all(appends);
    await owned.store.drained();
    // The first write finds the queue idle and goes alone; the rest wait for it and go together.
    expect(connect.mock.calls.length).toBeLessThanOrEqual(4);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    const rows = await pool.query<{ n: string }>("SELECT count(*)::text AS n FROM journal_heard WHERE room = $1 AND key LIKE 'burst:%'", [UNIT]);
    expect(Number(rows.rows[0]!.n)).toBe(300);
    connect.mockRestore();
  });
});

describe("fenced out: another owner claimed the room", () => {
  it("the first write after the claim fails, the owner is told once, and every later write is refused without touching the database", async () => {
    const { pools } = await database(2);
    const [poolA, poolB] = [pools[0]!, pools[1]!];
    const { log, lines } = errorLog();
    const first = await own(poolA, "alpha", { log });
    const { store } = first;
    const kept = await store.append("a", start("a"), T0, { room: UNIT, keys: ["sid:a"], at: T0 });
    store.recordSent(sent("a", kept, 0));
    await store.drained();

    // The lease changes hands behind the first owner's back (it was released; a paused owner's would have expired).
    expect(await new RoomLeases(poolB).release(UNIT, "alpha", first.epoch)).toBe(true);
    const taken = await new RoomLeases(poolB).claim(UNIT, "beta", LEASE_MS);
    expect(taken?.epoch).toBe(first.epoch + 1);

    const connect = vi.spyOn(poolA, "connect");
    const query = vi.spyOn(poolA, "query");
    const late = store.append("late", start("late"), T0 + 10, { room: UNIT, keys: ["sid:late"], at: T0 + 10 });
    // Queued right behind it, nothing awaited.
    const behind = everyWrite(store, "behind", T0 + 11);
    const error = await late.catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FencedOut);
    expect(error).toMatchObject({ room: UNIT, epoch: first.epoch, currentEpoch: taken!.epoch });
    for (const refused of behind) await expect(refused).rejects.toBe(error);
    await store.drained();
    // Once more, well after the failure.
    const after = everyWrite(store, "after", T0 + 12);
    for (const refused of after) await expect(refused).rejects.toBe(error);
    await store.drained();

    expect(first.failures).toEqual([error]);
    // The one attempt that found the new epoch; nothing after it reached the pool.
    expect(connect).toHaveBeenCalledTimes(1);
    expect(query).not.toHaveBeenCalled();
    expect(store.writeProblem()).toBe(
      `the shared database refused a write for room ${UNIT} (write for room ${UNIT} at epoch ${first.epoch} refused: the room's lease is at epoch ${taken!.epoch}); the room is being handed over`,
    );
    expect(lines().filter((l) => l.msg === "a write to the shared database failed; giving the room up")).toEqual([
      expect.objectContaining({ room: UNIT, epoch: first.epoch, writes: ["append start"] }),
    ]);
    connect.mockRestore();
    query.mockRestore();

    expect(await rowsOf(poolB, "late", T0 + 10)).toBe(0);
    expect(await rowsOf(poolB, "behind", T0 + 11)).toBe(0);
    expect(await rowsOf(poolB, "after", T0 + 12)).toBe(0);
    // What resolved before the claim is there for the new owner.
    const second = await PgRoomStore.open({ pool: poolB, unit: UNIT, rooms: ROOMS, epoch: taken!.epoch, log: silent, now: () => NOW, onFailure: () => undefined });
    expect(second.liveEvents().map((e) => [e.seq, e.sessionId])).toEqual([[kept, "a"]]);
    expect(second.sentOf("a")).toEqual([sent("a", kept, 0)]);
    expect(second.heardBefore(UNIT, ["sid:late"])).toBe(false);
    await second.close();
  });

  it("after the lease expired: writes go on while nobody has claimed the room, and stop at the first one after a claim", async () => {
    const { pools } = await database(2);
    const [poolA, poolB] = [pools[0]!, pools[1]!];
    const first = await own(poolA, "alpha", { leaseMs: 300 });
    await first.store.append("a", start("a"), T0);
    await sleep(400);
    // Expired, but nobody else wrote: the epoch still fences correctly.
    await expect(first.store.append("a", contribution("a", "ada"), T0 + 1)).resolves.toBeGreaterThan(0);
    expect(await new RoomLeases(poolB).claim(UNIT, "beta", LEASE_MS)).toMatchObject({ epoch: first.epoch + 1 });
    first.store.markPresent(UNIT, T0 + 2);
    await first.store.drained();
    expect(first.failures).toHaveLength(1);
    expect(first.failures[0]).toBeInstanceOf(FencedOut);
    await expect(first.store.append("a", cancel("a"), T0 + 3)).rejects.toBeInstanceOf(FencedOut);
    expect(first.failures).toHaveLength(1);
    expect(await count(poolB, "journal_events WHERE room = $1", [UNIT])).toBe(2);
    expect(await count(poolB, "room_presence", [])).toBe(0);
  });
});

/** Holds the unit's lease row locked (FOR UPDATE) on a connection of its own, so that a fenced write waits at its fence. */
async function holdFence(url: string): Promise<{ client: pg.Client; release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url, application_name: "fence-holder" });
  client.on("error", () => undefined);
  await client.connect();
  await client.query("BEGIN");
  await client.query("SELECT 1 FROM room_leases WHERE room = $1 FOR UPDATE", [UNIT]);
  return {
    client,
    release: async () => {
      await client.query("ROLLBACK").catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

/** Resolves once a connection of `applicationName` waits for a lock (a write stopped at its fence). */
async function waitingAtFence(pool: pg.Pool, applicationName: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const result = await pool.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [applicationName],
    );
    if (result.rows[0]) return result.rows[0].pid;
    await sleep(20);
  }
  throw new Error(`no connection of ${applicationName} waits at the fence`);
}

/** Writes that resolve, for the next owner to find: two sessions' inputs and a sent record. */
async function durableWrites(store: PgRoomStore): Promise<{ seqs: number[]; records: SentRecord[] }> {
  const seqs = [await store.append("a", start("a"), T0, { room: UNIT, keys: ["sid:a"], at: T0 }), await store.append("b", start("b"), T0 + 1)];
  const records = [sent("a", seqs[0]!, 0), sent("b", seqs[1]!, 0)];
  for (const record of records) store.recordSent(record);
  store.markPresent(UNIT, T0 + 2);
  await store.drained();
  return { seqs, records };
}

/** The next owner (after the lease is released) reads back what resolved, and nothing of the write that failed. */
async function nextOwnerFinds(pool: pg.Pool, epoch: number, resolved: { seqs: number[]; records: SentRecord[] }): Promise<void> {
  expect(await new RoomLeases(pool).release(UNIT, "alpha", epoch)).toBe(true);
  const next = await own(pool, "beta");
  expect(next.store.liveEvents().map((e) => [e.seq, e.sessionId])).toEqual([
    [resolved.seqs[0], "a"],
    [resolved.seqs[1], "b"],
  ]);
  expect([...next.store.sentOf("a"), ...next.store.sentOf("b")]).toEqual(resolved.records);
  expect(next.store.heardBefore(UNIT, ["sid:a"])).toBe(true);
  expect(next.store.heardBefore(UNIT, ["sid:c"])).toBe(false);
  expect(next.store.presentUntil(UNIT)).toBe(T0 + 2);
  expect(next.store.knows("c")).toBe(false);
  await next.store.close();
}

describe("the database goes away mid-write", () => {
  it("its connections terminated while a write waits: the write fails, the owner is told once, and nothing that resolved is lost", async () => {
    const { url, pools } = await database(2);
    const [poolA, poolB] = [pools[0]!, pools[1]!];
    const owned = await own(poolA, "alpha");
    const { store } = owned;
    const resolved = await durableWrites(store);

    const holder = await holdFence(url);
    try {
      const failing = store.append("c", start("c"), T0 + 3, { room: UNIT, keys: ["sid:c"], at: T0 + 3 });
    // It rejects while the test is still waiting below: a handler now keeps that from counting as an unhandled rejection.
    failing.catch(() => undefined);
      store.recordSent(sent("c", 99, 0));
      await waitingAtFence(poolB, "instance-0");
      const terminated = await poolB.query<{ n: string }>(
        "SELECT count(pg_terminate_backend(pid))::text AS n FROM pg_stat_activity WHERE application_name = 'instance-0'",
      );
      expect(Number(terminated.rows[0]!.n)).toBeGreaterThanOrEqual(1);
      await expect(failing).rejects.toThrow(/terminat/i);
      await store.drained();
    } finally {
      await holder.release();
    }
    expect(owned.failures).toHaveLength(1);
    expect(store.writeProblem()).toMatch(new RegExp(`refused a write for room ${UNIT} \\(.*terminat`, "i"));
    // Refused from now on, though the database answers again.
    await expect(store.append("d", start("d"), T0 + 4)).rejects.toThrow(/terminat/i);
    expect(owned.failures).toHaveLength(1);
    expect(await count(poolB, "journal_sent WHERE session_id = 'c'", [])).toBe(0);
    await nextOwnerFinds(poolB, owned.epoch, resolved);
  });

  it("the server killed while a write waits: the write fails, the owner is told once, and what resolved is there after the restart", async () => {
    const { url, pools } = await database(2);
    const [poolA, poolB] = [pools[0]!, pools[1]!];
    const owned = await own(poolA, "alpha");
    const { store } = owned;
    const resolved = await durableWrites(store);

    const holder = await holdFence(url);
    const failing = store.append("c", start("c"), T0 + 3, { room: UNIT, keys: ["sid:c"], at: T0 + 3 });
    // It rejects while the test is still waiting below: a handler now keeps that from counting as an unhandled rejection.
    failing.catch(() => undefined);
    store.archive(completedSession("a", T0, T0 + 4));
    await waitingAtFence(poolB, "instance-0");
    await server().kill();
    await expect(failing).rejects.toThrow();
    await store.drained();
    await holder.release();
    expect(owned.failures).toHaveLength(1);
    expect(store.writeProblem()).toMatch(/the shared database refused a write/);
    await server().restart();
    await expect(store.append("d", start("d"), T0 + 5)).rejects.toBe(owned.failures[0]);
    await nextOwnerFinds(poolB, owned.epoch, resolved);
    // The restart waits for the killed server's backends to go (test/support/postgres.ts): seconds, at times many.
  }, 90_000);
});

describe("pruning", () => {
  /** Sessions p0…p4 of the unit, archived with their events, sent records and artefacts, completed 1 s apart. */
  async function archived(store: PgRoomStore, ids = ["p0", "p1", "p2", "p3", "p4"]): Promise<void> {
    for (const [i, id] of ids.entries()) {
      const seq = await store.append(id, start(id), T0 + i * 1000);
      store.recordSent(sent(id, seq, 0));
      store.saveArtefact(id, "validation", `report of ${id}`);
      store.archive(completedSession(id, T0 + i * 1000, T0 + i * 1000 + 500));
    }
    await store.drained();
  }

  it("removes the unit's archived sessions past the bounds, with their events, sent records and artefacts, and drops them from memory", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const elsewhere = await own(pool, "gamma", { unit: OTHER_UNIT, rooms: [OTHER_UNIT] });
    await archived(elsewhere.store, ["x0", "x1"]);
    const owned = await own(pool, "alpha");
    const { store } = owned;
    await archived(store);
    // p1 started again: it has live events, and is never pruned.
    await store.append("p1", start("p1"), T0 + 10_000);
    expect(store.listArchived(10).map((s) => s.id)).toEqual(["p4", "p3", "p2", "p1", "p0"]);

    // By count: the newest two by completion stay, and p1 (live again).
    expect(await store.prune({ maxCount: 2, now: NOW })).toBe(2);
    expect(store.listArchived(10).map((s) => s.id)).toEqual(["p4", "p3", "p1"]);
    expect(store.archivedSession("p0")).toBeUndefined();
    expect(store.archivedSession("p2")).toBeUndefined();
    expect(store.archivedSession("p3")).toBeDefined();
    for (const id of ["p0", "p2"]) {
      expect(await count(pool, "journal_events WHERE session_id = $1", [id])).toBe(0);
      expect(await count(pool, "journal_sent WHERE session_id = $1", [id])).toBe(0);
      expect(await count(pool, "journal_artefacts WHERE session_id = $1", [id])).toBe(0);
      expect(await count(pool, "journal_archived WHERE id = $1", [id])).toBe(0);
    }
    // By age: those completed before T0 + 4 s (56 s before NOW), but p1, kept by its live event.
    expect(await store.prune({ maxAgeMs: 56_000, now: NOW })).toBe(1);
    expect(store.listArchived(10).map((s) => s.id)).toEqual(["p4", "p1"]);
    expect(await store.prune({ maxAgeMs: 56_000, now: NOW })).toBe(0);
    // Another unit's sessions are its owner's to prune.
    expect(await count(pool, "journal_archived WHERE room = $1", [OTHER_UNIT])).toBe(2);
    expect(owned.failures).toEqual([]);

    // The next owner finds what the prune left.
    await handOver(pool, owned, "alpha");
    const next = await own(pool, "beta");
    expect(next.store.listArchived(10)).toEqual(store.listArchived(10));
    expect(next.store.liveEvents().map((e) => e.sessionId)).toEqual(["p1"]);
    // The ids of pruned sessions are free again; the others are not.
    expect(["p0", "p1", "p2", "p3", "p4", "x0"].map((id) => next.store.knows(id))).toEqual([false, true, false, false, true, true]);
    await next.store.close();
  });

  it("removes heard keys and agent evidence past their ages, in memory and in the database", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const { store } = await own(pool, "alpha");
    const old = NOW - HEARD_KEPT_MS - 1;
    store.recordHeard({ room: UNIT, keys: ["old"], at: old });
    await store.append("a", start("a"), NOW - 1000, { room: PHASE_ROOM, keys: ["recent"], at: NOW - 1000 });
    store.saveEvidenceRows([evidence("jid:stale@agents.example", "protocol", NOW - 10_000), evidence("jid:fresh@agents.example", "protocol", NOW - 10)]);
    await store.drained();
    expect(store.heardBefore(UNIT, ["old"])).toBe(true);

    expect(await store.prune({ maxAgeMs: 1000, now: NOW })).toBe(0);
    expect(store.heardBefore(UNIT, ["old"])).toBe(false);
    expect(store.heardBefore(PHASE_ROOM, ["recent"])).toBe(true);
    const keys = await pool.query<{ key: string }>("SELECT key FROM journal_heard ORDER BY key");
    expect(keys.rows.map((r) => r.key)).toEqual(["recent"]);
    const identities = await pool.query<{ identity: string }>("SELECT identity FROM agent_evidence");
    expect(identities.rows.map((r) => r.identity)).toEqual(["jid:fresh@agents.example"]);
  });

  it("a session archived while a prune is under way stays listed", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const owned = await own(pool, "alpha");
    const { store } = owned;
    await archived(store);
    // The hourly prune starts; a session completes before it has finished.
    const pruning = store.prune({ maxCount: 1, now: NOW });
    const late = completedSession("late", T0 + 20_000, T0 + 20_500);
    store.archive(late);
    expect(await pruning).toBe(4);
    await store.drained();
    expect(store.listArchived(10).map((s) => s.id)).toEqual(["late", "p4"]);
    expect(store.archivedSession("late")).toEqual(late);
    expect((await new PgJournal({ pool, room: UNIT, epoch: owned.epoch }).listArchived(10)).map((s) => s.id)).toEqual(["late", "p4"]);
  });
});
