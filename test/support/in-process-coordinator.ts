/**
 * A coordinator in the test's own process, with a store in a directory of its own, in one room
 * of a test Prosody: for tests that reach into it (take a connection away, watch its checks).
 * On PostgreSQL (MFR_TEST_STORE=postgres, test/support/test-store.ts) it is the primary room
 * unit's coordinator of a one-instance fleet, on a fresh database.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { loadConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import { Coordinator, type CoordinatorOptions } from "../../src/coordinator/coordinator.js";
import { modelWorkerOf } from "../../src/launch/launched-coordinator.js";
import { writeLocalAgentProfile } from "../../src/localserver/agent-profile.js";
import type { LocalProsody } from "../../src/localserver/index.js";
import { SessionStore } from "../../src/store/index.js";
import { registerUser, type TestAccount } from "./prosody.js";
import { COORDINATOR_NICK } from "./room-kit.js";
import { onPostgres, openInProcessPgStore, roomResourceOf } from "./test-store.js";

/** A coordinator built in this process, and what it runs on. */
export interface BuiltCoordinator {
  coordinator: Coordinator;
  /** Its store: close it once the coordinator has stopped. */
  store: { close(): Promise<void> };
  /** The resource of its room connection: the profile's, or on PostgreSQL `<resource>-<instance>-0`. Its direct line's is made from it (`directLineResource`). */
  resource: string;
}

export interface InProcessCoordinator extends BuiltCoordinator {
  /** Its account on the server. */
  account: TestAccount;
}

export interface InProcessOptions {
  log: Logger;
  /** Turtle added to the profile's XMPP account (e.g. `; xmpp:directLine false`). */
  xmppAccount?: string;
  keepAlive?: CoordinatorOptions["keepAlive"];
}

/**
 * The coordinator for `config` (not started yet), on the SQLite file of its data directory,
 * or on PostgreSQL as the primary unit's coordinator of a fleet instance.
 */
export async function buildCoordinator(config: Config, log: Logger, more: Omit<CoordinatorOptions, "config" | "log" | "store" | "fleet" | "models"> = {}): Promise<BuiltCoordinator> {
  if (onPostgres) {
    const pg = await openInProcessPgStore(config, log);
    const coordinator = new Coordinator({ ...more, config: pg.config, log, store: pg.store, fleet: pg.fleet, models: modelWorkerOf(pg.config, pg.store, () => {}) });
    return { coordinator, store: { close: () => pg.close() }, resource: roomResourceOf(config.xmpp.resource, pg.instanceId) };
  }
  const store = SessionStore.open(config.dataDir);
  const coordinator = new Coordinator({ ...more, config, log, store, models: modelWorkerOf(config, store, () => {}) });
  return { coordinator, store: { close: async () => store.close() }, resource: config.xmpp.resource };
}

/** Makes the coordinator (not started yet): the caller starts it, and stops it and closes its store when done. */
export async function inProcessCoordinator(server: LocalProsody, room: string, options: InProcessOptions): Promise<InProcessCoordinator> {
  const dir = mkdtempSync(join(tmpdir(), "mfr-in-process-"));
  const account = await registerUser(server, "coordinator");
  const { profile, secrets } = writeLocalAgentProfile(dir, {
    node: "coordinator",
    nick: COORDINATOR_NICK,
    server,
    account,
    passwordKey: "coordinator",
    resource: COORDINATOR_NICK,
    room,
    mfrConfig: `mfr:dataDir "${join(dir, "data")}" ; mfr:enableDebate false ;`,
    xmppAccount: options.xmppAccount ?? "",
  });
  const config = loadConfig({ profile, secrets }, {}, dir);
  const built = await buildCoordinator(config, options.log, options.keepAlive ? { keepAlive: options.keepAlive } : {});
  return { ...built, account };
}
