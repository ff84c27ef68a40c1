/**
 * Why the store could not be opened, in words an operator can act on. The coordinator
 * prints `message` as its one line at start and exits non-zero, so every message names the
 * file and says what to do; `reason` lets callers (and tests) tell the cases apart.
 */

export type StoreErrorReason =
  /** Not a SQLite file, or damaged pages. Never repaired or replaced automatically. */
  | "corrupted"
  /** Another coordinator process holds the data directory. */
  | "locked"
  /** The directory or file cannot be created or written (permissions, read-only fs, not a directory, disk full). */
  | "unwritable"
  /** Written by a newer coordinator whose schema this one does not know. */
  | "newer-schema"
  /** A SQLite database, but some other program's: it has tables and no schema version of ours. */
  | "foreign"
  /** Read-only open of a store that does not exist (yet). */
  | "missing"
  /** The shared PostgreSQL database could not be reached or read (refused, no such database, a wrong password). */
  | "unreachable";

/** An open (or read) failure of the store: `reason` for code, `message` one line for the operator (line breaks are flattened). */
export class StoreError extends Error {
  override readonly name = "StoreError";
  constructor(
    readonly reason: StoreErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    // One line, always: the CLI prints it as is.
    super(message.replace(/\s*\n\s*/g, " "), options);
  }
}

/** The `code` of a Node (`EACCES`) or better-sqlite3 (`SQLITE_BUSY_SNAPSHOT`) error, if any. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  return undefined;
}

function has(code: string, base: string): boolean {
  // Extended SQLite codes refine a primary one: SQLITE_READONLY_DBMOVED is a SQLITE_READONLY.
  return code === base || code.startsWith(`${base}_`);
}

const UNWRITABLE_NODE_CODES = new Set(["EACCES", "EPERM", "EROFS", "ENOTDIR", "EEXIST", "ENOSPC", "EISDIR", "ENOENT"]);

/** Which open failure an error from fs or SQLite is, or undefined for a bug to rethrow as is. */
export function classify(error: unknown): Exclude<StoreErrorReason, "newer-schema" | "foreign" | "missing" | "unreachable"> | undefined {
  const code = errorCode(error);
  if (code === undefined) return undefined;
  if (has(code, "SQLITE_NOTADB") || has(code, "SQLITE_CORRUPT")) return "corrupted";
  if (has(code, "SQLITE_BUSY") || has(code, "SQLITE_LOCKED")) return "locked";
  if (
    has(code, "SQLITE_READONLY") ||
    has(code, "SQLITE_CANTOPEN") ||
    has(code, "SQLITE_PERM") ||
    has(code, "SQLITE_AUTH") ||
    has(code, "SQLITE_FULL") ||
    has(code, "SQLITE_IOERR") ||
    UNWRITABLE_NODE_CODES.has(code)
  ) {
    return "unwritable";
  }
  return undefined;
}

/** The store file is not SQLite or is damaged: the message says to move it aside or restore a backup, never that it was repaired. */
export function corrupted(path: string, detail: string, cause?: unknown): StoreError {
  return new StoreError(
    "corrupted",
    `${path} is not a valid SQLite database or is damaged (${detail}); move it aside to start empty, or restore a backup`,
    { cause },
  );
}

/** Another coordinator holds the data directory; names its pid when known, and how to give this one its own directory. */
export function locked(path: string, holderPid: number | undefined, cause?: unknown): StoreError {
  const who = holderPid === undefined ? "another coordinator" : `another coordinator (pid ${holderPid})`;
  return new StoreError(
    "locked",
    `${path} is in use by ${who}; stop it first, or give this one its own data directory (mfr:dataDir or MFR_DATA_DIR)`,
    { cause },
  );
}

/** The data directory or file cannot be created or written: the message names the cause (`detail`) and the settings to change. */
export function unwritable(path: string, detail: string, cause?: unknown): StoreError {
  return new StoreError(
    "unwritable",
    `cannot write ${path} (${detail}); make sure the data directory is a directory this user can write (mfr:dataDir or MFR_DATA_DIR)`,
    { cause },
  );
}

/** Turns an fs/SQLite failure at open into the StoreError it stands for; anything else is rethrown untouched. */
export function openFailure(path: string, error: unknown): StoreError {
  const reason = classify(error);
  const detail = `${errorCode(error) ?? "error"}: ${error instanceof Error ? error.message : String(error)}`;
  switch (reason) {
    case "corrupted":
      return corrupted(path, detail, error);
    case "locked":
      return locked(path, undefined, error);
    case "unwritable":
      return unwritable(path, detail, error);
    default:
      throw error;
  }
}
