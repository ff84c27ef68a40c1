/**
 * Opening the store's SQLite file without ever damaging what is already there: nothing is
 * written until a real read has shown the file is a database, so a damaged or foreign file
 * is reported and left byte-for-byte as it was.
 *
 * Settings, and why:
 * - `journal_mode = WAL`: an append is one small sequential write, and readers (export,
 *   a read-only mfr-list) never block the writer.
 * - `synchronous = NORMAL`: a commit is a write() into the WAL, not an fsync. Once write()
 *   returns, the data is in the kernel's page cache, which outlives the process, so a crash
 *   of the coordinator — an exception, an OOM kill, kill -9 — loses nothing that `append`
 *   returned (test/store/durability.test.ts kills a writer with SIGKILL to check). The WAL is
 *   fsynced at each checkpoint. What it does not cover: power loss or a kernel crash can
 *   lose the last commits since the previous checkpoint (never corrupting the database);
 *   `FULL` would close that gap at the cost of an fsync per input.
 * - `busy_timeout` 250 ms: the process lock keeps other writers out; the only waits left are
 *   a reader's brief WAL-index lock, which take microseconds.
 * - `journal_size_limit` 64 MiB: after a checkpoint the WAL file is truncated back to this,
 *   so one burst of inputs does not leave a large file behind for ever.
 */
import type BetterSqlite3 from "better-sqlite3";
import Database from "better-sqlite3";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { corrupted, errorCode, openFailure, StoreError, unwritable } from "./errors.js";

export const BUSY_TIMEOUT_MS = 250;
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;
/**
 * `PRAGMA quick_check` reads every page: about 1.1 ms per MB here (150 ms at 140 MB,
 * 1.9 s at 1.4 GB). Up to this size it runs at every open; beyond it only the header and
 * schema are read, and damage elsewhere surfaces as SQLITE_CORRUPT when it is touched.
 */
export const QUICK_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/** How the store file is opened; `quickCheckMaxBytes` (default QUICK_CHECK_MAX_BYTES) bounds the size checked whole at open. */
export interface OpenFileOptions {
  quickCheckMaxBytes?: number;
}

/** Opens (creating if absent) the store file for writing, in WAL mode. */
export function openWritable(path: string, options: OpenFileOptions = {}): BetterSqlite3.Database {
  const size = existingFileSize(path);
  if (size !== undefined) {
    try {
      // As root this always passes; elsewhere it names the problem before SQLite hides it.
      accessSync(path, constants.R_OK | constants.W_OK);
    } catch (error) {
      throw unwritable(path, `${errorCode(error) ?? "no access"}: the file is not readable and writable by this user`, error);
    }
  }
  const db = connect(path, {});
  try {
    verify(db, path, size, options);
    const mode = String(db.pragma("journal_mode = WAL", { simple: true }));
    if (mode !== "wal") throw unwritable(path, `SQLite would not switch to WAL mode (journal_mode is ${mode})`);
    db.pragma("synchronous = NORMAL");
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    return db;
  } catch (error) {
    db.close();
    throw error instanceof StoreError ? error : openFailure(path, error);
  }
}

/** Opens an existing store file read-only (export, listing), next to a running coordinator or not. */
export function openReadonly(path: string, options: OpenFileOptions = {}): BetterSqlite3.Database {
  const size = existingFileSize(path);
  if (size === undefined) {
    throw new StoreError("missing", `${path} does not exist; the coordinator has stored nothing in this data directory yet (mfr:dataDir or MFR_DATA_DIR)`);
  }
  const db = connect(path, { readonly: true, fileMustExist: true });
  try {
    verify(db, path, size, options);
    return db;
  } catch (error) {
    db.close();
    throw error instanceof StoreError ? error : openFailure(path, error);
  }
}

/**
 * A second connection to a store the coordinator already opened (and migrated), for the
 * model worker to write blobs through (blobs.ts). The file must exist; WAL mode is a
 * property of the file, `synchronous` one of the connection, so it is set here as well.
 */
export function openSecondWriter(path: string): BetterSqlite3.Database {
  const db = connect(path, { fileMustExist: true });
  try {
    db.pragma("synchronous = NORMAL");
    return db;
  } catch (error) {
    db.close();
    throw error instanceof StoreError ? error : openFailure(path, error);
  }
}

function connect(path: string, options: BetterSqlite3.Options): BetterSqlite3.Database {
  try {
    return new Database(path, { ...options, timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    throw openFailure(path, error);
  }
}

/** Size of an existing file at `path`, undefined when there is none; a directory there is unwritable. */
function existingFileSize(path: string): number | undefined {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  if (!stat.isFile()) throw unwritable(path, "it exists but is not a regular file");
  return stat.size;
}

/** Proves the file is a readable database before anything writes to it. */
function verify(db: BetterSqlite3.Database, path: string, size: number | undefined, options: OpenFileOptions): void {
  // The first real read: SQLite checks the 100-byte header and reads page 1 (the schema).
  // Garbage gives SQLITE_NOTADB here; a damaged schema page gives SQLITE_CORRUPT.
  db.prepare("SELECT count(*) FROM sqlite_master").get();
  if (size !== undefined && size > 0 && size <= (options.quickCheckMaxBytes ?? QUICK_CHECK_MAX_BYTES)) {
    const result = db.pragma("quick_check", { simple: true });
    if (result !== "ok") throw corrupted(path, `quick_check: ${String(result)}`);
  }
}
