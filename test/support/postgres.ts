/**
 * A throw-away PostgreSQL on loopback for the tests of the shared store (src/store/pg/) and
 * of several coordinators on one database: the server itself is src/localserver/postgres.ts
 * (the benches start it too); here, one server per test file. Tests FAIL with the install
 * command when PostgreSQL is missing; they never skip.
 *
 *   const { server } = useTestPostgres();
 *   it("…", async () => {
 *     const url = await server().createDatabase();   // a fresh, empty database per test
 *     …
 *   });
 *
 * Set POSTGRES_TEST_LOG=1 to print PostgreSQL's log while tests run.
 */
import { startTestPostgres, type StartTestPostgresOptions, type TestPostgres } from "../../src/localserver/postgres.js";
import { useTestServer, type TestServerHandle } from "./test-server.js";

export {
  locatePostgres,
  POSTGRES_INSTALL_COMMAND,
  PostgresNotInstalledError,
  startTestPostgres,
  type StartTestPostgresOptions,
  type TestPostgres,
} from "../../src/localserver/postgres.js";

/** One PostgreSQL for the calling test file: started before its tests, stopped after them. */
export function useTestPostgres(opts: StartTestPostgresOptions = {}): TestServerHandle<TestPostgres> {
  return useTestServer("PostgreSQL", () => startTestPostgres(opts));
}
