import { defineConfig } from "vitest/config";

/**
 * Two projects, one run: `sqlite` is every test, the coordinators on their embedded SQLite
 * file; `postgres` is the integration tests again, each coordinator a one-instance fleet on
 * a PostgreSQL database (MFR_TEST_STORE, test/support/test-store.ts). One of them alone:
 * `npx vitest run --project postgres test/integration/session.test.ts`.
 */
const shared = {
  // One scratch directory per run, removed at its end (test/support/scratch-dir.ts).
  globalSetup: ["./test/support/scratch-dir.ts"],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // Integration tests each start their own Prosody; two cores, so keep parallelism modest.
    maxWorkers: 2,
    projects: [
      { test: { ...shared, name: "sqlite", include: ["test/**/*.test.ts"], env: { MFR_TEST_STORE: "sqlite" } } },
      { test: { ...shared, name: "postgres", include: ["test/integration/**/*.test.ts"], env: { MFR_TEST_STORE: "postgres" } } },
    ],
  },
});
