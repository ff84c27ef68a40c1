/**
 * One coordinator per data directory, for the life of the process.
 *
 * The lock is a tiny SQLite file next to the store (`mfr-coordinator.lock`) on which the
 * holder keeps a write transaction (`BEGIN IMMEDIATE`) open until it closes. SQLite takes
 * that as an OS-level (fcntl) lock, so:
 * - a second coordinator fails at once (about 5 ms here, busy timeout 0), in another process
 *   or in the same one;
 * - the kernel drops the lock when the holder dies, even by kill -9, so there is no stale
 *   lock to detect and no pid-reuse guess to get wrong (a pid file after a container restart
 *   often names a live, unrelated pid 1);
 * - a RESERVED lock still lets others read, so the waiting side can name the holder's pid,
 *   and `export` can read the store itself while the coordinator runs.
 * Measured alternatives: a pid file opened with `wx` fails fast (0.3 ms) but needs stale-pid
 * guessing; `locking_mode=EXCLUSIVE` on the store itself fails fast with busy timeout 0 but
 * also shuts out every reader, so `export` could not run next to a live coordinator.
 * Not covered: network file systems whose fcntl locks do not work (keep the data local).
 */
import type BetterSqlite3 from "better-sqlite3";
import Database from "better-sqlite3";
import { join } from "node:path";
import { locked, openFailure } from "./errors.js";
import type { StoreError } from "./errors.js";

export const LOCK_FILE = "mfr-coordinator.lock";

/** The held lock on a data directory (see the header); it lasts until `release` or the process ends. */
export interface ProcessLock {
  readonly path: string;
  /** Lets the next coordinator in. Idempotent. */
  release(): void;
}

/**
 * Takes the data directory's lock at once or throws a StoreError: `locked` (naming the
 * holder's pid when it can be read) while another coordinator, in this process or another,
 * holds it; the reason openFailure gives when the lock file cannot be opened. Never waits.
 */
export function acquireProcessLock(dataDir: string, now: () => number): ProcessLock {
  const path = join(dataDir, LOCK_FILE);
  let db: BetterSqlite3.Database;
  try {
    // Busy timeout 0: if someone holds it, waiting will not help; say so at once.
    db = new Database(path, { timeout: 0 });
  } catch (error) {
    throw openFailure(path, error);
  }
  const holderPid = (): number | undefined => {
    try {
      const row = db.prepare("SELECT pid FROM holder").get() as { pid: number } | undefined;
      return row?.pid;
    } catch {
      // The holder may be mid-commit; the message just leaves the pid out.
      return undefined;
    }
  };
  try {
    // The lock file holds nothing worth a journal on disk.
    db.pragma("journal_mode = MEMORY");
    db.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since INTEGER NOT NULL)");
    // Record who we are, then keep a write transaction open: that is the lock. If someone
    // slips in between COMMIT and the second BEGIN, they hold it and we report locked.
    db.exec("BEGIN IMMEDIATE");
    db.prepare("DELETE FROM holder").run();
    db.prepare("INSERT INTO holder (pid, since) VALUES (?, ?)").run(process.pid, now());
    db.exec("COMMIT");
    db.exec("BEGIN IMMEDIATE");
  } catch (error) {
    let failure: StoreError;
    try {
      failure = openFailure(path, error);
    } catch (unexpected) {
      db.close();
      throw unexpected;
    }
    // Ask for the holder's pid while our connection is still open.
    const pid = failure.reason === "locked" ? holderPid() : undefined;
    db.close();
    throw failure.reason === "locked" ? locked(dataDir, pid, error) : failure;
  }
  let held = true;
  return {
    path,
    release() {
      if (!held) return;
      held = false;
      try {
        db.exec("ROLLBACK");
      } finally {
        db.close();
      }
    },
  };
}
