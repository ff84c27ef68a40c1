/**
 * `mfr-coordinator backup <file>` for the shared PostgreSQL store: PostgreSQL's own
 * `pg_dump --format=custom`, safe while instances write (one consistent snapshot). The file
 * follows the SQLite backup's rules (backup.ts: written to `<file>.partial`, checked, renamed;
 * never overwritten). Checked means `pg_restore --list` reads it back and it holds the
 * journal; the sessions it reports are counted in the very snapshot pg_dump copies.
 * Restored with `pg_restore --clean --if-exists -d <url> <file>` (restoreCommand).
 *
 * The database password never reaches output, logs or another program's command line: the
 * programs get the URL without it and the password in PGPASSWORD (their own environment,
 * readable by the same user only), and what they print is shown with it cut out.
 */
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { PASSWORD_MASK, splitDatabaseUrl } from "../../config/shared-settings.js";
import { BackupError, writeBackup, type BackupResult } from "../backup.js";
import type { PgStoreReader } from "./pg-store-reader.js";
import { DEBIAN_POSTGRES_LIB, locatePostgresPrograms } from "../../localserver/postgres-programs.js";

/** The programs a backup runs: pg_dump makes the file, pg_restore checks it (and restores it later). */
export interface BackupPrograms {
  readonly pg_dump: string;
  readonly pg_restore: string;
}

/** A finished PostgreSQL backup: as a SQLite one, plus the command that restores it (password left out). */
export interface PgBackupResult extends BackupResult {
  /** `pg_restore --clean --if-exists -d <url> <file>`, quoted for a POSIX shell; the URL without its password. */
  restoreCommand: string;
  /** Whether the URL had a password, which the operator then gives pg_restore (PGPASSWORD, ~/.pgpass). */
  passwordLeftOut: boolean;
}

/** The one line that says what to install when pg_dump or pg_restore is missing. */
export const CLIENT_PROGRAMS_MISSING =
  `pg_dump and pg_restore are not installed (neither on PATH nor in ${DEBIAN_POSTGRES_LIB}/*/bin): ` +
  "install PostgreSQL's client programs (Debian: apt-get install postgresql-client), of the server's major version or newer";

/** pg_dump and pg_restore of one version (programs.ts), or undefined when they are not installed. */
export function locateBackupPrograms(env: NodeJS.ProcessEnv = process.env): BackupPrograms | undefined {
  return locatePostgresPrograms(["pg_dump", "pg_restore"], env);
}

/**
 * Backs the database of `url` (open in `reader`) up to `destination`, which must not exist,
 * with the programs `locate` finds (default: as above). Every failure is a BackupError in
 * one line without the password; the partial file is removed.
 */
export async function backupDatabase(
  reader: PgStoreReader,
  url: string,
  destination: string,
  locate: () => BackupPrograms | undefined = locateBackupPrograms,
): Promise<PgBackupResult> {
  const programs = locate();
  if (programs === undefined) throw new BackupError(CLIENT_PROGRAMS_MISSING);
  const { url: bare, password } = splitDatabaseUrl(url);
  // The programs' environment: the password there, never on their command line.
  const env: NodeJS.ProcessEnv = { ...process.env, ...(password !== undefined ? { PGPASSWORD: password } : {}) };
  const scrub = (text: string): string => (password ? text.split(password).join(PASSWORD_MASK) : text);
  const result = await writeBackup(destination, (partial) =>
    reader.withSnapshot(async (snapshot, tally) => {
      // --no-password: fail at once rather than wait for a prompt nobody sees.
      await run(programs.pg_dump, ["--format=custom", `--file=${partial}`, `--snapshot=${snapshot}`, "--no-password", `--dbname=${bare}`], env, scrub);
      const listing = await run(programs.pg_restore, ["--list", partial], env, scrub);
      if (!/\bTABLE\b.*\bjournal_events\b/.test(listing)) throw new BackupError(`the copy in ${partial} does not hold the session journal (pg_restore --list shows no journal_events table)`);
      return { ...tally, bytes: statSync(partial).size };
    }),
  );
  return {
    ...result,
    restoreCommand: ["pg_restore", "--clean", "--if-exists", "-d", bare, result.path].map(shellWord).join(" "),
    passwordLeftOut: password !== undefined,
  };
}

/** Runs a program to its end; resolves with its standard output, or rejects with a BackupError naming it and its last words. */
function run(program: string, args: string[], env: NodeJS.ProcessEnv, scrub: (text: string) => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", (error) => reject(new BackupError(`cannot run ${program}: ${error.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) return resolve(stdout);
      const said = scrub(stderr.trim()).split("\n").filter(Boolean).join("; ");
      reject(new BackupError(`${program} failed (${code === null ? `signal ${signal}` : `exit code ${code}`})${said ? `: ${said}` : ""}`));
    });
  });
}

/** A word as a POSIX shell reads it back unchanged: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
