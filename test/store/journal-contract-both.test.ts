/**
 * One contract for both journals: the SQLite store (through asyncJournalOf) and the
 * PostgreSQL journal of one room unit (PgJournal) must mean the same thing for append,
 * replay, heard keys, sent records, the archive and its paging, artefacts, a session's events
 * and pruning. Then what only PostgreSQL has: fencing by the room's lease epoch (every write,
 * artefacts and pruning included), and committed appends surviving a killed server.
 */
import type pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { asyncJournalOf, PgJournal, type AsyncSessionJournal } from "../../src/store/pg/pg-journal.js";
import { FencedOut, RoomLeases } from "../../src/store/pg/room-lease.js";
import { SessionStore } from "../../src/store/session-store.js";
import { useTestPostgres } from "../support/postgres.js";
import { T0, cancel, completedSession, contribution, start, tempDir } from "./helpers.js";
import { useMigratedDatabases } from "./pg/fixtures.js";

const ROOM = "mfr@conference.example";
/** The build both journals write with their records. */
const BUILD = "0.1.0+contract";
const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);

/** A PostgreSQL journal for ROOM, owned by `owner` at the epoch of its fresh claim. */
async function pgJournalOn(pool: pg.Pool, owner = "alpha"): Promise<PgJournal> {
  const lease = await new RoomLeases(pool).claim(ROOM, owner, 60_000);
  if (!lease) throw new Error("the room could not be claimed");
  return new PgJournal({ pool, room: ROOM, epoch: lease.epoch, now: () => T0 + 99, build: BUILD });
}

const openStores: SessionStore[] = [];
afterEach(() => {
  for (const store of openStores.splice(0)) store.close();
});

const STORES: Array<[string, () => Promise<AsyncSessionJournal>]> = [
  [
    "SQLite",
    () => {
      const store = SessionStore.open(tempDir(), { now: () => T0 + 99, build: BUILD });
      openStores.push(store);
      return Promise.resolve(asyncJournalOf(store));
    },
  ],
  [
    "PostgreSQL",
    async () => {
      const { pools } = await database(1);
      return pgJournalOn(pools[0]!);
    },
  ],
];

describe.each(STORES)("the journal contract: %s", (_name, open) => {
  it("append returns increasing sequence numbers, and liveEvents gives the inputs back in order with their at", async () => {
    const journal = await open();
    const inputs = [start("a"), contribution("a", "ada"), start("b"), contribution("b", "bo"), contribution("a", "cy")];
    const seqs: number[] = [];
    for (const [i, input] of inputs.entries()) seqs.push(await journal.append(input.sessionId, input, T0 + i));
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    const live = await journal.liveEvents();
    expect(live.map((e) => e.seq)).toEqual(seqs);
    expect(live.map((e) => e.at)).toEqual(inputs.map((_, i) => T0 + i));
    expect(live.map((e) => e.sessionId)).toEqual(["a", "a", "b", "b", "a"]);
    expect(live.map((e) => e.input)).toEqual(inputs);
  });

  it("refuses an input appended under another session's id", async () => {
    const journal = await open();
    await expect(journal.append("b", start("a"), T0)).rejects.toThrow(TypeError);
    expect(await journal.liveEvents()).toEqual([]);
  });

  it("records the heard keys with the input", async () => {
    const journal = await open();
    expect(await journal.heardBefore(ROOM, ["sid:1"])).toBe(false);
    await journal.append("a", start("a"), T0, { room: ROOM, keys: ["sid:1", "msg:x"], at: T0 });
    expect(await journal.heardBefore(ROOM, ["sid:1"])).toBe(true);
    expect(await journal.heardBefore(ROOM, ["other", "msg:x"])).toBe(true);
    expect(await journal.heardBefore(ROOM, ["other"])).toBe(false);
    expect(await journal.heardBefore(ROOM, [])).toBe(false);
    expect(await journal.heardBefore("another@conference.example", ["sid:1"])).toBe(false);
  });

  it("sent records round-trip in the order recorded, per session, with their decisive digest and the journal's build", async () => {
    const journal = await open();
    const seq = await journal.append("a", start("a"), T0);
    await journal.append("b", start("b"), T0);
    const records = [
      { sessionId: "a", eventSeq: seq, position: 0, at: T0 + 1, digest: "d0", decisive: "d1:x0", what: "groupchat" },
      { sessionId: "a", eventSeq: seq, position: 1, at: T0 + 2, digest: "d1", what: "tell ada", build: "0.1.0+other" },
    ];
    for (const record of records) await journal.recordSent(record);
    await journal.recordSent({ sessionId: "b", eventSeq: seq + 1, position: 0, at: T0, digest: "db", what: "groupchat" });
    expect(await journal.sentOf("a")).toEqual([{ ...records[0], build: BUILD }, records[1]]);
    expect(await journal.sentOf("none")).toEqual([]);
    expect(await journal.sentTrackedAfter()).toBeLessThan(seq);
  });

  it("archive takes a session out of live events, and archivedSession, listArchived and knows see it", async () => {
    const journal = await open();
    await journal.append("a", start("a"), T0);
    await journal.append("b", start("b"), T0 + 1);
    await journal.append("a", cancel("a"), T0 + 2);
    expect(await journal.knows("a")).toBe(true);
    expect(await journal.knows("z")).toBe(false);
    const session = completedSession("a", T0, T0 + 2);
    await journal.archive(session);
    expect((await journal.liveEvents()).map((e) => e.sessionId)).toEqual(["b"]);
    expect(await journal.archivedSession("a")).toEqual(session);
    expect(await journal.archivedSession("b")).toBeUndefined();
    expect(await journal.listArchived(5)).toEqual([{ id: "a", problem: session.problem, status: "cancelled", startedAt: T0, completedAt: T0 + 2 }]);
    expect(await journal.listArchived(0)).toEqual([]);
    expect(await journal.knows("a")).toBe(true);
    // Late input for an archived session is kept for history but not replayed.
    await journal.append("a", contribution("a", "ada"), T0 + 3);
    expect((await journal.liveEvents()).map((e) => e.sessionId)).toEqual(["b"]);
    await expect(journal.archive({ ...session, phase: "collecting", completion: null })).rejects.toThrow(/still/);
  });

  it("lists archived sessions newest start first", async () => {
    const journal = await open();
    // Instants of different digit counts: the order is by number, not by text.
    for (const [id, startedAt] of [["old", 9_000], ["new", T0 + 5000], ["mid", 10_000]] as const) {
      await journal.append(id, start(id), startedAt);
      await journal.archive(completedSession(id, startedAt));
    }
    expect((await journal.listArchived(10)).map((s) => s.id)).toEqual(["new", "mid", "old"]);
    expect((await journal.listArchived(2)).map((s) => s.id)).toEqual(["new", "mid"]);
  });

  it("artefacts come back oldest first, with their kind, at and increasing ids, per session and kind", async () => {
    const journal = await open();
    await journal.append("a", start("a"), T0);
    await journal.append("b", start("b"), T0);
    const first = await journal.saveArtefact("a", "model-trig", "trig 1");
    const report = await journal.saveArtefact("a", "validation", "report 1");
    await journal.saveArtefact("b", "model-trig", "trig of b");
    const second = await journal.saveArtefact("a", "model-trig", "trig 2");
    expect(first).toBeLessThan(report);
    expect(report).toBeLessThan(second);
    expect(await journal.artefacts("a")).toEqual([
      { id: first, sessionId: "a", kind: "model-trig", at: T0 + 99, content: "trig 1" },
      { id: report, sessionId: "a", kind: "validation", at: T0 + 99, content: "report 1" },
      { id: second, sessionId: "a", kind: "model-trig", at: T0 + 99, content: "trig 2" },
    ]);
    // What export reads: the latest model TriG, and every validation report.
    expect((await journal.artefacts("a", "model-trig")).at(-1)?.content).toBe("trig 2");
    expect((await journal.artefacts("a", "validation")).map((x) => x.content)).toEqual(["report 1"]);
    expect((await journal.artefacts("b")).map((x) => x.content)).toEqual(["trig of b"]);
    expect(await journal.artefacts("none")).toEqual([]);
    // Archiving keeps them.
    await journal.archive(completedSession("a", T0));
    expect(await journal.artefacts("a")).toHaveLength(3);
  });

  it("paging the archive with before never repeats or skips a session", async () => {
    const journal = await open();
    // Instants of different digit counts and out of order, so the order is by number.
    const starts = [9_000, T0 + 7, 10_000, T0, 99_999, T0 + 3, 123, T0 + 50, 5_000_000];
    for (const [i, startedAt] of starts.entries()) {
      const id = `s${i}`;
      await journal.append(id, start(id), startedAt);
      await journal.archive(completedSession(id, startedAt));
    }
    const all = await journal.listArchived({ limit: 100 });
    expect(all.map((s) => s.startedAt)).toEqual([...starts].sort((x, y) => y - x));
    expect(await journal.listArchived(100)).toEqual(all);
    for (const pageSize of [1, 2, 4, 9, 10]) {
      const seen: string[] = [];
      let before: number | undefined;
      for (let pages = 0; ; pages++) {
        // A page that does not move on would loop for ever: fail instead.
        expect(pages).toBeLessThanOrEqual(starts.length);
        const page: Awaited<ReturnType<AsyncSessionJournal["listArchived"]>> = await journal.listArchived({ limit: pageSize, before });
        expect(page.length).toBeLessThanOrEqual(pageSize);
        seen.push(...page.map((s) => s.id));
        if (page.length < pageSize) break;
        before = page[page.length - 1]!.startedAt;
      }
      expect(seen).toEqual(all.map((s) => s.id));
    }
    expect(await journal.listArchived({ limit: 5, before: 123 })).toEqual([]);
    expect((await journal.listArchived({ limit: 5, before: 10_000 })).map((s) => s.startedAt)).toEqual([9_000, 123]);
    await expect(journal.listArchived({ limit: -1 })).rejects.toThrow(RangeError);
    await expect(journal.listArchived(1.5)).rejects.toThrow(RangeError);
  });

  it("eventsOf gives one session's events, archived or live, in order; sessionIds every session with events", async () => {
    const journal = await open();
    const seqA0 = await journal.append("a", start("a"), T0);
    await journal.append("b", start("b"), T0 + 1);
    const seqA1 = await journal.append("a", cancel("a"), T0 + 2);
    await journal.append("B", start("B"), T0 + 3);
    await journal.archive(completedSession("a", T0, T0 + 2));
    expect(await journal.eventsOf("a")).toEqual([
      { seq: seqA0, sessionId: "a", at: T0, input: start("a") },
      { seq: seqA1, sessionId: "a", at: T0 + 2, input: cancel("a") },
    ]);
    expect((await journal.eventsOf("b")).map((e) => e.input)).toEqual([start("b")]);
    expect(await journal.eventsOf("none")).toEqual([]);
    // Code-point order: upper case before lower case.
    expect(await journal.sessionIds()).toEqual(["B", "a", "b"]);
  });

  it("prune removes archived sessions by age and beyond the newest N, never a live one, with all they kept", async () => {
    const journal = await open();
    const NOW = T0 + 1_000_000;
    // Completed at: old1 and old2 long ago, then recent ones; "live" is running; "again" was
    // archived long ago and started again (it has live events).
    const archived: Array<[string, number]> = [
      ["old1", NOW - 500_000],
      ["old2", NOW - 400_000],
      ["mid", NOW - 3_000],
      ["new1", NOW - 2_000],
      ["new2", NOW - 1_000],
    ];
    for (const [id, completedAt] of archived) {
      const seq = await journal.append(id, start(id), completedAt - 10);
      await journal.recordSent({ sessionId: id, eventSeq: seq, position: 0, at: completedAt - 5, digest: `d-${id}`, what: "groupchat" });
      await journal.saveArtefact(id, "model-trig", `trig of ${id}`);
      await journal.archive(completedSession(id, completedAt - 10, completedAt));
    }
    await journal.append("live", start("live"), NOW - 900_000);
    await journal.saveArtefact("live", "model-trig", "trig of live");
    await journal.append("again", start("again"), NOW - 800_000);
    await journal.archive(completedSession("again", NOW - 800_000, NOW - 700_000));
    await journal.append("again", start("again"), NOW - 10);

    // By age: completed more than 100 s before NOW.
    expect(await journal.prune({ maxAgeMs: 100_000, now: NOW })).toBe(2);
    for (const id of ["old1", "old2"]) {
      expect(await journal.archivedSession(id)).toBeUndefined();
      expect(await journal.eventsOf(id)).toEqual([]);
      expect(await journal.sentOf(id)).toEqual([]);
      expect(await journal.artefacts(id)).toEqual([]);
      expect(await journal.knows(id)).toBe(false);
    }
    // The live session and the one started again are untouched, whatever their age.
    expect((await journal.liveEvents()).map((e) => e.sessionId)).toEqual(["live", "again"]);
    expect(await journal.artefacts("live")).toHaveLength(1);
    expect(await journal.archivedSession("again")).toBeDefined();
    expect((await journal.listArchived(10)).map((s) => s.id).sort()).toEqual(["again", "mid", "new1", "new2"]);

    // By count: the newest two by completion stay (and "again", which is live).
    expect(await journal.prune({ maxCount: 2, now: NOW })).toBe(1);
    expect((await journal.listArchived(10)).map((s) => s.id).sort()).toEqual(["again", "new1", "new2"]);
    expect(await journal.eventsOf("mid")).toEqual([]);
    expect((await journal.artefacts("new2")).map((x) => x.content)).toEqual(["trig of new2"]);
    expect(await journal.sentOf("new1")).toHaveLength(1);

    // Neither bound: nothing goes. Bad bounds are refused.
    expect(await journal.prune({ now: NOW })).toBe(0);
    await expect(journal.prune({ maxCount: -1, now: NOW })).rejects.toThrow(RangeError);
    await expect(journal.prune({ maxAgeMs: -1, now: NOW })).rejects.toThrow(RangeError);
    expect(await journal.prune({ maxCount: 0, now: NOW })).toBe(2);
    expect((await journal.listArchived(10)).map((s) => s.id)).toEqual(["again"]);
    expect((await journal.liveEvents()).map((e) => e.sessionId)).toEqual(["live", "again"]);
  });

  it("overlapping appends keep call order", async () => {
    const journal = await open();
    const inputs = [start("a"), ...Array.from({ length: 20 }, (_, i) => contribution("a", `agent${i}`))];
    const seqs = await Promise.all(inputs.map((input, i) => journal.append("a", input, T0 + i)));
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    const live = await journal.liveEvents();
    expect(live.map((e) => e.input)).toEqual(inputs);
    expect(live.map((e) => e.seq)).toEqual(seqs);
  });
});

describe("the PostgreSQL journal only", () => {
  it("a fenced append after another owner claimed the room fails with FencedOut and leaves no row", async () => {
    const { pools } = await database(2);
    const [poolA, poolB] = [pools[0]!, pools[1]!];
    const a = await pgJournalOn(poolA, "alpha");
    await a.append("a", start("a"), T0, { room: ROOM, keys: ["sid:1"], at: T0 });
    // A's lease ends (released here; an expiry is the same to the fence), B claims the room.
    const leases = new RoomLeases(poolA);
    expect(await leases.release(ROOM, "alpha", a.epoch)).toBe(true);
    const b = await pgJournalOn(poolB, "beta");
    expect(b.epoch).toBe(a.epoch + 1);

    const late = a.append("a", contribution("a", "ada"), T0 + 1, { room: ROOM, keys: ["sid:2"], at: T0 + 1 });
    await expect(late).rejects.toBeInstanceOf(FencedOut);
    await expect(a.recordSent({ sessionId: "a", eventSeq: 1, position: 0, at: T0, digest: "d", what: "x" })).rejects.toBeInstanceOf(FencedOut);
    await expect(a.archive(completedSession("a", T0))).rejects.toBeInstanceOf(FencedOut);
    // The chain goes on after a fenced append: the next one is refused too, not stuck.
    await expect(a.append("a", contribution("a", "bo"), T0 + 2)).rejects.toBeInstanceOf(FencedOut);

    const counts = await poolB.query<{ events: string; heard: string; sent: string; archived: string }>(
      `SELECT (SELECT count(*) FROM journal_events)::text AS events, (SELECT count(*) FROM journal_heard)::text AS heard,
              (SELECT count(*) FROM journal_sent)::text AS sent, (SELECT count(*) FROM journal_archived)::text AS archived`,
    );
    expect(counts.rows[0]).toEqual({ events: "1", heard: "1", sent: "0", archived: "0" });
    expect(await b.heardBefore(ROOM, ["sid:2"])).toBe(false);
    // B, the owner now, writes and sees A's committed input.
    await b.append("a", contribution("a", "cy"), T0 + 3);
    expect((await b.liveEvents()).map((e) => [e.input.kind, e.at])).toEqual([
      ["start", T0],
      ["contribution", T0 + 3],
    ]);
  });

  it("a fenced-out owner can neither save an artefact nor prune", async () => {
    const { pools } = await database(2);
    const a = await pgJournalOn(pools[0]!, "alpha");
    await a.append("a", start("a"), T0);
    await a.saveArtefact("a", "model-trig", "kept");
    await a.archive(completedSession("a", T0));
    expect(await new RoomLeases(pools[0]!).release(ROOM, "alpha", a.epoch)).toBe(true);
    const b = await pgJournalOn(pools[1]!, "beta");
    await expect(a.saveArtefact("a", "validation", "late")).rejects.toBeInstanceOf(FencedOut);
    await expect(a.prune({ maxCount: 0, now: T0 + 10_000 })).rejects.toBeInstanceOf(FencedOut);
    expect((await b.artefacts("a")).map((x) => x.content)).toEqual(["kept"]);
    expect(await b.archivedSession("a")).toBeDefined();
    // The owner now prunes.
    expect(await b.prune({ maxCount: 0, now: T0 + 10_000 })).toBe(1);
    expect(await b.artefacts("a")).toEqual([]);
  });

  it("artefacts, events, session ids and pruning keep to the journal's room", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    const here = await pgJournalOn(pool);
    const lease = await new RoomLeases(pool).claim("other@conference.example", "alpha", 60_000);
    const there = new PgJournal({ pool, room: "other@conference.example", epoch: lease!.epoch, now: () => T0 });
    await here.append("a", start("a"), T0);
    await here.saveArtefact("a", "model-trig", "here");
    await here.archive(completedSession("a", T0));
    await there.append("x", start("x"), T0);
    await there.saveArtefact("x", "model-trig", "there");
    await there.archive(completedSession("x", T0));
    expect(await here.sessionIds()).toEqual(["a"]);
    expect(await there.sessionIds()).toEqual(["x"]);
    expect(await here.artefacts("x")).toEqual([]);
    expect(await here.eventsOf("x")).toEqual([]);
    expect(await here.prune({ maxCount: 0, now: T0 + 10_000 })).toBe(1);
    expect((await there.listArchived(5)).map((s) => s.id)).toEqual(["x"]);
    expect((await there.artefacts("x")).map((x) => x.content)).toEqual(["there"]);
  });

  it("a heard record for another room is refused", async () => {
    const { pools } = await database(1);
    const journal = await pgJournalOn(pools[0]!);
    await expect(journal.append("a", start("a"), T0, { room: "elsewhere", keys: ["k"], at: T0 })).rejects.toThrow(TypeError);
    expect(await journal.liveEvents()).toEqual([]);
  });

  it("a killed-and-restarted PostgreSQL keeps committed appends", async () => {
    const { pools } = await database(1);
    const journal = await pgJournalOn(pools[0]!);
    const inputs = [start("a"), contribution("a", "ada"), contribution("a", "bo")];
    const seqs: number[] = [];
    for (const [i, input] of inputs.entries()) seqs.push(await journal.append("a", input, T0 + i, { room: ROOM, keys: [`sid:${i}`], at: T0 + i }));
    await server().kill();
    // A backend outlives a killed postmaster for a moment, so an append right after the kill
    // may still commit, or fail; or commit and fail, its answer lost with the connection (the
    // outcome a client cannot know, as a takeover then finds the input in the log). After the
    // restart the log holds every append that resolved, in order, and at most that one more.
    const during = contribution("a", "cy");
    const duringSeq = await journal.append("a", during, T0 + 9).then((seq) => seq, () => undefined);
    if (duringSeq !== undefined) {
      seqs.push(duringSeq);
      inputs.push(during);
    }
    await server().restart();
    const live = await journal.liveEvents();
    expect(live.slice(0, seqs.length).map((e) => e.seq)).toEqual(seqs);
    const committedUnanswered = duringSeq === undefined && live.length === inputs.length + 1;
    expect(live.map((e) => e.input)).toEqual(committedUnanswered ? [...inputs, during] : inputs);
    expect(await journal.heardBefore(ROOM, ["sid:2"])).toBe(true);
    // The pool reconnects and the owner appends on, after what was there.
    const next = await journal.append("a", contribution("a", "dee"), T0 + 10);
    expect(next).toBeGreaterThan(seqs[seqs.length - 1]!);
    // A kill, a crash recovery and a restart of PostgreSQL: seconds alone, tens of seconds on a loaded machine.
  }, 120_000);
});
