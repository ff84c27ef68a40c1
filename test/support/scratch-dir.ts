/**
 * vitest's global setup: every test run writes its scratch files (coordinators' profiles,
 * secrets and stores, Prosody's data, exports) under one directory of its own, and removes it
 * when the run ends. Without it each run left some 400 directories in the system's temp
 * directory, passwords and session stores included.
 *
 * It works through TMPDIR, which `os.tmpdir()` reads: test workers and every process the
 * tests start inherit it. `MFR_KEEP_TEST_FILES=1` keeps the directory (its path is printed)
 * to read a failed run's coordinator logs and stores.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "mfr-tests-"));
  process.env.TMPDIR = dir;
  return () => {
    if (process.env.MFR_KEEP_TEST_FILES === "1") {
      console.log(`test files kept in ${dir}`);
      return;
    }
    // Retries: a server stopped by the last test may still be closing its files.
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
}
