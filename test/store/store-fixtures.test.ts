/**
 * A store from each earlier schema version, written by a build of that time
 * (test/fixtures/stores, its README says which commit and how): each opens, is migrated to
 * this schema with its rows as they were and none claiming a build, and `verify` replays it
 * with this build's core without a mismatch, naming what an earlier build worded otherwise.
 * A tampered copy is reported: a sent record gone, a logged input gone, and, once the records
 * hold what their stanzas decide, a decisive field of a logged input changed. None of it
 * depends on how this build words its messages.
 */
import { copyFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { decisiveDigest } from "../../src/host/decisive-digest.js";
import { renderContextOf } from "../../src/host/outgoing.js";
import { replayWithSends } from "../../src/host/sent-check.js";
import { SCHEMA_VERSION } from "../../src/store/schema.js";
import { DATABASE_FILE, SessionStore } from "../../src/store/session-store.js";
import { runCli, type CliRun } from "../support/cli.js";
import { tempDir } from "./helpers.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/stores/", import.meta.url));
const PROFILE = join(FIXTURES, "profile.ttl");
const files = readdirSync(FIXTURES)
  .filter((name) => /^v\d+-[0-9a-f]+\.sqlite$/.test(name))
  .sort((a, b) => Number(/^v(\d+)/.exec(a)![1]) - Number(/^v(\d+)/.exec(b)![1]));
const EARLIER = "an earlier build (before build ids were recorded)";

/** The schema version a fixture was written with, read without changing it. */
function versionOf(file: string): number {
  const db = new Database(join(FIXTURES, file), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT version FROM schema_version").get() as { version: number }).version;
  } finally {
    db.close();
  }
}

/** A data directory holding a copy of the fixture, migrated to this schema by opening it as the coordinator does. */
function migratedCopy(file: string): string {
  const dir = tempDir("mfr-fixture-");
  copyFileSync(join(FIXTURES, file), join(dir, DATABASE_FILE));
  SessionStore.open(dir).close();
  return dir;
}

/** Runs SQL on a data directory's database. */
function alter(dir: string, ...statements: string[]): void {
  const db = new Database(join(dir, DATABASE_FILE));
  try {
    for (const sql of statements) db.prepare(sql).run();
  } finally {
    db.close();
  }
}

function verify(dir: string, ...extra: string[]): Promise<CliRun> {
  return runCli(["verify", "--profile", PROFILE, "--data-dir", dir, ...extra], {}, 60_000);
}

/** The closing line's counts. */
function tally(run: CliRun): { sessions: number; matched: number; wording: number; pending: number; mismatches: number } {
  const last = run.stdout.trim().split("\n").at(-1) ?? "";
  const m = /^verify: (\d+) sessions, (\d+) stanzas match, (\d+) differ in wording only, (\d+) pending, (\d+) mismatches \(replayed by .+\)$/.exec(last);
  if (!m) throw new Error(`no tally in verify's output:\n${run.stdout}${run.stderr}`);
  const [sessions, matched, wording, pending, mismatches] = m.slice(1).map(Number) as [number, number, number, number, number];
  return { sessions, matched, wording, pending, mismatches };
}

/** The archived session of a fixture (the demo's) and the live one (killed with its window open). */
function sessionsOf(dir: string): { archived: string; live: string } {
  const store = SessionStore.open(dir, { readonly: true });
  try {
    const archived = store.listArchived(10).map((s) => s.id);
    const live = store.sessionIds().filter((id) => !archived.includes(id));
    expect(archived).toHaveLength(1);
    expect(live).toHaveLength(1);
    return { archived: archived[0]!, live: live[0]! };
  } finally {
    store.close();
  }
}

describe("store fixtures of earlier schema versions", () => {
  it("there is one for each earlier schema version, each as its version's builds left it", () => {
    expect(files.map(versionOf)).toEqual(Array.from({ length: SCHEMA_VERSION - 1 }, (_, i) => i + 1));
    for (const file of files) expect(versionOf(file)).toBe(Number(/^v(\d+)/.exec(file)![1]));
  });
});

describe.each(files)("the store fixture %s", (file) => {
  const version = versionOf(file);

  it("opens, is migrated to this schema, and keeps its rows, none with a build id", () => {
    const original = new Database(join(FIXTURES, file), { readonly: true, fileMustExist: true });
    const counts = (db: Database.Database) => ({
      events: (db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n,
      archived: (db.prepare("SELECT count(*) AS n FROM archived_sessions").get() as { n: number }).n,
      sent: version >= 2 ? (db.prepare("SELECT count(*) AS n FROM sent").get() as { n: number }).n : 0,
    });
    const before = counts(original);
    original.close();
    expect(before.events).toBeGreaterThan(0);

    const dir = migratedCopy(file);
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    try {
      expect(db.prepare("SELECT version FROM schema_version").get()).toEqual({ version: SCHEMA_VERSION });
      expect(counts(db)).toEqual(before);
      const columns = (table: string) => (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as Array<{ name: string }>).map((c) => c.name);
      expect(columns("events")).toContain("build");
      expect(columns("sent")).toEqual(expect.arrayContaining(["build", "decisive"]));
      expect(db.prepare("SELECT count(*) AS n FROM events WHERE build IS NOT NULL").get()).toEqual({ n: 0 });
      expect(db.prepare("SELECT count(*) AS n FROM sent WHERE build IS NOT NULL OR decisive IS NOT NULL").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    const store = SessionStore.open(dir, { readonly: true });
    try {
      for (const id of store.sessionIds()) {
        expect(store.inputBuildsOf(id)).toEqual([{ build: undefined, inputs: store.eventsOf(id).length }]);
        for (const record of store.sentOf(id)) expect(record).not.toHaveProperty("build");
      }
    } finally {
      store.close();
    }
  });

  it("replays without a mismatch, what differs differing in wording only, said of an earlier build", async () => {
    const dir = migratedCopy(file);
    const run = await verify(dir, "--verbose");
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const found = tally(run);
    expect(found).toMatchObject({ sessions: 2, pending: 0, mismatches: 0 });
    // v1 kept no sent-record: its sessions predate it, and nothing is compared. Which stanzas
    // differ in wording depends on how this build words them; that none is a mismatch does not.
    if (version === 1) expect(found.matched + found.wording).toBe(0);
    else expect(found.matched + found.wording).toBeGreaterThan(10);
    const lines = run.stdout.trim().split("\n");
    const { archived, live } = sessionsOf(dir);
    const worded = new RegExp(`^(${archived}|${live}): worded by ${EARLIER.replace(/[()]/g, "\\$&")}, replayed by \\S+.*: (\\d+) message\\(s\\) differ in wording only$`);
    const perSession = lines.filter((l) => l.includes("differ in wording only") && !l.startsWith("verify:"));
    for (const line of perSession) expect(line).toMatch(worded);
    expect(perSession.reduce((n, l) => n + Number(worded.exec(l)?.[2] ?? 0), 0)).toBe(found.wording);
    expect(lines.filter((l) => / stanza \d+ \(/.test(l))).toHaveLength(found.wording);
    if (process.env.MFR_PRINT_FIGURES) console.log(`${file}: ${lines.at(-1)}`);
  }, 60_000);

});

// v1 kept no sent-record (its sessions predate it), so there is nothing there to tamper with.
describe.each(files.filter((file) => versionOf(file) >= 2))("a tampered copy of the store fixture %s", (file) => {
  it("is reported: a sent record deleted, a logged input deleted", async () => {
    const { archived } = sessionsOf(migratedCopy(file));
    // The first protocol message of the archived session, no longer on record as sent.
    const lost = migratedCopy(file);
    alter(lost, `DELETE FROM sent WHERE seq = (SELECT min(seq) FROM sent WHERE session_id = '${archived}' AND what NOT LIKE 'say %')`);
    const run = await verify(lost);
    expect(run.code).toBe(1);
    expect(tally(run).mismatches).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^${archived}: input \\d+, stanza 1 \\(ModelContributionRequest\\): replay sends it, but it was never recorded as sent$`, "m"));

    // The archived session's last input gone from the log: what its step sent is on record but not replayed.
    const dropped = migratedCopy(file);
    alter(dropped, `DELETE FROM events WHERE seq = (SELECT max(seq) FROM events WHERE session_id = '${archived}')`);
    const second = await verify(dropped);
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(new RegExp(`^${archived}: input \\d+, stanza 1 \\(SessionComplete\\): recorded as sent, but replay does not send it$`, "m"));
  }, 60_000);

  it("is reported: a decisive field of a logged input changed, once the records hold what their stanzas decide", async () => {
    const { archived } = sessionsOf(migratedCopy(file));
    // An earlier build recorded whole-stanza digests only: another problem in the start input
    // changes what every request carries, yet nothing more than the kind of each stanza can be
    // compared, so it reads as that build's wording.
    const changeProblem = `UPDATE events SET input = json_set(input, '$.problem', 'Deliver 5 crates by boat.') WHERE seq = (SELECT min(seq) FROM events WHERE session_id = '${archived}')`;
    const unchecked = migratedCopy(file);
    alter(unchecked, changeProblem);
    const loose = await verify(unchecked);
    expect(loose.code, loose.stdout).toBe(0);
    expect(loose.stdout).toContain(`${archived}: worded by ${EARLIER}`);

    // The records as this build writes them (each stanza replay renders, in its place, with
    // both its digests and a build id): the same change is a mismatch.
    const recorded = migratedCopy(file);
    asThisBuildRecords(recorded);
    expect(tally(await verify(recorded))).toMatchObject({ mismatches: 0 });
    alter(recorded, changeProblem);
    const strict = await verify(recorded);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(new RegExp(`^${archived}: input \\d+, stanza 1 \\(ModelContributionRequest\\): sent live deciding otherwise than replay \\(not only its wording differs\\)$`, "m"));
  }, 60_000);
});

/**
 * Rewrites the sent records as this build's outbox would have written them: each stanza replay
 * renders of the same kind in the same place gets its two digests and a build id (the store
 * then reads as one this build wrote; whatever it says in its own words).
 */
function asThisBuildRecords(dir: string): void {
  const ctx = renderContextOf(loadConfig({ profile: PROFILE }, { XMPP_PASSWORD: "not used" }, dir));
  const store = SessionStore.open(dir, { readonly: true });
  const updates: Array<{ seq: number; position: number; what: string; digest: string; decisive: string }> = [];
  try {
    for (const id of store.sessionIds()) {
      for (const e of replayWithSends(store.eventsOf(id), ctx).expected) {
        updates.push({ seq: e.eventSeq, position: e.position, what: e.outgoing.what, digest: e.digest, decisive: decisiveDigest(e.outgoing) });
      }
    }
  } finally {
    store.close();
  }
  const db = new Database(join(dir, DATABASE_FILE));
  try {
    const set = db.prepare("UPDATE sent SET digest = @digest, decisive = @decisive, build = '0.1.0+fixture' WHERE event_seq = @seq AND position = @position AND what = @what");
    const changed = db.transaction(() => updates.reduce((n, u) => n + set.run(u).changes, 0))();
    expect(changed).toBeGreaterThan(5);
  } finally {
    db.close();
  }
}
