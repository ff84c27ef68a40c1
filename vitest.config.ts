import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // One scratch directory per run, removed at its end (test/support/scratch-dir.ts).
    globalSetup: ["./test/support/scratch-dir.ts"],
    // Integration tests each start their own Prosody; two cores, so keep parallelism modest.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
