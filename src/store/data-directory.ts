/**
 * The store's place on disk: the data directory made (never anything in its way removed)
 * and the identity of the store file, so that a file moved, deleted or replaced while open
 * is noticed (SessionStore.writeProblem). The rule kept here: what is in the way is
 * reported as a StoreError, never replaced.
 */
import { mkdirSync, statSync } from "node:fs";
import { errorCode, unwritable } from "./errors.js";

/** A file's device and inode: the same path naming another file has another identity. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** Which file a path names now; undefined when there is none. */
export function fileIdentity(path: string): FileIdentity | undefined {
  try {
    const stat = statSync(path);
    return { dev: stat.dev, ino: stat.ino };
  } catch {
    return undefined;
  }
}

/** Creates the data directory if needed; anything in the way is reported, never removed. */
export function ensureDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    const code = errorCode(error);
    const detail = code === "EEXIST" || code === "ENOTDIR" ? `${code}: a file is in the way of the directory` : `${code ?? "error"}: ${error instanceof Error ? error.message : String(error)}`;
    throw unwritable(dir, detail, error);
  }
  // mkdir succeeds silently on an existing path only if it is a directory, but say so plainly if not.
  if (!statSync(dir).isDirectory()) throw unwritable(dir, "it is not a directory");
}
