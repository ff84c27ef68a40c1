/**
 * The direct line (src/xmpp/direct-line.ts): 1:1 chat with people on a second connection of
 * the coordinator's account, so that it never waits behind the room's traffic. Against a
 * real Prosody: the server routes chat sent to the bare JID there (its presence priority is
 * higher), it answers there, it keeps answering while the room connection reads nothing,
 * and while it is down (or turned off) the room connection takes 1:1 chat as before.
 */
import type { Socket } from "node:net";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { Coordinator } from "../../src/coordinator/coordinator.js";
import { LINGUE_FEATURES } from "../../src/base/vocab.js";
import { DirectLine, directLineResource } from "../../src/xmpp/direct-line.js";
import { xml, type Element } from "../../src/xmpp/stanza.js";
import { inProcessCoordinator } from "../support/in-process-coordinator.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { COORDINATOR_NICK, helpAnswer, negotiation } from "../support/room-kit.js";
import { onPostgres } from "../support/test-store.js";
import { until } from "../support/until.js";

const { server, afterThis } = useTestProsody();
const HELP = `${COORDINATOR_NICK} runs Model-First Reasoning sessions.`;

interface Running {
  coordinator: Coordinator;
  jid: string;
  room: string;
  /** The full JIDs of its room connection and its direct line. */
  roomLine: string;
  directLine: string;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.coordinator.stop().catch(() => undefined);
});

/** A coordinator in this process (so a test can take one of its connections away), in a room of its own. */
async function startCoordinator(xmppAccount = ""): Promise<Running> {
  const room = uniqueRoom(server());
  const { coordinator, account, store, resource } = await inProcessCoordinator(server(), room, { log: pino({ level: "silent" }), xmppAccount });
  const r = { coordinator, jid: account.jid, room, roomLine: `${account.jid}/${resource}`, directLine: `${account.jid}/${directLineResource(resource)}` };
  running.push(r);
  afterThis(() => store.close());
  await coordinator.start();
  await until(() => coordinator.rooms.isJoined(room), "the room join");
  return r;
}

/** The coordinator's two ways in, to hand it a stanza as if it had come on one or the other. */
function linesOf(coordinator: Coordinator): { roomConnection(s: Element): void; directLine(s: Element): void } {
  return { roomConnection: (s) => coordinator.pipeline.dispatch(s), directLine: (s) => void coordinator.pipeline.take({ stanza: s, line: "direct-line" }) };
}

async function person(room: string | undefined, nick: string): Promise<TestPeer> {
  const account = await registerUser(server(), nick);
  const peer = await TestPeer.connect(peerOptions(server(), account));
  afterThis(() => peer.stop());
  if (room) await peer.joinRoom(room, nick);
  return peer;
}

/** Asks `help` 1:1 at the bare JID; resolves with the answer. */
async function askHelp(peer: TestPeer, jid: string, timeoutMs = 5000): Promise<ReceivedMessage> {
  const from = peer.messages.length;
  await peer.sendChat(jid, "help");
  return peer.waitForMessage((m) => peer.messages.indexOf(m) >= from && m.type === "chat" && (m.body ?? "").startsWith(HELP), timeoutMs);
}

describe("the direct line", () => {
  it("takes 1:1 chat sent to the bare JID and answers on it; room traffic and private messages through the room stay on the room connection", async () => {
    const { coordinator, jid, room, directLine } = await startCoordinator();
    await until(() => coordinator.directLine?.online === true, "direct line");
    const alice = await person(room, "alice");
    const stranger = await person(undefined, "stranger");

    expect((await askHelp(alice, jid)).from).toBe(directLine);
    // Anyone may ask read-only commands, from outside the room too.
    expect((await askHelp(stranger, jid)).from).toBe(directLine);
    // It answers disco#info and ping there as on its other resource.
    for (const feature of LINGUE_FEATURES) expect(await alice.discoInfo(directLine)).toContain(feature);
    expect(await alice.ping(directLine)).toBe(true);

    // A session started 1:1 runs in the room, said by the occupant.
    await alice.sendChat(jid, "mfr-start Plan a picnic");
    const started = await alice.waitForMessage((m) => m.type === "chat" && /^Started \S+ in /.test(m.body ?? ""));
    expect(started.from).toBe(directLine);
    const sessionId = /^Started (\S+) in /.exec(started.body ?? "")?.[1];
    const request = await alice.waitForMessage(negotiation("ModelContributionRequest", sessionId));
    expect(request.from).toBe(`${room}/${COORDINATOR_NICK}`);

    // A private message through the room comes to the occupant and is answered by it.
    await alice.sendChat(`${room}/${COORDINATOR_NICK}`, "help");
    const viaRoom = await alice.waitForMessage((m) => m.from === `${room}/${COORDINATOR_NICK}` && m.type === "chat" && (m.body ?? "").startsWith(HELP));
    expect(viaRoom).toBeDefined();
    // A stranger may not change anything, on whichever line: the occupant check is the same.
    await stranger.sendChat(jid, `mfr-cancel ${sessionId}`);
    const refused = await stranger.waitForMessage((m) => m.type === "chat" && !(m.body ?? "").startsWith(HELP));
    expect(refused).toMatchObject({ from: directLine, body: expect.stringContaining("Only occupants of the room") });
    expect(coordinator.sessions.session(sessionId ?? "")?.phase).not.toBe("complete");
    // Each 1:1 question was answered once: the server gave it to one resource only.
    await new Promise((r) => setTimeout(r, 200));
    expect(alice.messages.filter((m) => m.from.startsWith(`${jid}/`) && (m.body ?? "").startsWith(HELP))).toHaveLength(1);
  }, 30_000);

  it("a person not subscribed to it sees it online while it answers (directed presence from the line that answers), and sees it go when it stops", async () => {
    const { coordinator, jid, room, directLine } = await startCoordinator();
    await until(() => coordinator.directLine?.online === true, "direct line");
    const alice = await person(room, "alice");
    const fromAccount = (p: Element): boolean => String(p.attrs.from ?? "").startsWith(`${jid}/`);
    // Not subscribed: the coordinator's broadcast presence never reached her.
    expect(alice.presences.filter(fromAccount)).toEqual([]);

    const answer = await askHelp(alice, jid);
    expect(answer.from).toBe(directLine);
    // Before the answer, from the full JID that answers, to hers: her client shows it online.
    const available = alice.presences.filter(fromAccount);
    expect(available.map((p) => [p.attrs.from, p.attrs.to, p.attrs.type])).toEqual([[directLine, alice.jid, undefined]]);
    expect(alice.arrivals.indexOf(available[0] as Element)).toBeLessThan(alice.arrivals.indexOf(answer.stanza));
    // With each answer, so that a client that reconnected under the same full JID sees it again.
    await askHelp(alice, jid);
    expect(alice.presences.filter(fromAccount).filter((p) => p.attrs.type === undefined)).toHaveLength(2);

    // Never to an occupant through the room: presence there would be a join under her nick.
    await alice.sendChat(`${room}/${COORDINATOR_NICK}`, "help");
    await alice.waitForMessage((m) => m.from === `${room}/${COORDINATOR_NICK}` && (m.body ?? "").startsWith(HELP));
    expect(alice.presences.filter(fromAccount)).toHaveLength(2);
    expect(coordinator.rooms.nickIn(room)).toBe(COORDINATOR_NICK);

    await coordinator.stop();
    const gone = await alice.waitForPresence((p) => p.attrs.from === directLine && p.attrs.type === "unavailable");
    expect(gone.attrs.to).toBe(alice.jid);
  }, 30_000);

  it("answers 1:1 help while the room connection reads nothing", async () => {
    const { coordinator, jid, room, directLine } = await startCoordinator();
    await until(() => coordinator.directLine?.online === true, "direct line");
    const alice = await person(room, "alice");
    // Stop reading the room connection's socket, as if megabytes of model parts were ahead of
    // anything new on it (the test reaches into the client for that one socket).
    const roomSocket = (coordinator.connection as unknown as { xmpp: { socket: Socket } }).xmpp.socket;
    roomSocket.pause();
    try {
      await alice.sendGroupchat(room, { body: "help" });
      expect((await askHelp(alice, jid)).from).toBe(directLine);
      // The room's help is still behind the paused socket: only the 1:1 one was answered.
      expect(alice.messages.filter(helpAnswer(room))).toHaveLength(0);
    } finally {
      roomSocket.resume();
    }
    await alice.waitForMessage(helpAnswer(room));
  }, 30_000);

  // Not in a fleet: there every room connection has a negative priority, so that 1:1 chat
  // reaches the primary unit owner's direct line only (src/fleet/room-units.ts); with that
  // line down or turned off the server keeps 1:1 chat to the bare JID for later (mod_offline),
  // and the direct line answers it when it is back (test/integration/sent-while-away.test.ts).
  it.skipIf(onPostgres)("when the direct line is down, or turned off with xmpp:directLine false, the room connection answers 1:1 chat", async () => {
    const first = await startCoordinator();
    await until(() => first.coordinator.directLine?.online === true, "direct line");
    const alice = await person(first.room, "alice");
    expect((await askHelp(alice, first.jid)).from).toBe(first.directLine);
    await first.coordinator.directLine?.stop();
    // The server now routes chat to the bare JID to the one resource left, which answers with its own presence.
    expect((await askHelp(alice, first.jid)).from).toBe(first.roomLine);
    expect(alice.presences.some((p) => p.attrs.from === first.roomLine && p.attrs.type === undefined)).toBe(true);
    // An answer to a question that came on the line before it went leaves on the room connection.
    await first.coordinator.replies.to({ kind: "direct", to: alice.jid, onDirectLine: true }, "late answer");
    const late = await alice.waitForMessage((m) => m.body === "late answer");
    expect(late.from).toBe(first.roomLine);

    const off = await startCoordinator("; xmpp:directLine false");
    expect(off.coordinator.directLine).toBeUndefined();
    expect((await askHelp(alice, off.jid)).from).toBe(off.roomLine);
  }, 30_000);

  it("takes a 1:1 message once when the server gives it to both lines, and nothing a room sends to the direct line", async () => {
    const { coordinator, jid, room } = await startCoordinator();
    await until(() => coordinator.directLine?.online === true, "direct line");
    const alice = await person(room, "alice");
    const lines = linesOf(coordinator);
    // A server that copies a message to the bare JID to every resource (RFC 6121 allows it).
    const copy = () => xml("message", { from: alice.jid, to: jid, type: "chat", id: "same-id-1" }, xml("body", {}, "help"));
    lines.directLine(copy());
    lines.roomConnection(copy());
    await alice.waitForMessage((m) => m.type === "chat" && (m.body ?? "").startsWith(HELP));
    // A room's message on the direct line (where we are in no room) is not input: taken for a
    // private message from an occupant, it would start a session.
    lines.directLine(xml("message", { from: `${room}/alice`, to: jid, type: "chat", id: "pm-1" }, xml("body", {}, "mfr-start Plan a picnic")));
    await new Promise((r) => setTimeout(r, 300));
    expect(alice.messages.filter((m) => (m.body ?? "").startsWith(HELP))).toHaveLength(1);
    expect(coordinator.sessions.liveSessions()).toHaveLength(0);
  }, 30_000);

  it("out of its room (reconnecting), refuses 1:1 commands that change something, and still answers the read-only ones", async () => {
    const { coordinator, jid, room, directLine } = await startCoordinator();
    await until(() => coordinator.directLine?.online === true, "direct line");
    const alice = await person(room, "alice");
    // What the room connection's loss does to the rooms, while the direct line stays up.
    coordinator.rooms.markDisconnected();
    await alice.sendChat(jid, "mfr-start Plan a picnic");
    const refused = await alice.waitForMessage((m) => m.type === "chat" && (m.body ?? "").includes("not in the room right now"));
    expect(refused.from).toBe(directLine);
    expect(coordinator.sessions.liveSessions()).toHaveLength(0);
    expect((await askHelp(alice, jid)).from).toBe(directLine);
  }, 30_000);

  it("a direct line whose server stops answering is dropped by its keep-alive ping, and comes back", async () => {
    const account = await registerUser(server(), "line");
    const lines: string[] = [];
    const log = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line).msg as string) });
    const line = new DirectLine({ service: server().service, domain: server().domain, username: account.username, password: account.password, resource: "probe" }, 65_536, log, {
      keepAliveMs: 200,
      probeTimeoutMs: 500,
    });
    afterThis(() => line.stop());
    line.open(() => undefined);
    await until(() => line.online, "direct line");
    process.kill(server().pid, "SIGSTOP");
    try {
      await until(() => !line.online, "drop of the unanswering line");
      expect(lines).toContain("the server did not answer a ping; dropping the connection to reconnect");
    } finally {
      process.kill(server().pid, "SIGCONT");
    }
    await until(() => line.online, "direct line back", 20_000);
  }, 40_000);
});
