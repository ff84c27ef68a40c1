/**
 * A coordinator in the test's own process, with a store in a directory of its own, in one room
 * of a test Prosody: for tests that reach into it (take a connection away, watch its checks).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { loadConfig } from "../../src/config/load.js";
import { Coordinator, type CoordinatorOptions } from "../../src/coordinator.js";
import { writeLocalAgentProfile } from "../../src/localserver/agent-profile.js";
import type { LocalProsody } from "../../src/localserver/index.js";
import { SessionStore } from "../../src/store/index.js";
import { registerUser, type TestAccount } from "./prosody.js";
import { COORDINATOR_NICK } from "./room-kit.js";

export interface InProcessCoordinator {
  coordinator: Coordinator;
  /** Its account on the server. */
  account: TestAccount;
  store: SessionStore;
}

export interface InProcessOptions {
  log: Logger;
  /** Turtle added to the profile's XMPP account (e.g. `; xmpp:directLine false`). */
  xmppAccount?: string;
  keepAlive?: CoordinatorOptions["keepAlive"];
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
  const store = SessionStore.open(config.dataDir);
  const coordinator = new Coordinator({ config, log: options.log, store, ...(options.keepAlive ? { keepAlive: options.keepAlive } : {}) });
  return { coordinator, account, store };
}
