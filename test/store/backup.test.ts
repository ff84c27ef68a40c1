import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { backupStore, BackupError } from "../../src/store/backup.js";
import { DATABASE_FILE, SessionStore } from "../../src/store/session-store.js";
import { runCli } from "../support/cli.js";
import { T0, completedSession, contribution, start, tempDir } from "./helpers.js";

/** A coordinator's store, open for writing, with two live sessions and one archived, its commits still in the WAL. */
function runningStore(): { dir: string; store: SessionStore } {
  const dir = tempDir();
  const store = SessionStore.open(dir);
  store.append("live-one", start("live-one"), T0);
  store.append("live-one", contribution("live-one", "alice"), T0 + 10);
  store.append("live-two", start("live-two"), T0 + 20);
  store.append("done-one", start("done-one"), T0 + 30);
  store.archive(completedSession("done-one", T0 + 30));
  return { dir, store };
}

/** Opens a backup the way a restore would: as the database of a data directory. */
function restored(backupFile: string): SessionStore {
  const dir = tempDir("mfr-restore-");
  copyFileSync(backupFile, join(dir, DATABASE_FILE));
  return SessionStore.open(dir, { readonly: true });
}

describe("online backup of the database", () => {
  it("copies a store another connection holds open for writing; the copy opens and has every session", async () => {
    const { dir, store } = runningStore();
    const reader = SessionStore.open(dir, { readonly: true });
    const file = join(tempDir("mfr-backup-"), "backup.sqlite");
    const result = await backupStore(reader, file);
    reader.close();
    // The coordinator keeps writing after the backup: the copy is the snapshot, unchanged.
    store.append("live-three", start("live-three"), T0 + 40);
    store.close();

    expect(result).toMatchObject({ path: file, sessions: 3, archived: 1 });
    expect(existsSync(`${file}.partial`)).toBe(false);
    expect(existsSync(`${file}-wal`)).toBe(false);
    const copy = restored(file);
    expect(copy.sessionIds().sort()).toEqual(["done-one", "live-one", "live-two"]);
    expect(copy.eventsOf("live-one").map((e) => e.input.kind)).toEqual(["start", "contribution"]);
    expect(copy.archivedRecord("done-one")?.status).toBe(completedSession("done-one", T0 + 30).completion?.status);
    copy.close();
  });

  it("never overwrites an existing file", async () => {
    const { dir, store } = runningStore();
    const file = join(tempDir("mfr-backup-"), "taken.sqlite");
    writeFileSync(file, "an older backup");
    const reader = SessionStore.open(dir, { readonly: true });
    await expect(backupStore(reader, file)).rejects.toThrow(BackupError);
    await expect(backupStore(reader, file)).rejects.toThrow(/already exists/);
    reader.close();
    store.close();
  });

  it("`mfr-coordinator backup FILE --data-dir DIR` works beside the coordinator that holds the directory", async () => {
    const { dir, store } = runningStore();
    const file = join(tempDir("mfr-backup-"), "cli.sqlite");
    const run = await runCli(["backup", file, "--data-dir", dir]);
    store.close();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(new RegExp(`^${file.replace(/[.]/g, "\\.")}: 3 sessions \\(1 archived\\), \\d+ bytes$`));
    const copy = restored(file);
    expect(copy.sessionIds()).toHaveLength(3);
    copy.close();

    const again = await runCli(["backup", file, "--data-dir", dir]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split("\n")).toHaveLength(1);
    expect(again.stderr).toContain("already exists");
  }, 30_000);
});
