/**
 * SessionStore's health check: why the store would not take the next input, found by
 * trying. A real write (the heartbeat row, committed) meets what an append meets: the write
 * lock, the WAL, a full disk, an I/O error, a file system gone read-only. The file is also
 * looked at by name, since an open SQLite file keeps taking writes after it was made
 * read-only, moved or deleted, and those writes would not be there after a restart.
 */
import type BetterSqlite3 from "better-sqlite3";
import { accessSync, constants } from "node:fs";
import { errorCode } from "./errors.js";
import { fileIdentity, type FileIdentity } from "./data-directory.js";

/** Probes one open store file by a committed write (see the header). */
export class WriteProbe {
  private readonly heartbeat: BetterSqlite3.Statement;
  /** The file as opened (device and inode), to notice it being moved, deleted or replaced. */
  private readonly opened: FileIdentity | undefined;

  constructor(
    db: BetterSqlite3.Database,
    /** The database file, looked at by name. */
    private readonly path: string,
    private readonly now: () => number,
  ) {
    this.heartbeat = db.prepare("INSERT INTO heartbeat (id, at) VALUES (1, @at) ON CONFLICT (id) DO UPDATE SET at = excluded.at");
    this.opened = fileIdentity(path);
  }

  /**
   * Why the next write would fail, in one line, or undefined when it would not; `writable`
   * throws when the store takes no writes at all (closed, read-only), which is the answer then.
   */
  problem(writable: () => void): string | undefined {
    try {
      writable();
      const now = fileIdentity(this.path);
      if (now === undefined) return `the store file ${this.path} is gone (moved or deleted while open); what is written now would be lost at restart`;
      if (this.opened && (now.dev !== this.opened.dev || now.ino !== this.opened.ino)) return `the store file ${this.path} was replaced while open; what is written now would be lost at restart`;
      // As root this always passes (root writes anyway); for anyone else it names a chmod.
      accessSync(this.path, constants.W_OK);
      this.heartbeat.run({ at: this.now() });
      return undefined;
    } catch (error) {
      const code = errorCode(error);
      return `cannot write the store ${this.path} (${code ? `${code}: ` : ""}${error instanceof Error ? error.message : String(error)})`;
    }
  }
}
