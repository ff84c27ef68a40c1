/**
 * `export`, `verify` and `backup` on the shared PostgreSQL store (MFR_DATABASE_URL or the
 * profile's mfr:database), run as the CLI on a real PostgreSQL. The same sessions are written
 * to a SQLite store and, through PgJournal in two room units, to a database; then each
 * command's output on PostgreSQL must be what it is on SQLite: the same export files, the
 * same verify report (also after the sent-records are tampered with), the same backup tally.
 * A backup is restored with the command it prints into a second database, which then exports
 * and verifies the same. The database password is never printed.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import Database from "better-sqlite3";
import type pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { splitDatabaseUrl } from "../../src/config/shared-settings.js";
import { readFormalModel } from "../../src/formal/model.js";
import { parseContribution } from "../../src/rdf/parse.js";
import type { Input } from "../../src/session/step-io.js";
import { decisiveDigest } from "../../src/host/decisive-digest.js";
import { renderContextOf, type RenderContext } from "../../src/host/outgoing.js";
import { replayWithSends } from "../../src/host/sent-check.js";
import { roomUnitsOf } from "../../src/fleet/room-units.js";
import { BackupError } from "../../src/store/backup.js";
import { backupDatabase, CLIENT_PROGRAMS_MISSING, locateBackupPrograms } from "../../src/store/pg/pg-backup.js";
import { asyncJournalOf, PgJournal, type AsyncSessionJournal } from "../../src/store/pg/pg-journal.js";
import { PgStoreReader } from "../../src/store/pg/pg-store-reader.js";
import { locatePostgresPrograms } from "../../src/localserver/postgres-programs.js";
import { RoomLeases } from "../../src/store/pg/room-lease.js";
import { DATABASE_FILE, SessionStore } from "../../src/store/session-store.js";
import { runCli, type CliRun } from "../support/cli.js";
import { writeConfigProfile } from "../support/config-profile.js";
import { useTestPostgres } from "../support/postgres.js";
import { Driver, T0, conforming, contributionInput, ok, proposalInput, solution, startInput } from "../support/session-fixtures.js";
import { useMigratedDatabases } from "../store/pg/fixtures.js";

const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);

const COURIER = readFileSync(new URL("../fixtures/formal/courier.ttl", import.meta.url), "utf8");
const VALID = ["Insure(P1)", "Load(P1, Van-1, 0900-North)", "Drive(Van-1, 0900-North, South)", "Unload-All(Van-1, South)", "(load p2 van-1 south)", "drive(van-1, south, 0900-north)", "unload-all(van-1, 0900-north)"];
const INVALID = ["drive(van-1, 0900-north, south)", "drive(van-1, south, 0900-north)", "drive(van-1, 0900-north, south)"];
const ROOM_A = "room-a@conference.localhost";
const ROOM_B = "room-b@conference.localhost";
/** The clock of both stores' artefacts, so what export writes of them is the same. */
const NOW = () => T0 + 60_000;

let dir: string;
let profile: string;
/** What the single SQLite coordinator renders for: the primary room, for every session. */
let render: RenderContext;
/** What each room unit's coordinator on the shared store renders for: its own rooms. */
let renderOfUnit: (room: string) => RenderContext;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mfr-pg-cli-"));
  // Room A is the primary unit, room B a further unit of its own.
  profile = writeConfigProfile(dir, `agent:roomJid "${ROOM_A}" ;`, `mfr:rooms "${ROOM_B}" ;`);
  const config = loadConfig({ profile }, { XMPP_PASSWORD: "not used" }, dir);
  render = renderContextOf(config);
  renderOfUnit = (room) => renderContextOf(roomUnitsOf(config, "test").find((unit) => unit.key === room)!.config);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const openStores: SessionStore[] = [];
afterEach(() => {
  for (const store of openStores.splice(0)) store.close();
});

/** One session's inputs as live logged them, with the room unit it ran in; `archive` when it completed. */
interface Scripted {
  id: string;
  room: string;
  inputs: Array<[Input, number]>;
  driver: Driver;
  archive: boolean;
  report?: string;
}

/** A courier session (a formal model, two proposals with plans) that ends solved. */
function solvedSession(id: string, room: string): Scripted {
  const driver = new Driver(T0);
  const inputs: Array<[Input, number]> = [];
  const log = (input: Input, at: number): void => {
    inputs.push([input, at]);
    driver.feed(input, at);
  };
  log(startInput({ sessionId: id, expectedAgents: ["alice", "bob"] }), T0);
  log(contributionInput(id, "alice", { turtle: COURIER }), T0 + 1000);
  log(contributionInput(id, "bob", { turtle: COURIER }), T0 + 1500);
  const parsed = parseContribution(COURIER, { baseIri: `http://purl.org/stuff/mfr/session/${id}/`, graphIri: "urn:g", maxTriples: 10_000, blankNodePrefix: "c0_" });
  if (!parsed.ok) throw new Error(parsed.error.message);
  log({ kind: "analysis", sessionId: id, version: driver.lastAnalyse(id).version, outcome: ok(conforming({ formal: readFormalModel(parsed.quads) })) }, T0 + 2000);
  log(proposalInput(id, "alice", solution({ plan: VALID })), T0 + 3000);
  log(proposalInput(id, "bob", solution({ plan: INVALID })), T0 + 3500);
  expect(driver.session(id).completion?.status).toBe("solved");
  return { id, room, inputs, driver, archive: true, report: JSON.stringify({ conforms: true, results: [] }) };
}

/** A session still collecting contributions. */
function liveSession(id: string, room: string): Scripted {
  const driver = new Driver(T0 + 10_000);
  const inputs: Array<[Input, number]> = [];
  for (const [input, at] of [
    [startInput({ sessionId: id, expectedAgents: ["carol", "dave"] }), T0 + 10_000],
    [contributionInput(id, "carol", { turtle: COURIER }), T0 + 11_000],
  ] as Array<[Input, number]>) {
    inputs.push([input, at]);
    driver.feed(input, at);
  }
  return { id, room, inputs, driver, archive: false };
}

/** A session started and cancelled by its starter. */
function cancelledSession(id: string, room: string): Scripted {
  const driver = new Driver(T0 + 20_000);
  const inputs: Array<[Input, number]> = [
    [startInput({ sessionId: id }), T0 + 20_000],
    [{ kind: "cancel", sessionId: id, by: { nick: "dana", jid: "dana@people.example" } }, T0 + 21_000],
  ];
  for (const [input, at] of inputs) driver.feed(input, at);
  expect(driver.session(id).completion?.status).toBe("cancelled");
  return { id, room, inputs, driver, archive: true };
}

const SESSIONS = (): Scripted[] => [solvedSession("amber-fox-42", ROOM_A), liveSession("blue-owl-7", ROOM_B), cancelledSession("calm-elk-3", ROOM_A)];

/**
 * Logs a session as the running coordinator does: every input, the stanzas replay says each
 * step sent recorded as sent, the validation report kept, and the session archived once complete.
 */
async function logSession(journal: AsyncSessionJournal, session: Scripted, ctx: RenderContext): Promise<void> {
  for (const [input, at] of session.inputs) await journal.append(session.id, input, at);
  const { expected } = replayWithSends(await journal.eventsOf(session.id), ctx);
  for (const e of expected) await journal.recordSent({ sessionId: session.id, eventSeq: e.eventSeq, position: e.position, at: e.at, digest: e.digest, decisive: decisiveDigest(e.outgoing), what: e.outgoing.what });
  if (session.report !== undefined) await journal.saveArtefact(session.id, "validation", session.report);
  if (session.archive) await journal.archive(session.driver.session(session.id));
}

/** The same sessions in a SQLite data directory and in a fresh database (each room under a lease); the data directory and the URL. */
async function bothStores(sessions: Scripted[] = SESSIONS()): Promise<{ dataDir: string; url: string; pool: pg.Pool }> {
  const dataDir = mkdtempSync(join(dir, "data-"));
  const store = SessionStore.open(dataDir, { now: NOW });
  const sqlite = asyncJournalOf(store);
  for (const session of sessions) await logSession(sqlite, session, render);
  store.close();

  const { url, pools } = await database(1);
  const pool = pools[0]!;
  const journals = new Map<string, PgJournal>();
  for (const session of sessions) {
    let journal = journals.get(session.room);
    if (!journal) {
      const lease = await new RoomLeases(pool).claim(session.room, "writer", 60_000);
      if (!lease) throw new Error(`room ${session.room} could not be claimed`);
      journal = new PgJournal({ pool, room: session.room, epoch: lease.epoch, now: NOW });
      journals.set(session.room, journal);
    }
    await logSession(journal, session, renderOfUnit(session.room));
  }
  return { dataDir, url, pool };
}

/** The password of a test database's URL, which no output may contain. */
function passwordOf(url: string): string {
  const { password } = splitDatabaseUrl(url);
  if (!password) throw new Error("the test database's URL has no password");
  return password;
}

function expectNoPassword(run: CliRun, url: string): void {
  expect(run.stdout).not.toContain(passwordOf(url));
  expect(run.stderr).not.toContain(passwordOf(url));
}

/** The files of an export directory, by name. */
function filesIn(out: string): Record<string, string> {
  return Object.fromEntries(readdirSync(out).sort().map((name) => [name, readFileSync(join(out, name), "utf8")]));
}

/** Runs export on SQLite (--data-dir) and on PostgreSQL (MFR_DATABASE_URL); both outputs. */
async function exportBoth(dataDir: string, url: string, id: string, extra: string[] = []): Promise<{ sqlite: CliRun; pg: CliRun; sqliteOut: string; pgOut: string }> {
  const sqliteOut = mkdtempSync(join(dir, "out-sqlite-"));
  const pgOut = mkdtempSync(join(dir, "out-pg-"));
  const sqlite = await runCli(["export", id, ...extra, "--out", sqliteOut, "--data-dir", dataDir]);
  // --data-dir is there too: the database, once configured, is what export reads.
  const pg = await runCli(["export", id, ...extra, "--out", pgOut, "--data-dir", join(dir, "no-store-here")], { MFR_DATABASE_URL: url });
  return { sqlite, pg, sqliteOut, pgOut };
}

/** The files export writes of a session from the database at `url`. */
async function exportedFrom(url: string, id: string): Promise<Record<string, string>> {
  const out = mkdtempSync(join(dir, "out-"));
  const run = await runCli(["export", id, "--out", out], { MFR_DATABASE_URL: url });
  expect(run.code, run.stderr).toBe(0);
  return filesIn(out);
}

function verify(env: Record<string, string>, extra: string[] = []): Promise<CliRun> {
  return runCli(["verify", "--profile", profile, ...extra], env);
}

/** Verify's lines in a fixed order (rooms are read one after the other), the tally last. */
function report(run: CliRun): string[] {
  const lines = run.stdout.trim().split("\n");
  return [...lines.slice(0, -1).sort(), lines.at(-1) ?? ""];
}

describe("export from the shared PostgreSQL store", () => {
  it("writes the same files as from SQLite, for an archived session, a live one in another room, and as PDDL", async () => {
    const { dataDir, url } = await bothStores();
    for (const [id, extra] of [["amber-fox-42", []], ["blue-owl-7", []], ["calm-elk-3", []], ["amber-fox-42", ["--pddl"]]] as Array<[string, string[]]>) {
      const { sqlite, pg, sqliteOut, pgOut } = await exportBoth(dataDir, url, id, extra);
      expect(sqlite.code, sqlite.stderr).toBe(0);
      expect(pg.code, pg.stderr).toBe(0);
      expect(pg.stderr).toBe(sqlite.stderr);
      expect(pg.stdout.trim().split("\n").map((p) => basename(p))).toEqual(sqlite.stdout.trim().split("\n").map((p) => basename(p)));
      const files = filesIn(pgOut);
      expect(Object.keys(files).length).toBeGreaterThanOrEqual(4);
      expect(files).toEqual(filesIn(sqliteOut));
      expectNoPassword(pg, url);
    }
    // What the files hold is the session's, not an empty one's.
    const exported = await exportedFrom(url, "amber-fox-42");
    const events = JSON.parse(exported["amber-fox-42.events.json"] ?? "{}") as { session: { status: string }; events: unknown[] };
    expect(events.session.status).toBe("solved");
    expect(events.events).toHaveLength(6);
    const validation = JSON.parse(exported["amber-fox-42.validation.json"] ?? "{}") as { reports: Array<{ report: unknown }> };
    expect(validation.reports.map((r) => r.report)).toEqual([{ conforms: true, results: [] }]);
  }, 90_000);

  it("reads the database the profile's mfr:database names", async () => {
    const { url } = await bothStores();
    const withDatabase = writeConfigProfile(dir, `agent:roomJid "${ROOM_A}" ;`, `mfr:database "${url}" ;`);
    const out = mkdtempSync(join(dir, "out-profile-"));
    const run = await runCli(["export", "blue-owl-7", "--profile", withDatabase, "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("session blue-owl-7: still running");
    expect(readdirSync(out)).toContain("blue-owl-7.events.json");
  });

  it("an unknown session, a session in two rooms, and an unreachable database: one line each, exit 1, no password", async () => {
    const { url, pool } = await bothStores();
    const unknown = await runCli(["export", "no-such-session", "--out", join(dir, "never")], { MFR_DATABASE_URL: url });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1);
    expect(unknown.stderr).toMatch(/there is no session "no-such-session" in postgres:\/\/mfr:\*{3}@127\.0\.0\.1:\d+\//);
    expectNoPassword(unknown, url);

    // The same id started in a second room: which one is meant is not export's to guess.
    const roomC = "room-c@conference.localhost";
    const lease = (await new RoomLeases(pool).claim(roomC, "other", 60_000))!;
    await new PgJournal({ pool, room: roomC, epoch: lease.epoch }).append("calm-elk-3", startInput({ sessionId: "calm-elk-3" }), T0);
    const twice = await runCli(["export", "calm-elk-3", "--out", join(dir, "never")], { MFR_DATABASE_URL: url });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`session "calm-elk-3" is in more than one room`);
    expect(twice.stderr).toContain(`(${ROOM_A}, ${roomC})`);

    const wrong = url.replace(`:${encodeURIComponent(passwordOf(url))}@`, ":not-the-password@");
    const refused = await runCli(["export", "amber-fox-42", "--out", join(dir, "never")], { MFR_DATABASE_URL: wrong });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/cannot read the database postgres:\/\/mfr:\*{3}@.*password authentication failed/);
    expect(refused.stderr).not.toContain("not-the-password");
    expect(existsSync(join(dir, "never"))).toBe(false);
  });

  it("refuses a database without the coordinator's schema", async () => {
    const empty = await server().createDatabase();
    const run = await runCli(["export", "amber-fox-42", "--out", join(dir, "never")], { MFR_DATABASE_URL: empty });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/holds no coordinator data yet/);
    expectNoPassword(run, empty);
  });
});

describe("verify on the shared PostgreSQL store", () => {
  it("replays every session of every room unit, each with its own rooms, and reports as for SQLite", async () => {
    const { dataDir, url } = await bothStores();
    const sqlite = await verify({}, ["--data-dir", dataDir]);
    const pg = await verify({ MFR_DATABASE_URL: url });
    expect(sqlite.code, sqlite.stderr).toBe(0);
    expect(pg.code, pg.stderr).toBe(0);
    expect(pg.stdout).toBe(sqlite.stdout);
    // Room B's session was sent to room B: replayed for the primary room, every stanza would differ.
    const tally = /^verify: 3 sessions, (\d+) stanzas match, 0 differ in wording only, 0 pending, 0 mismatches \(replayed by .+\)$/.exec(pg.stdout.trim());
    expect(Number(tally?.[1])).toBeGreaterThan(6);
    expectNoPassword(pg, url);
  });

  it("finds a stanza sent differently and one not yet sent, in either room, as SQLite does", async () => {
    const { dataDir, url, pool } = await bothStores();
    // The same damage to both: what a stanza decides changed in room A's solved session, the last send of room B's live session gone.
    const sqliteDb = new Database(join(dataDir, DATABASE_FILE));
    sqliteDb.prepare("UPDATE sent SET digest = 'tampered', decisive = 'd1:tampered' WHERE seq = (SELECT min(seq) FROM sent WHERE session_id = 'amber-fox-42')").run();
    sqliteDb.prepare("DELETE FROM sent WHERE seq = (SELECT max(seq) FROM sent WHERE session_id = 'blue-owl-7')").run();
    sqliteDb.close();
    await pool.query("UPDATE journal_sent SET digest = 'tampered', decisive = 'd1:tampered' WHERE seq = (SELECT min(seq) FROM journal_sent WHERE session_id = 'amber-fox-42')");
    await pool.query("DELETE FROM journal_sent WHERE seq = (SELECT max(seq) FROM journal_sent WHERE session_id = 'blue-owl-7')");

    const sqlite = await verify({}, ["--data-dir", dataDir]);
    const pg = await verify({ MFR_DATABASE_URL: url });
    expect(sqlite.code).toBe(1);
    expect(pg.code).toBe(1);
    expect(report(pg)).toEqual(report(sqlite));
    expect(pg.stdout).toMatch(/^amber-fox-42: input 1, stanza 1 \(.*\): sent live deciding otherwise than replay \(not only its wording differs\)$/m);
    expect(pg.stdout).toMatch(/^blue-owl-7: 1 stanza\(s\) not yet sent; the next start sends them$/m);
    expect(pg.stdout.trim().split("\n").at(-1)).toMatch(/^verify: 3 sessions, \d+ stanzas match, 0 differ in wording only, 1 pending, 1 mismatches \(replayed by .+\)$/);
  });

  it("tells stanzas worded otherwise from mismatches, naming the builds that sent them, as SQLite does", async () => {
    const { dataDir, url, pool } = await bothStores();
    // The same records to both: amber-fox-42's first stanza sent by a build that worded it
    // otherwise, and calm-elk-3's stanzas as a build before build ids and decisive digests kept them.
    const sqliteDb = new Database(join(dataDir, DATABASE_FILE));
    sqliteDb.prepare("UPDATE sent SET digest = 'reworded', build = '0.0.9+abc1234' WHERE seq = (SELECT min(seq) FROM sent WHERE session_id = 'amber-fox-42')").run();
    sqliteDb.prepare("UPDATE sent SET digest = 'older', decisive = NULL, build = NULL WHERE session_id = 'calm-elk-3'").run();
    const older = (sqliteDb.prepare("SELECT count(*) AS n FROM sent WHERE session_id = 'calm-elk-3'").get() as { n: number }).n;
    sqliteDb.close();
    await pool.query("UPDATE journal_sent SET digest = 'reworded', build = '0.0.9+abc1234' WHERE seq = (SELECT min(seq) FROM journal_sent WHERE session_id = 'amber-fox-42')");
    await pool.query("UPDATE journal_sent SET digest = 'older', decisive = NULL, build = NULL WHERE session_id = 'calm-elk-3'");
    expect(older).toBeGreaterThan(0);

    const sqlite = await verify({}, ["--data-dir", dataDir]);
    const pg = await verify({ MFR_DATABASE_URL: url });
    expect(sqlite.code, sqlite.stdout).toBe(0);
    expect(pg.code, pg.stdout).toBe(0);
    expect(report(pg)).toEqual(report(sqlite));
    expect(pg.stdout).toMatch(/^amber-fox-42: worded by 0\.0\.9\+abc1234, replayed by \S+.*: 1 message\(s\) differ in wording only$/m);
    expect(pg.stdout).toContain(`calm-elk-3: worded by an earlier build (before build ids were recorded), replayed by `);
    expect(pg.stdout).toMatch(new RegExp(`^verify: 3 sessions, \\d+ stanzas match, ${older + 1} differ in wording only, 0 pending, 0 mismatches`, "m"));

    // --verbose names each stanza, and the build that logged each session's inputs.
    const verbose = await verify({ MFR_DATABASE_URL: url }, ["--verbose"]);
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toMatch(/^amber-fox-42: input 1, stanza 1 \(.+\): differs in wording only \(what it decides is the same\), sent by 0\.0\.9\+abc1234$/m);
    expect(verbose.stdout).toMatch(/^calm-elk-3: input \d+, stanza 1 \(.+\): differs in wording only \(the same kind of stanza; .*\), sent by an earlier build/m);
    expect(verbose.stdout).toMatch(/^amber-fox-42: 6 input\(s\) logged by \S+/m);
  });

  it("reads the database the profile names, and says so in one line when it cannot", async () => {
    const { url } = await bothStores();
    // Room B is not in this profile: its sessions are replayed as a further room's of that name.
    const withDatabase = writeConfigProfile(dir, `agent:roomJid "${ROOM_A}" ;`, `mfr:database "${url}" ;`);
    const run = await runCli(["verify", "--profile", withDatabase]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^verify: 3 sessions, \d+ stanzas match, 0 differ in wording only, 0 pending, 0 mismatches \(replayed by .+\)$/m);

    const port = new URL(url).port;
    const closed = url.replace(`:${port}/`, ":1/");
    const refused = await verify({ MFR_DATABASE_URL: closed });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/cannot read the database postgres:\/\/mfr:\*{3}@127\.0\.0\.1:1\//);
    expectNoPassword(refused, url);
  });
});

describe("backup of the shared PostgreSQL store", () => {
  /** Runs a program to its end with `env` added; its exit code and output. */
  function runProgram(program: string, args: string[], env: Record<string, string>): Promise<CliRun> {
    return new Promise((resolve, reject) => {
      const child = spawn(program, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  }

  /** The words of a printed command line (single quotes as a POSIX shell reads them). */
  function words(line: string): string[] {
    return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!));
  }

  it("writes pg_dump's file with the tally SQLite reports, prints a restore command that restores it into another database", async () => {
    const { dataDir, url } = await bothStores();
    const sqliteFile = join(dir, `sqlite-${Date.now()}.sqlite`);
    const sqlite = await runCli(["backup", sqliteFile, "--data-dir", dataDir]);
    expect(sqlite.code, sqlite.stderr).toBe(0);

    const file = join(dir, `pg-${Date.now()}.dump`);
    const run = await runCli(["backup", file], { MFR_DATABASE_URL: url });
    expect(run.code, run.stderr).toBe(0);
    expectNoPassword(run, url);
    const [first, second] = run.stdout.trim().split("\n");
    const counts = (line: string | undefined) => / (\d+ sessions \(\d+ archived\)), \d+ bytes$/.exec(line ?? "")?.[1];
    expect(counts(first)).toBe("3 sessions (2 archived)");
    expect(counts(first)).toBe(counts(sqlite.stdout.trim()));
    expect(first?.startsWith(`${file}: `)).toBe(true);
    expect(readFileSync(file).subarray(0, 5).toString()).toBe("PGDMP");
    expect(existsSync(`${file}.partial`)).toBe(false);
    const bare = splitDatabaseUrl(url).url;
    expect(second).toBe(`restore with: pg_restore --clean --if-exists -d ${bare} ${file}`);
    expect(run.stderr).toContain("the database password is left out of the restore command");

    // A backup file is never overwritten.
    const again = await runCli(["backup", file], { MFR_DATABASE_URL: url });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");

    // The printed command, into a second database: the same exports and the same verify report.
    const restored = await server().createDatabase();
    const command = words(second!.replace(/^restore with: /, ""));
    expect(command.slice(0, 4)).toEqual(["pg_restore", "--clean", "--if-exists", "-d"]);
    command[4] = splitDatabaseUrl(restored).url;
    const programs = locateBackupPrograms();
    if (!programs) throw new Error(CLIENT_PROGRAMS_MISSING);
    const restore = await runProgram(programs.pg_restore, command.slice(1), { PGPASSWORD: passwordOf(url) });
    expect(restore.code, restore.stderr).toBe(0);
    for (const id of ["amber-fox-42", "blue-owl-7", "calm-elk-3"]) {
      const [before, after] = await Promise.all([exportedFrom(url, id), exportedFrom(restored, id)]);
      expect(Object.keys(after)).toHaveLength(4);
      expect(after).toEqual(before);
    }
    const [original, copy] = await Promise.all([verify({ MFR_DATABASE_URL: url }), verify({ MFR_DATABASE_URL: restored })]);
    expect(copy.stdout).toMatch(/^verify: 3 sessions, \d+ stanzas match, 0 differ in wording only, 0 pending, 0 mismatches \(replayed by .+\)$/m);
    expect(copy.stdout).toBe(original.stdout);
  }, 90_000);

  it("without pg_dump: a clear error naming what to install, and no file", async () => {
    const { url } = await bothStores();
    const reader = await PgStoreReader.open(url);
    const file = join(dir, `missing-${Date.now()}.dump`);
    try {
      await expect(backupDatabase(reader, url, file, () => undefined)).rejects.toThrow(BackupError);
      await expect(backupDatabase(reader, url, file, () => undefined)).rejects.toThrow(/pg_dump and pg_restore are not installed.*postgresql-client/);
    } finally {
      await reader.close();
    }
    expect(existsSync(file)).toBe(false);
  });

  it("a failing pg_dump is one error with its words, the password cut out, and no file", async () => {
    const { url } = await bothStores();
    const bin = mkdtempSync(join(dir, "bin-"));
    // A pg_dump that repeats its environment's password, as a careless program might.
    const fake = join(bin, "pg_dump");
    writeFileSync(fake, '#!/bin/sh\necho "pg_dump: error: cannot connect with $PGPASSWORD" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    const reader = await PgStoreReader.open(url);
    const file = join(dir, `failing-${Date.now()}.dump`);
    try {
      const error = await backupDatabase(reader, url, file, () => ({ pg_dump: fake, pg_restore: fake })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BackupError);
      expect((error as Error).message).toMatch(/pg_dump failed \(exit code 1\): pg_dump: error: cannot connect with \*{3}/);
      expect((error as Error).message).not.toContain(passwordOf(url));
    } finally {
      await reader.close();
    }
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.partial`)).toBe(false);
  });

  it("finds pg_dump and pg_restore together on PATH or in one version's directory", () => {
    const lib = mkdtempSync(join(dir, "lib-"));
    const program = (major: string, name: string): string => {
      mkdirSync(join(lib, major, "bin"), { recursive: true });
      const path = join(lib, major, "bin", name);
      writeFileSync(path, "#!/bin/sh\n");
      chmodSync(path, 0o755);
      return path;
    };
    const noPath = { PATH: mkdtempSync(join(dir, "empty-path-")) };
    expect(locatePostgresPrograms(["pg_dump", "pg_restore"], noPath, lib)).toBeUndefined();
    program("16", "pg_dump");
    // Version 16 lacks pg_restore: both come from 15, not one from each.
    expect(locatePostgresPrograms(["pg_dump", "pg_restore"], noPath, lib)).toBeUndefined();
    const dump15 = program("15", "pg_dump");
    const restore15 = program("15", "pg_restore");
    expect(locatePostgresPrograms(["pg_dump", "pg_restore"], noPath, lib)).toEqual({ pg_dump: dump15, pg_restore: restore15 });
    const restore16 = program("16", "pg_restore");
    expect(locatePostgresPrograms(["pg_dump", "pg_restore"], noPath, lib)).toEqual({ pg_dump: join(lib, "16", "bin", "pg_dump"), pg_restore: restore16 });
    expect(locatePostgresPrograms(["pg_dump", "pg_restore"], { PATH: join(lib, "15", "bin") }, lib)).toEqual({ pg_dump: dump15, pg_restore: restore15 });
  });
});

describe("fleet on the shared database", () => {
  it("lists each instance's rooms with their epochs and leases, the instances standing by, and the rooms nobody owns, by the database's clock", async () => {
    const { url, pools } = await database(1);
    const leases = new RoomLeases(pools[0]!);
    await leases.claim(ROOM_A, "host-1", 60_000);
    await leases.claim(ROOM_B, "host-2", 60_000);
    const lapsed = (await leases.claim("room-c@conference.localhost", "host-1", 60_000))!;
    await leases.release("room-c@conference.localhost", "host-1", lapsed.epoch);
    // host-3 stands by: it said at its last claim that it is claiming; host-1 claims too, as an owner below its limit.
    await pools[0]!.query("INSERT INTO fleet_claimers (instance, seen_until) VALUES ('host-3', now() + interval '1 minute'), ('host-1', now() + interval '1 minute'), ('gone', now() - interval '1 second')");
    const run = await runCli(["fleet"], { MFR_DATABASE_URL: url });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^fleet: 3 rooms, 2 instances holding a lease \(database time \d\d:\d\d:\d\d UTC\)$/);
    expect(lines.slice(1)).toEqual([
      "instance host-1: 1 room",
      expect.stringMatching(new RegExp(`^  ${ROOM_A.replace(/\./g, "\\.")}  epoch 1, owned for .+ \\(taken over at \\d\\d:\\d\\d:\\d\\d\\), lease runs out in (59|1\u00a0min)`)),
      "instance host-2: 1 room",
      expect.stringMatching(new RegExp(`^  ${ROOM_B.replace(/\./g, "\\.")}  epoch 1, owned for`)),
      "standing by (claiming free rooms, no lease): host-3",
      "no owner now: 1 room",
      expect.stringMatching(/^ {2}room-c@conference\.localhost {2}epoch 1, last owner host-1, lease ran out .+ ago$/),
    ]);
    expect(run.stdout).not.toContain(passwordOf(url));
  });

  it("without a shared database says so, exit 2", async () => {
    const run = await runCli(["fleet"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("fleet lists the instances on a shared database");
  });
});
