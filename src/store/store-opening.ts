/**
 * How SessionStore opens its database file, kept apart from what the store does with it:
 * writable under the data directory's process lock (creating the directory and an empty
 * store if there is none, and migrating an older schema), or read-only beside a running
 * coordinator (no lock, and only a store already at the current schema, since a read-only
 * open cannot migrate). Every failure is a StoreError with a one-line message, and whatever
 * was acquired before it (the lock, the connection) is let go; an existing file is never
 * replaced.
 */
import type BetterSqlite3 from "better-sqlite3";
import { openReadonly, openWritable } from "./database-file.js";
import type { OpenFileOptions } from "./database-file.js";
import { StoreError } from "./errors.js";
import { acquireProcessLock } from "./process-lock.js";
import type { ProcessLock } from "./process-lock.js";
import { migrate, refuseNewer, schemaVersion, SCHEMA_VERSION } from "./schema.js";
import { ensureDirectory } from "./data-directory.js";

/** Where and how to open: the data directory, the database file in it, read-only or not, and the clock migrations stamp. */
export interface StoreLocation {
  readonly dir: string;
  readonly path: string;
  readonly readonly: boolean;
  readonly now: () => number;
}

/**
 * Opens the database at `where`, then hands it to `make` (with the lock held, or undefined
 * when read-only) and returns what `make` built. When opening or `make` throws, the
 * connection is closed and the lock released before the error goes on.
 */
export function openStoreDatabase<T>(where: StoreLocation, opts: OpenFileOptions, make: (db: BetterSqlite3.Database, lock: ProcessLock | undefined) => T): T {
  const { dir, path, now } = where;
  if (where.readonly) return openReadonlyStore(path, opts, make);
  ensureDirectory(dir);
  const lock = acquireProcessLock(dir, now);
  try {
    const db = openWritable(path, opts);
    try {
      migrate(db, path, now);
      return make(db, lock);
    } catch (error) {
      db.close();
      throw error;
    }
  } catch (error) {
    lock.release();
    throw error;
  }
}

function openReadonlyStore<T>(path: string, opts: OpenFileOptions, make: (db: BetterSqlite3.Database, lock: undefined) => T): T {
  const db = openReadonly(path, opts);
  try {
    const version = schemaVersion(db, path);
    refuseNewer(version, path);
    if (version === 0) {
      throw new StoreError("missing", `${path} holds no coordinator data yet; start the coordinator once to create its store`);
    }
    if (version < SCHEMA_VERSION) {
      throw new StoreError("unwritable", `${path} uses an older schema (v${version}) that a read-only open cannot upgrade; start the coordinator once to migrate it`);
    }
    return make(db, undefined);
  } catch (error) {
    db.close();
    throw error;
  }
}
