/** The store's readiness probe: a real write, and the file still being the one that was opened. */
import { chmodSync, renameSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { DATABASE_FILE, SessionStore } from "../../src/store/session-store.js";
import { T0, tempDir } from "./helpers.js";

describe("SessionStore.writeProblem", () => {
  it("is undefined for a store that takes writes, and the heartbeat row holds the latest probe", () => {
    const dir = tempDir();
    let now = T0;
    const store = SessionStore.open(dir, { now: () => now });
    expect(store.writeProblem()).toBeUndefined();
    now = T0 + 5;
    expect(store.writeProblem()).toBeUndefined();
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    expect(db.prepare("SELECT id, at FROM heartbeat").all()).toEqual([{ id: 1, at: T0 + 5 }]);
    db.close();
    store.close();
  });

  it("names the write lock held by someone else", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    const other = new Database(join(dir, DATABASE_FILE));
    other.exec("BEGIN IMMEDIATE");
    try {
      expect(store.writeProblem()).toMatch(/cannot write the store .*SQLITE_BUSY/);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(store.writeProblem()).toBeUndefined();
    store.close();
  });

  it("says when the file was moved away while open (writes would be lost at restart)", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    renameSync(join(dir, DATABASE_FILE), join(dir, "aside.sqlite"));
    expect(store.writeProblem()).toMatch(/is gone \(moved or deleted while open\)/);
    store.close();
  });

  it("says when the store is closed or was opened read-only", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    store.close();
    expect(store.writeProblem()).toMatch(/is closed/);
    const readonly = SessionStore.open(dir, { readonly: true });
    expect(readonly.writeProblem()).toMatch(/opened read-only/);
    readonly.close();
  });

  it.skipIf(process.getuid?.() === 0)("says when the file was made read-only (not as root, whom chmod does not stop)", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    chmodSync(join(dir, DATABASE_FILE), 0o444);
    try {
      expect(store.writeProblem()).toMatch(/EACCES/);
    } finally {
      chmodSync(join(dir, DATABASE_FILE), 0o644);
      store.close();
    }
  });
});
