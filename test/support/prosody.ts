/**
 * Test helpers for a real Prosody on loopback (see src/localserver/). Tests that need it
 * FAIL with the install command when Prosody is missing; they never skip silently.
 *
 * The pattern (one server per test file; ~0.1 s to start, accounts ~3 ms each):
 *
 *   import { afterAll, beforeAll, it } from "vitest";
 *   import { startTestProsody, registerUser, uniqueRoom, type LocalProsody } from "./prosody.js";
 *   import { TestPeer } from "./peer.js";
 *
 *   let server: LocalProsody;
 *   beforeAll(async () => { server = await startTestProsody(); });
 *   afterAll(async () => { await server?.stop(); });   // stop peers first: stop() is then instant
 *
 *   it("…", async () => {
 *     const alice = await registerUser(server, "alice");
 *     const peer = await TestPeer.connect(peerOptions(server, alice));
 *     try {
 *       await peer.joinRoom(uniqueRoom(server), "alice");
 *       …
 *     } finally {
 *       await peer.stop();
 *     }
 *   });
 *
 * Set PROSODY_TEST_LOG=1 to print Prosody's warnings/errors while tests run.
 */
import {
  ensureProsody,
  startLocalProsody,
  type LocalProsody,
  type StartLocalProsodyOptions,
} from "../../src/localserver/index.js";
import { useTestServer, type TestServerHandle } from "./test-server.js";

export type { LocalProsody, StartLocalProsodyOptions };

/** Starts a throw-away Prosody; throws ProsodyNotInstalledError (with the install command) if missing. */
export async function startTestProsody(opts: StartLocalProsodyOptions = {}): Promise<LocalProsody> {
  const commands = opts.commands ?? (await ensureProsody({ allowInstall: false }));
  const onLog =
    opts.onLog ?? (process.env.PROSODY_TEST_LOG ? (line: string) => console.error(`[prosody] ${line}`) : undefined);
  return startLocalProsody({ ...opts, commands, ...(onLog ? { onLog } : {}) });
}

let counter = 0;

/** A username no other test (or worker) uses: `${prefix}-${pid}-${n}-${random}`, lower case. */
export function uniqueUser(prefix = "user"): string {
  counter += 1;
  const random = Math.random().toString(36).slice(2, 7);
  return `${prefix}-${process.pid}-${counter}-${random}`.toLowerCase();
}

/** A fresh room JID on the server's MUC service, e.g. "room-123-4-abcde@conference.localhost". */
export function uniqueRoom(server: Pick<LocalProsody, "mucDomain">, prefix = "room"): string {
  return `${uniqueUser(prefix)}@${server.mucDomain}`;
}

export interface TestAccount {
  username: string;
  password: string;
  /** Bare JID, e.g. "alice-1-2-xyz@localhost". */
  jid: string;
}

/** Registers a fresh account named after `prefix`. */
export async function registerUser(server: LocalProsody, prefix = "user"): Promise<TestAccount> {
  const username = uniqueUser(prefix);
  const password = `pw-${username}`;
  await server.register(username, password);
  return { username, password, jid: `${username}@${server.domain}` };
}

/** The connection options for TestPeer.connect / @xmpp/client for an account on `server`. */
export function peerOptions(
  server: LocalProsody,
  account: Pick<TestAccount, "username" | "password">,
): { service: string; domain: string; username: string; password: string } {
  return { service: server.service, domain: server.domain, username: account.username, password: account.password };
}

/**
 * One Prosody for the calling test file (started before its tests, stopped after), and a
 * list of clean-up steps run after each test in reverse order (peers, coordinators).
 */
export function useTestProsody(opts: StartLocalProsodyOptions = {}): TestServerHandle<LocalProsody> {
  return useTestServer("Prosody", () => startTestProsody(opts));
}
