import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { StoreError } from "../../src/store/errors.js";
import type { StoreErrorReason } from "../../src/store/errors.js";
import { DATABASE_FILE, SessionStore } from "../../src/store/session-store.js";
import { SCHEMA_VERSION } from "../../src/store/schema.js";
import type { ChildProcess } from "node:child_process";
import { T0, killHard, spawnStoreChild, start, tempDir, waitForLine } from "./helpers.js";

/** The StoreError that opening throws; fails the test if it opens or throws something else. */
function openFailure(dataDir: string, opts: Parameters<typeof SessionStore.open>[1] = {}): StoreError {
  let store: SessionStore | undefined;
  try {
    store = SessionStore.open(dataDir, opts);
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  store.close();
  throw new Error(`expected ${dataDir} not to open`);
}

function expectOneLine(error: StoreError, reason: StoreErrorReason, mentions: string): void {
  expect(error.reason).toBe(reason);
  expect(error.message).not.toContain("\n");
  expect(error.message).toContain(mentions);
}

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) await killHard(child);
});

describe("opening the store", () => {
  it("creates a missing data directory, nested, with the database in it", () => {
    const dir = join(tempDir(), "nested", "data");
    const store = SessionStore.open(dir);
    expect(store.path).toBe(join(dir, DATABASE_FILE));
    expect(existsSync(store.path)).toBe(true);
    const db = new Database(store.path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare("SELECT version FROM schema_version").get()).toEqual({ version: SCHEMA_VERSION });
    db.close();
    store.close();
  });

  it("reports a file of garbage as corrupted and leaves it byte for byte as it was", () => {
    const dir = tempDir();
    const path = join(dir, DATABASE_FILE);
    const garbage = Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256));
    writeFileSync(path, garbage);

    const error = openFailure(dir);
    expectOneLine(error, "corrupted", path);
    expect(error.message).toMatch(/move it aside to start empty, or restore a backup/);
    expect(readFileSync(path).equals(garbage)).toBe(true);
    // The failed open let go of the data directory: trying again says the same, not "locked".
    expect(openFailure(dir).reason).toBe("corrupted");
    // No WAL or shared-memory file was started next to it either.
    expect(readdirSync(dir).filter((f) => f.startsWith(DATABASE_FILE))).toEqual([DATABASE_FILE]);
  });

  it("reports a database with damaged pages as corrupted", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    for (let i = 0; i < 2000; i++) store.append(`s${i}`, start(`s${i}`), T0 + i);
    store.close();
    const path = join(dir, DATABASE_FILE);
    const bytes = readFileSync(path);
    // Keep the header and schema page; scribble over pages in the middle.
    bytes.fill(0xab, 4096 * 3, 4096 * 8);
    writeFileSync(path, bytes);
    expectOneLine(openFailure(dir), "corrupted", path);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("reports locked, fast, while another process holds the data directory, and opens once it is killed", async () => {
    const dir = tempDir();
    const holder = spawnStoreChild(["hold", dir]);
    children.push(holder);
    const ready = await waitForLine(holder, /^(ready|error) /);
    expect(ready).toMatch(/^ready \d+$/);

    const began = performance.now();
    const error = openFailure(dir);
    const elapsed = performance.now() - began;
    expectOneLine(error, "locked", dir);
    expect(error.message).toContain(`pid ${holder.pid}`);
    expect(elapsed).toBeLessThan(2000);

    // The lock dies with its holder: no stale lock to clear by hand.
    await killHard(holder);
    const store = SessionStore.open(dir);
    store.close();
  });

  it("reports locked for a second open in the same process, and lets it in after close", () => {
    const dir = tempDir();
    const first = SessionStore.open(dir);
    expectOneLine(openFailure(dir), "locked", dir);
    first.close();
    SessionStore.open(dir).close();
  });

  it("still lets a read-only store read next to the running coordinator", () => {
    const dir = tempDir();
    const writer = SessionStore.open(dir);
    writer.append("a", start("a"), T0);
    const reader = SessionStore.open(dir, { readonly: true });
    expect(reader.liveEvents().map((e) => e.sessionId)).toEqual(["a"]);
    writer.append("b", start("b"), T0 + 1);
    expect(reader.liveEvents()).toHaveLength(2);
    reader.close();
    writer.close();
  });

  it("reports unwritable when the data directory is a file", () => {
    const parent = tempDir();
    const file = join(parent, "data");
    writeFileSync(file, "not a directory");
    expectOneLine(openFailure(file), "unwritable", file);
    expect(readFileSync(file, "utf8")).toBe("not a directory");
  });

  it("reports unwritable when the data directory would be inside a file (ENOTDIR)", () => {
    const parent = tempDir();
    writeFileSync(join(parent, "file"), "x");
    const dir = join(parent, "file", "data");
    const error = openFailure(dir);
    expectOneLine(error, "unwritable", dir);
    expect(error.message).toContain("ENOTDIR");
  });

  it("reports unwritable when the database path is a directory", () => {
    const dir = tempDir();
    mkdirSync(join(dir, DATABASE_FILE));
    expectOneLine(openFailure(dir), "unwritable", join(dir, DATABASE_FILE));
  });

  it.skipIf(process.getuid?.() === 0)("reports unwritable for a directory this user cannot write (not as root)", () => {
    const dir = join(tempDir(), "ro");
    mkdirSync(dir, { mode: 0o500 });
    try {
      expectOneLine(openFailure(dir), "unwritable", dir);
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it("refuses a store written by a newer coordinator, and leaves it alone", () => {
    const dir = tempDir();
    SessionStore.open(dir).close();
    const path = join(dir, DATABASE_FILE);
    const db = new Database(path);
    db.prepare("UPDATE schema_version SET version = ?").run(SCHEMA_VERSION + 1);
    db.close();
    const error = openFailure(dir);
    expectOneLine(error, "newer-schema", path);
    expect(error.message).toContain(`v${SCHEMA_VERSION + 1}`);
    const after = new Database(path, { readonly: true });
    expect(after.prepare("SELECT version FROM schema_version").get()).toEqual({ version: SCHEMA_VERSION + 1 });
    after.close();
  });

  it("refuses another program's SQLite database instead of adding tables to it", () => {
    const dir = tempDir();
    const path = join(dir, DATABASE_FILE);
    const db = new Database(path);
    db.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY)");
    db.close();
    expectOneLine(openFailure(dir), "foreign", path);
    const after = new Database(path, { readonly: true });
    expect(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: "photos" }]);
    after.close();
  });

  it("reports a read-only open of a store that does not exist as missing, without creating anything", () => {
    const dir = join(tempDir(), "nothing-here");
    expectOneLine(openFailure(dir, { readonly: true }), "missing", dir);
    expect(existsSync(dir)).toBe(false);
  });
});
