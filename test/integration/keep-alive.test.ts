/**
 * Keeping in touch (src/xmpp/keep-alive.ts): the room connection pings its server and itself
 * in each room (XEP-0410), so that a silently dead socket, a join that failed after a
 * reconnect, or a room that lost us without a word do not leave the coordinator deaf for as
 * long as it runs. Against a real Prosody, with the checks every 200 ms instead of every minute.
 */
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { Coordinator } from "../../src/coordinator/coordinator.js";
import { NS_MUC_USER, xml, type Element } from "../../src/xmpp/stanza.js";
import { inProcessCoordinator } from "../support/in-process-coordinator.js";
import { TestPeer } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody, type TestAccount } from "../support/prosody.js";
import { COORDINATOR_NICK } from "../support/room-kit.js";
import { until } from "../support/until.js";

const { server, afterThis } = useTestProsody();
const KEEP_ALIVE = { keepAliveMs: 200, probeTimeoutMs: 500, bannedRetryMs: 2000 };
const NS_MUC_OWNER = "http://jabber.org/protocol/muc#owner";
const NS_MUC_ADMIN = "http://jabber.org/protocol/muc#admin";

interface LogLine {
  msg: string;
  line?: string;
  err?: string;
}

interface Running {
  coordinator: Coordinator;
  account: TestAccount;
  logs: LogLine[];
}

const running: Coordinator[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop().catch(() => undefined);
});

/** A coordinator in this process, checking in every 200 ms, its log lines kept. */
async function startCoordinator(room: string, keepAlive = KEEP_ALIVE): Promise<Running> {
  const logs: LogLine[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
  const { coordinator, account, store } = await inProcessCoordinator(server(), room, { log, keepAlive });
  afterThis(() => store.close());
  running.push(coordinator);
  await coordinator.start();
  return { coordinator, account, logs };
}

async function person(room: string, nick: string): Promise<TestPeer> {
  const account = await registerUser(server(), nick);
  const peer = await TestPeer.connect(peerOptions(server(), account));
  afterThis(() => peer.stop());
  await peer.joinRoom(room, nick);
  return peer;
}

/** The coordinator's own presence in the room, as an occupant sees it arrive. */
function coordinatorArrives(peer: TestPeer, room: string): Promise<Element> {
  return peer.waitForPresence((p) => p.attrs.from === `${room}/${COORDINATOR_NICK}` && p.attrs.type !== "unavailable", 10_000);
}

/** `help` said in the room is answered there: the coordinator hears the room and speaks in it. */
async function answersInRoom(peer: TestPeer, room: string): Promise<void> {
  await peer.sendGroupchat(room, { body: `${COORDINATOR_NICK}: help` });
  await peer.waitForMessage((m) => m.from === `${room}/${COORDINATOR_NICK}` && (m.body ?? "").includes("mfr-start"), 10_000);
}

async function iq(peer: TestPeer, to: string, child: Element): Promise<void> {
  await peer.xmpp.iqCaller.request(xml("iq", { type: "set", to }, child), 5000);
}

/** Makes the room forget the coordinator while the news never reaches it (its answer to our leaving is swallowed). */
async function leaveUnheard(coordinator: Coordinator, room: string): Promise<() => number> {
  const rooms = coordinator.rooms as unknown as { handlePresence(p: Element): boolean };
  const handle = rooms.handlePresence.bind(coordinator.rooms);
  let swallowed = 0;
  rooms.handlePresence = (p) => {
    const selfPresence = p.getChild("x", NS_MUC_USER)?.getChildren("status").some((s) => s.attrs.code === "110") ?? false;
    if (p.attrs.type === "unavailable" && selfPresence && swallowed === 0) {
      swallowed++;
      return true;
    }
    return handle(p);
  };
  await coordinator.connection.send(xml("presence", { to: `${room}/${COORDINATOR_NICK}`, type: "unavailable" }));
  return () => swallowed;
}

describe("keeping in touch with the server and the rooms", () => {
  it("drops a room connection whose server stops answering, comes back, and is in its room again", async () => {
    const room = uniqueRoom(server());
    const { coordinator, logs } = await startCoordinator(room);
    await until(() => coordinator.rooms.isJoined(room), "the room join");
    process.kill(server().pid, "SIGSTOP");
    try {
      await until(() => !coordinator.connection.online, "drop of the unanswering room connection");
      expect(logs.some((l) => l.line === "room" && l.msg === "the server did not answer a ping; dropping the connection to reconnect")).toBe(true);
    } finally {
      process.kill(server().pid, "SIGCONT");
    }
    await until(() => coordinator.rooms.isJoined(room), "the room joined again", 20_000);
    try {
      await answersInRoom(await person(room, "alice"), room);
    } catch (err) {
      // What the coordinator did meanwhile says why (a second drop, a catch-up that waited).
      const tail = logs.slice(-60).map((l) => JSON.stringify(l)).join("\n");
      throw new Error(`${err instanceof Error ? err.message : String(err)}\nthe coordinator's last log lines:\n${tail}`);
    }
  }, 40_000);

  it("a ping asked on a stream that dropped meanwhile leaves the stream that replaced it alone", async () => {
    const room = uniqueRoom(server());
    const { coordinator, logs } = await startCoordinator(room, { ...KEEP_ALIVE, keepAliveMs: 60_000, probeTimeoutMs: 10_000 });
    await until(() => coordinator.rooms.isJoined(room), "the room join");
    process.kill(server().pid, "SIGSTOP");
    let probe: Promise<boolean>;
    try {
      probe = coordinator.connection.probe(4000);
      (coordinator.connection as unknown as { xmpp: { socket?: { destroy(): void } } }).xmpp.socket?.destroy();
      await until(() => !coordinator.connection.online, "the drop");
    } finally {
      process.kill(server().pid, "SIGCONT");
    }
    await until(() => coordinator.connection.online, "the new stream", 10_000);
    // The old stream's ping times out on the new one's watch: no answer, but nothing dropped.
    expect(await probe).toBe(false);
    expect(logs.some((l) => l.msg === "the server did not answer a ping; dropping the connection to reconnect")).toBe(false);
    expect(coordinator.connection.online).toBe(true);
  }, 40_000);

  it("knocks again on a room that refused it until the room lets it in", async () => {
    const room = uniqueRoom(server());
    // The owner makes the room members-only before the coordinator comes.
    const owner = await person(room, "owner");
    await iq(
      owner,
      room,
      xml(
        "query",
        { xmlns: NS_MUC_OWNER },
        xml(
          "x",
          { xmlns: "jabber:x:data", type: "submit" },
          xml("field", { var: "FORM_TYPE" }, xml("value", {}, "http://jabber.org/protocol/muc#roomconfig")),
          xml("field", { var: "muc#roomconfig_membersonly" }, xml("value", {}, "1")),
        ),
      ),
    );
    const { coordinator, account, logs } = await startCoordinator(room);
    await until(() => logs.some((l) => l.msg === "could not join the room" && (l.err ?? "").includes("registration-required")), "the refused join");
    const refusedAt = logs.length;
    // Still out a few checks later: nobody let it in yet.
    await new Promise((r) => setTimeout(r, 3 * KEEP_ALIVE.keepAliveMs));
    expect(coordinator.rooms.isJoined(room)).toBe(false);
    expect(logs.slice(refusedAt).some((l) => l.msg === "not in the room; joining again")).toBe(true);

    const arrives = coordinatorArrives(owner, room);
    await iq(owner, room, xml("query", { xmlns: NS_MUC_ADMIN }, xml("item", { affiliation: "member", jid: account.jid })));
    await arrives;
    await until(() => coordinator.rooms.isJoined(room), "the join once a member");
    await answersInRoom(owner, room);
  }, 40_000);

  it("finds out by a self-ping that the room lost it without a word, and joins again", async () => {
    const room = uniqueRoom(server());
    const { coordinator, logs } = await startCoordinator(room);
    await until(() => coordinator.rooms.isJoined(room), "the room join");
    const alice = await person(room, "alice");
    // The room forgets us, and the news never reaches the coordinator (as when the room's
    // service restarts behind a link that stays up).
    const gone = alice.waitForPresence((p) => p.attrs.from === `${room}/${COORDINATOR_NICK}` && p.attrs.type === "unavailable", 5000);
    const swallowed = await leaveUnheard(coordinator, room);
    await gone;
    const back = coordinatorArrives(alice, room);
    await until(() => logs.some((l) => l.msg === "the room no longer counts us as an occupant; joining again"), "the self-ping's finding");
    expect(swallowed()).toBe(1);
    await back;
    await until(() => coordinator.rooms.isJoined(room), "the join again");
    await answersInRoom(alice, room);
  }, 40_000);

  it("finds out that its room is gone altogether (Prosody: item-not-found), and makes it anew", async () => {
    const room = uniqueRoom(server());
    const { coordinator, logs } = await startCoordinator(room);
    await until(() => coordinator.rooms.isJoined(room), "the room join");
    // Alone in a non-persistent room: when the room forgets us, the room itself goes.
    const swallowed = await leaveUnheard(coordinator, room);
    await until(() => logs.some((l) => l.msg === "the room no longer counts us as an occupant; joining again"), "the self-ping's finding");
    expect(swallowed()).toBe(1);
    await until(() => coordinator.rooms.isJoined(room), "the join again");
    const alice = await person(room, "alice");
    await answersInRoom(alice, room);
  }, 40_000);

  it("after a kick, waits its pause before joining again, checks or no checks", async () => {
    const room = uniqueRoom(server());
    const owner = await person(room, "owner");
    const { coordinator, logs } = await startCoordinator(room);
    await until(() => coordinator.rooms.isJoined(room), "the room join");
    await iq(owner, room, xml("query", { xmlns: NS_MUC_ADMIN }, xml("item", { nick: COORDINATOR_NICK, role: "none" })));
    await until(() => logs.some((l) => l.msg === "left the room involuntarily"), "the kick");
    const kickedAt = Date.now();
    await until(() => coordinator.rooms.isJoined(room), "the join after the pause", 15_000);
    // Twenty checks fell in the pause; none of them joined early.
    expect(Date.now() - kickedAt).toBeGreaterThanOrEqual(4000);
  }, 40_000);

  it("knocks again, now and then, on a room that banned it, and is back once the ban is lifted", async () => {
    const room = uniqueRoom(server());
    const owner = await person(room, "owner");
    const { coordinator, account, logs } = await startCoordinator(room);
    await until(() => coordinator.rooms.isJoined(room), "the room join");
    await iq(owner, room, xml("query", { xmlns: NS_MUC_ADMIN }, xml("item", { affiliation: "outcast", jid: account.jid })));
    await until(() => logs.some((l) => l.msg === "left the room involuntarily"), "the ban");
    const bannedAt = Date.now();
    const knocks = () => logs.filter((l) => l.msg === "trying again the room that banned us, in case the ban was lifted").length;
    // Ten checks pass without a knock; then one, refused, and the next only after another while.
    await until(() => knocks() === 1, "a knock after the ban", 5000);
    expect(Date.now() - bannedAt).toBeGreaterThanOrEqual(KEEP_ALIVE.bannedRetryMs - 100);
    await until(() => logs.some((l) => l.msg === "could not join the room" && (l.err ?? "").includes("forbidden")), "the refusal");
    await new Promise((r) => setTimeout(r, KEEP_ALIVE.bannedRetryMs / 2));
    expect(knocks()).toBe(1);
    expect(logs.some((l) => l.msg === "not in the room; joining again")).toBe(false);

    const arrives = coordinatorArrives(owner, room);
    await iq(owner, room, xml("query", { xmlns: NS_MUC_ADMIN }, xml("item", { affiliation: "none", jid: account.jid })));
    await arrives;
    await until(() => coordinator.rooms.isJoined(room), "the join once the ban is lifted");
    await answersInRoom(owner, room);
  }, 40_000);

  it("leaves a room it is in alone: its self-pings are answered, and nobody sees it come and go", async () => {
    const room = uniqueRoom(server());
    const { coordinator, logs } = await startCoordinator(room);
    await until(() => coordinator.rooms.isJoined(room), "the room join");
    const alice = await person(room, "alice");
    const before = alice.presences.length;
    const answers: string[] = [];
    const ping = coordinator.connection.ping.bind(coordinator.connection);
    coordinator.connection.ping = async (jid, timeoutMs) => {
      const answer = await ping(jid, timeoutMs);
      if (jid === `${room}/${COORDINATOR_NICK}`) answers.push(answer.kind);
      return answer;
    };
    await new Promise((r) => setTimeout(r, 5 * KEEP_ALIVE.keepAliveMs));
    // It did ask, and the room said it is in.
    expect(answers.length).toBeGreaterThan(0);
    expect(new Set(answers)).toEqual(new Set(["result"]));
    expect(logs.some((l) => l.msg === "the room no longer counts us as an occupant; joining again" || l.msg === "not in the room; joining again")).toBe(false);
    expect(alice.presences.slice(before).filter((p) => String(p.attrs.from).endsWith(`/${COORDINATOR_NICK}`))).toEqual([]);
    expect(coordinator.rooms.isJoined(room)).toBe(true);
  }, 40_000);
});
