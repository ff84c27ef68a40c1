/**
 * `mfr-coordinator backup <file>`: an online backup of the coordinator's database, safe
 * while the coordinator runs. The copy is written beside the destination under a temporary
 * name and renamed only once it is complete and checked, so a file at the destination is
 * always a whole backup; it is a self-contained database (rollback journal, no -wal file
 * needed), restored by stopping the coordinator and putting it in place of
 * `<dataDir>/mfr-coordinator.sqlite`. (The shared PostgreSQL store's backup, by pg_dump, is
 * pg/pg-backup.ts; it writes its file by the same rules, through `writeBackup`.)
 */
import Database from "better-sqlite3";
import { existsSync, renameSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import type { SessionStore } from "./session-store.js";

/** Why a backup was not made, in one line the CLI prints; nothing is left at the destination then. */
export class BackupError extends Error {
  override readonly name = "BackupError";
}

/** A finished backup: where it is, its size in bytes, and how many sessions it holds. */
export interface BackupResult {
  path: string;
  bytes: number;
  /** Sessions in the copy (live and archived), so the operator sees it is not empty. */
  sessions: number;
  archived: number;
}

/**
 * Backs up `store` (writable or read-only) to `destination`, which must not exist: the copy
 * is checked (SQLite integrity check) and then renamed into place, so the destination is a
 * whole backup or absent. Every failure is a BackupError; the partial file is removed.
 */
export async function backupStore(store: SessionStore, destination: string): Promise<BackupResult> {
  return writeBackup(destination, async (partial) => {
    await store.copyTo(partial);
    return checkCopy(partial);
  });
}

/**
 * Writes a backup file by the rules above, whatever makes it: refuses a `destination` that
 * exists, has `write` make and check the copy at `<destination>.partial`, and renames it into
 * place only then; a failure removes the partial file and is a BackupError. Resolves with the
 * absolute path and what `write` said of the copy.
 */
export async function writeBackup<T extends object>(destination: string, write: (partial: string) => Promise<T>): Promise<T & { path: string }> {
  const path = resolve(destination);
  // Never overwrite: a rotation script that reuses a name would otherwise lose its last good copy.
  if (existsSync(path)) throw new BackupError(`${path} already exists; give a new file name (backups are never overwritten)`);
  const partial = `${path}.partial`;
  rmSync(partial, { force: true });
  try {
    const checked = await write(partial);
    renameSync(partial, path);
    return { ...checked, path };
  } catch (error) {
    rmSync(partial, { force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the backup to ${path} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Makes the copy one self-contained file and proves it reads back whole. */
function checkCopy(file: string): Omit<BackupResult, "path"> {
  const db = new Database(file);
  try {
    db.pragma("journal_mode = DELETE");
    const check = String(db.pragma("integrity_check", { simple: true }));
    if (check !== "ok") throw new BackupError(`the copy in ${file} failed SQLite's integrity check: ${check}`);
    const sessions = (db.prepare("SELECT count(*) AS n FROM (SELECT session_id FROM events UNION SELECT id FROM archived_sessions)").get() as { n: number }).n;
    const archived = (db.prepare("SELECT count(*) AS n FROM archived_sessions").get() as { n: number }).n;
    const bytes = Number(db.pragma("page_count", { simple: true })) * Number(db.pragma("page_size", { simple: true }));
    return { bytes, sessions, archived };
  } finally {
    db.close();
  }
}
