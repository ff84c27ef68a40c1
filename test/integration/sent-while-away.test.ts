/**
 * A 1:1 command sent while the coordinator is down (kill -9) is kept by the server (offline
 * storage: Prosody's mod_offline, ejabberd's mod_offline) and answered once the coordinator
 * is back, marked as late with the time it was sent; a word that is no command is not; a
 * live command after it is answered as usual; and nothing is answered twice, neither then
 * nor after another kill and start. Against a real Prosody and a real ejabberd 23.01, each
 * with the project's configuration; on SQLite the room connection takes what the server
 * kept (it is first online, priority 0), in a fleet (PostgreSQL) the direct line (every
 * other connection has a negative priority).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { startTestEjabberd, type LocalEjabberd } from "../support/ejabberd.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody, type LocalProsody } from "../support/prosody.js";
import { COORDINATOR_NICK, negotiation } from "../support/room-kit.js";
import { xml } from "../../src/xmpp/stanza.js";

const { server, afterThis } = useTestProsody();
const HELP = `${COORDINATOR_NICK} runs Model-First Reasoning sessions.`;
const LATE = /^\(You sent this at (?:\d{4}-\d\d-\d\d )?(\d\d:\d\d:\d\d) UTC, while I was away; answering now\.\)$/;
const KEPT_LOG = "1:1 message sent while we were away; the server kept it for us";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls an async condition (every 100 ms). */
async function eventually(condition: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The times of day (UTC, to the second) from `from` to `to`, as the coordinator writes them. */
function secondsBetween(from: number, to: number): string[] {
  const out: string[] = [];
  for (let s = Math.floor(from / 1000); s <= Math.floor(to / 1000); s++) out.push(new Date(s * 1000).toISOString().slice(11, 19));
  return out;
}

/** The scenario, on whichever server: a help sent while the coordinator is killed, answered when it is back. */
async function answeredWhenBack(xmpp: LocalProsody, after: (step: () => Promise<unknown>) => void): Promise<void> {
  const room = uniqueRoom(xmpp);
  const options = { server: xmpp, room };
  let coordinator = await CoordinatorProcess.start(options);
  after(() => coordinator.kill());
  const jid = `${coordinator.account.username}@${xmpp.domain}`;
  await coordinator.joined(room);
  await coordinator.takesOneToOneChat();
  const alice = await TestPeer.connect(peerOptions(xmpp, await registerUser(xmpp, "alice")));
  after(() => alice.stop());
  const fromCoordinator = (m: ReceivedMessage) => m.from.startsWith(`${jid}/`) && m.type === "chat";

  // Live, as before: no note.
  await alice.sendChat(jid, "help");
  const live = await alice.waitForMessage((m) => fromCoordinator(m) && (m.body ?? "").startsWith(HELP), 10_000);
  expect(live.delayed).toBe(false);

  await coordinator.kill();
  const resources = [coordinator.resource, coordinator.directResource];
  // The server has ended both of its sessions: a ping to either resource gets an error.
  await eventually(async () => !(await alice.ping(`${jid}/${resources[0]}`, 2000)) && !(await alice.ping(`${jid}/${resources[1]}`, 2000)), "end of the killed coordinator's sessions");
  const seenBefore = alice.messages.length;
  const sentFrom = Date.now();
  await alice.sendChat(jid, "help");
  await alice.sendChat(jid, "are you there?");
  // The server handles a client's stanzas in order: once it answers this ping, it has kept both.
  expect(await alice.ping(xmpp.domain)).toBe(true);
  const sentTo = Date.now();
  // Kept, not refused: the server sent no error back.
  expect(alice.messages.slice(seenBefore).filter((m) => m.type === "error")).toEqual([]);

  const restartedAt = Date.now();
  coordinator = await coordinator.restart(options);
  const late = await alice.waitForMessage((m) => alice.messages.indexOf(m) >= seenBefore && fromCoordinator(m), 30_000);
  if (process.env.MFR_PRINT_FIGURES) console.log(`sent while away: answered ${Date.now() - restartedAt} ms after the restart, from ${late.from}`);
  const [note = "", ...answer] = (late.body ?? "").split("\n");
  expect(note).toMatch(LATE);
  expect(secondsBetween(sentFrom, sentTo)).toContain(LATE.exec(note)?.[1]);
  expect(answer.join("\n")).toContain(HELP);
  // Both were taken in; the one that is no command is said in the log, and not answered (below).
  await coordinator.waitForLogCount((l) => l.msg === KEPT_LOG, 2);
  await coordinator.waitForLog((l) => l.msg === "1:1 message sent while we were away is no command; not answered");

  // A live command after it is answered as usual.
  await alice.sendChat(jid, "mfr-list");
  const list = await alice.waitForMessage((m) => alice.messages.indexOf(m) > alice.messages.indexOf(late) && fromCoordinator(m), 10_000);
  expect(list.body).not.toMatch(/^\(You sent this/);
  expect(list.body).not.toContain(HELP);

  // Killed and started again: what was answered is not answered again.
  await coordinator.kill();
  await eventually(async () => !(await alice.ping(`${jid}/${coordinator.resource}`, 2000)), "end of the killed coordinator's session");
  coordinator = await coordinator.restart(options);
  await coordinator.joined(room);
  await coordinator.takesOneToOneChat(15_000);
  await coordinator.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("caught up on") && l.room === room, 30_000);
  await alice.sendChat(jid, "mfr-list");
  const again = await alice.waitForMessage((m) => alice.messages.indexOf(m) > alice.messages.indexOf(list) && fromCoordinator(m), 10_000);
  expect(again.body).toBe(list.body);
  await sleep(500);
  expect(coordinator.logs.some((l) => l.msg === KEPT_LOG)).toBe(false);
  // Everything the coordinator said to alice after the first kill: the late help and two lists, once each.
  expect(alice.messages.slice(seenBefore).filter(fromCoordinator).map((m) => m.body)).toEqual([late.body, list.body, list.body]);
}

describe("a 1:1 command sent while the coordinator is away", () => {
  it("on Prosody (mod_offline): answered when it is back, marked late with when it was sent; a live one after as usual; nothing twice", async () => {
    await answeredWhenBack(server(), afterThis);
  }, 120_000);

  it("a late mfr-start waits until the coordinator is back in its room, and starts the session there", async () => {
    const room = uniqueRoom(server());
    const options = { server: server(), room };
    let coordinator = await CoordinatorProcess.start(options);
    afterThis(() => coordinator.kill());
    const jid = `${coordinator.account.username}@${server().domain}`;
    await coordinator.joined(room);
    const alice = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
    afterThis(() => alice.stop());
    await alice.joinRoom(room, "alice");
    await coordinator.kill();
    await eventually(async () => !(await alice.ping(`${jid}/${coordinator.resource}`, 2000)) && !(await alice.ping(`${jid}/${coordinator.directResource}`, 2000)), "end of the killed coordinator's sessions");
    await alice.sendChat(jid, "mfr-start Plan a picnic for six");
    expect(await alice.ping(server().domain)).toBe(true);
    coordinator = await coordinator.restart(options);
    // Answered only once it is in the room again: not "I am not in the room right now".
    const answer = await alice.waitForMessage((m) => m.from.startsWith(`${jid}/`) && m.type === "chat", 30_000);
    const [note = "", started = ""] = (answer.body ?? "").split("\n");
    expect(note).toMatch(LATE);
    expect(started).toMatch(new RegExp(`^Started \\S+ in ${room.replace(/[.]/g, "\\.")}\\.$`));
    const sessionId = /^Started (\S+) in /.exec(started)?.[1];
    await alice.waitForMessage(negotiation("ModelContributionRequest", sessionId), 10_000);
    // Stopped in order, so that what it sent is recorded for the replay check below (on PostgreSQL the records are written behind).
    expect((await coordinator.terminate()).code).toBe(0);
  }, 90_000);

  it("a resource of the account with a negative priority (as a fleet's standby has) is given nothing: the command is kept for the coordinator", async () => {
    const room = uniqueRoom(server());
    const options = { server: server(), room };
    let coordinator = await CoordinatorProcess.start(options);
    afterThis(() => coordinator.kill());
    const jid = `${coordinator.account.username}@${server().domain}`;
    await coordinator.joined(room);
    const alice = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
    afterThis(() => alice.stop());
    await coordinator.kill();
    await eventually(async () => !(await alice.ping(`${jid}/${coordinator.resource}`, 2000)) && !(await alice.ping(`${jid}/${coordinator.directResource}`, 2000)), "end of the killed coordinator's sessions");
    const standby = await TestPeer.connect({ ...peerOptions(server(), coordinator.account), resource: "standby", available: false });
    afterThis(() => standby.stop());
    const reflected = standby.waitForPresence((p) => p.attrs.from === standby.jid);
    await standby.sendRaw(xml("presence", {}, xml("priority", {}, "-1")));
    await reflected;
    await alice.sendChat(jid, "help");
    expect(await alice.ping(server().domain)).toBe(true);
    await sleep(300);
    expect(standby.messages.filter((m) => m.body !== undefined)).toEqual([]);
    coordinator = await coordinator.restart(options);
    const late = await alice.waitForMessage((m) => m.from.startsWith(`${jid}/`) && m.type === "chat", 30_000);
    expect((late.body ?? "").split("\n")[0]).toMatch(LATE);
    expect(late.from).not.toBe(standby.jid);
    expect(standby.messages.filter((m) => m.body !== undefined)).toEqual([]);
  }, 90_000);

  describe("on ejabberd 23.01 (mod_offline, as ejabberd/ejabberd.yml loads it)", () => {
    let ejabberd: LocalEjabberd | undefined;
    beforeAll(async () => {
      ejabberd = await startTestEjabberd();
    }, 60_000);
    afterAll(async () => {
      await ejabberd?.stop();
    });

    it("answered when it is back, marked late with when it was sent; a live one after as usual; nothing twice", async () => {
      if (!ejabberd) throw new Error("ejabberd is not running");
      await answeredWhenBack(ejabberd, afterThis);
    }, 120_000);
  });
});

itReplaysEveryLoggedSessionAsSent();
