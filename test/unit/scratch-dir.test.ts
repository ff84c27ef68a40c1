import { tmpdir } from "node:os";
import { basename, dirname } from "node:path";
import { describe, expect, it } from "vitest";

describe("the test run's scratch directory", () => {
  it("is where the tests' temporary files go, so the run's end removes them all", () => {
    // vitest's global setup (test/support/scratch-dir.ts) points TMPDIR at a directory of the run's own.
    expect(basename(tmpdir())).toMatch(/^mfr-tests-/);
    expect(process.env.TMPDIR).toBe(tmpdir());
    expect(dirname(tmpdir())).not.toBe(tmpdir());
  });
});
