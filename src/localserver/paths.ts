/**
 * Where the repository's Prosody config lives. Found relative to this module file, so it
 * works from `src/localserver/*.ts` (vitest, tsx) and from `dist/src/localserver/*.js`.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The config file's path relative to the repository root. */
export const LOCAL_CONFIG_RELATIVE = "prosody/local.cfg.lua";

/**
 * Walks up from `start` (a file URL or path; default: this module) to the first directory
 * that contains `prosody/local.cfg.lua`. Throws if there is none.
 */
export function findRepoRoot(start: string | URL = import.meta.url): string {
  const startPath = typeof start === "string" && !start.startsWith("file:") ? start : fileURLToPath(start);
  let dir = dirname(startPath);
  for (;;) {
    if (existsSync(join(dir, LOCAL_CONFIG_RELATIVE))) return dir;
    const up = dirname(dir);
    if (up === dir) {
      throw new Error(`cannot find ${LOCAL_CONFIG_RELATIVE} in any directory above ${startPath}`);
    }
    dir = up;
  }
}

/** Absolute path of `prosody/local.cfg.lua`. */
export function localConfigPath(start?: string | URL): string {
  return join(findRepoRoot(start), LOCAL_CONFIG_RELATIVE);
}
