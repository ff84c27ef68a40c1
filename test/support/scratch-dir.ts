/**
 * vitest's global setup: every test run writes its scratch files (coordinators' profiles,
 * secrets and stores, Prosody's data, exports) under one directory of its own, and removes it
 * when the run ends. Without it each run left some 400 directories in the system's temp
 * directory, passwords and session stores included.
 *
 * It works through TMPDIR, which `os.tmpdir()` reads: test workers and every process the
 * tests start inherit it. `MFR_KEEP_TEST_FILES=1` keeps the directory (its path is printed)
 * to read a failed run's coordinator logs and stores.
 *
 * Each project of vitest.config.ts runs it: the first makes the directory, the others use
 * the same one, and the last teardown removes it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Scratch {
  dir: string;
  users: number;
}

const KEY = Symbol.for("mfr.test.scratch-dir");
const shared = globalThis as { [KEY]?: Scratch };

export default function setup(): () => void {
  const scratch = (shared[KEY] ??= { dir: mkdtempSync(join(tmpdir(), "mfr-tests-")), users: 0 });
  scratch.users += 1;
  process.env.TMPDIR = scratch.dir;
  return () => {
    scratch.users -= 1;
    if (scratch.users > 0) return;
    delete shared[KEY];
    if (process.env.MFR_KEEP_TEST_FILES === "1") {
      console.log(`test files kept in ${scratch.dir}`);
      return;
    }
    // Retries: a server stopped by the last test may still be closing its files.
    rmSync(scratch.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
}
