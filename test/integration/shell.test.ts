import { describe, expect, it } from "vitest";
import { LINGUE_FEATURES, Mode } from "../../src/base/vocab.js";
import { LOST_CONNECTION_LOG } from "../../src/xmpp/connection.js";
import { syntheticContribution } from "../../src/rdf/synthetic.js";
import { CoordinatorProcess } from "../support/coordinator-process.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, startTestProsody, useTestProsody } from "../support/prosody.js";

const { server, afterThis } = useTestProsody();

async function coordinatorIn(room: string, extra: Partial<Parameters<typeof CoordinatorProcess.start>[0]> = {}): Promise<CoordinatorProcess> {
  const coordinator = await CoordinatorProcess.start({ server: server(), room, ...extra });
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  return coordinator;
}

async function peerIn(room: string, nick: string): Promise<TestPeer> {
  const account = await registerUser(server(), nick.toLowerCase());
  const peer = await TestPeer.connect(peerOptions(server(), account));
  afterThis(() => peer.stop());
  await peer.joinRoom(room, nick);
  return peer;
}

/** A line said in the room under `nick` (not the room's subject, which a room the coordinator created gives from its nick at every join). */
const fromNick = (room: string, nick: string) => (m: ReceivedMessage) => m.from === `${room}/${nick}` && m.type === "groupchat" && m.body !== undefined;
/** An answer about the sender's own input comes privately: the sender may be an agent. */
const privatelyFrom = (room: string, nick: string) => (m: ReceivedMessage) => m.from === `${room}/${nick}` && m.type === "chat";

describe("the coordinator in a real room", () => {
  it("joins the room and answers help there and in 1:1 chat, and mfr-list", async () => {
    const room = uniqueRoom(server());
    const coordinator = await coordinatorIn(room);
    const alice = await peerIn(room, "alice");

    await alice.sendGroupchat(room, { body: "help" });
    const help = await alice.waitForMessage(fromNick(room, "Coordinator"));
    expect(help.body).toContain("mfr-start <problem>");
    expect(help.body).toContain("mfr-list");

    await coordinator.takesOneToOneChat();
    await alice.sendChat(coordinator.jid, "help");
    const direct = await alice.waitForMessage((m) => m.type === "chat" && m.from.startsWith(coordinator.jid));
    expect(direct.body).toContain("mfr-status");

    await alice.sendGroupchat(room, { body: "Coordinator: mfr-list" });
    const list = await alice.waitForMessage(fromNick(room, "Coordinator"));
    expect(list.body).toMatch(/No sessions/);
  });

  it("ignores chatter, its own echoes and the room's history", async () => {
    const room = uniqueRoom(server());
    await coordinatorIn(room);
    const alice = await peerIn(room, "alice");
    await alice.sendGroupchat(room, { body: "hello everyone, starting soon" });
    await alice.sendGroupchat(room, { body: "help me decide" });
    await alice.sendGroupchat(room, { body: "mfr-list" });
    const reply = await alice.waitForMessage(fromNick(room, "Coordinator"));
    // The first thing it said is the answer to mfr-list: the chatter got no reply.
    expect(reply.body).toMatch(/No sessions/);
    await new Promise((r) => setTimeout(r, 200));
    expect(alice.messages.filter(fromNick(room, "Coordinator"))).toHaveLength(1);
  });

  it("answers disco#info with the Lingue features, and ping, on its occupant JID", async () => {
    const room = uniqueRoom(server());
    const coordinator = await coordinatorIn(room);
    const alice = await peerIn(room, "alice");
    const features = await alice.discoInfo(`${room}/Coordinator`);
    for (const feature of LINGUE_FEATURES) expect(features).toContain(feature);
    expect(await alice.ping(`${room}/Coordinator`)).toBe(true);
    expect(await alice.ping(`${coordinator.jid}/${coordinator.resource}`)).toBe(true);
  });

  it("takes another nick when its own is taken, and answers under it", async () => {
    const room = uniqueRoom(server());
    const squatter = await peerIn(room, "Coordinator");
    const coordinator = await CoordinatorProcess.start({ server: server(), room });
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    const joined = coordinator.logs.find((l) => l.msg === "joined the room");
    expect(joined?.nick).toBe("Coordinator-2");
    await squatter.sendGroupchat(room, { body: "Coordinator-2: help" });
    const help = await squatter.waitForMessage(fromNick(room, "Coordinator-2"));
    expect(help.body).toContain("mfr-start");
  });

  it("refuses commands from agents unless allow-listed", async () => {
    const room = uniqueRoom(server());
    await coordinatorIn(room, { mfrConfig: 'mfr:allowCommandsFrom "trusted" ;' });
    const bot = await peerIn(room, "bot");
    const trusted = await peerIn(room, "trusted");
    for (const agent of [bot, trusted]) {
      // Sending a protocol payload marks the sender as an agent.
      await agent.sendGroupchat(room, { payload: { mode: Mode.HumanChat, mime: "text/plain", content: "status" } });
    }
    await bot.sendGroupchat(room, { body: "mfr-list" });
    const refusal = await bot.waitForMessage(privatelyFrom(room, "Coordinator"));
    expect(refusal.body).toMatch(/^I take commands from people, not from agents/);

    await trusted.sendGroupchat(room, { body: "mfr-list" });
    const answer = await trusted.waitForMessage((m) => fromNick(room, "Coordinator")(m) && /No sessions/.test(m.body ?? ""));
    expect(answer.body).toMatch(/No sessions/);
  });

  it("survives bad input: oversized messages, floods and malformed payloads", async () => {
    const room = uniqueRoom(server());
    const coordinator = await coordinatorIn(room, { mfrConfig: "mfr:maxInboundBytes 4096 ; mfr:messagesPerMinute 20 ;" });
    const mallory = await peerIn(room, "mallory");

    await mallory.sendGroupchat(room, { body: `mfr-start ${"x".repeat(8000)}` });
    const tooLarge = await mallory.waitForMessage(privatelyFrom(room, "Coordinator"));
    expect(tooLarge.body).toMatch(/over my limit of 4\.0\sKiB/);

    await mallory.sendGroupchat(room, { payload: { mode: Mode.ModelNegotiation, mime: "application/json", content: "{ not json" } });
    await mallory.sendGroupchat(room, { payload: { mode: "urn:nonsense", mime: "x/y", content: "<<>>&" } });

    for (let i = 0; i < 25; i++) await mallory.sendGroupchat(room, { body: "mfr-list" });
    const throttled = await mallory.waitForMessage((m) => privatelyFrom(room, "Coordinator")(m) && /too fast/.test(m.body ?? ""));
    expect(throttled.body).toMatch(/^You are sending too fast/);

    // Others are unaffected and the process is still alive.
    const alice = await peerIn(room, "alice");
    await alice.sendGroupchat(room, { body: "help" });
    await alice.waitForMessage((m) => fromNick(room, "Coordinator")(m) && (m.body ?? "").includes("mfr-start"));
    expect(coordinator.child.exitCode).toBeNull();
  });

  it("logs commands at debug with room, sender and type, connection changes at info, and never the password", async () => {
    const room = uniqueRoom(server());
    const coordinator = await coordinatorIn(room);
    const alice = await peerIn(room, "alice");
    await alice.sendGroupchat(room, { body: "mfr-list" });
    await alice.waitForMessage(fromNick(room, "Coordinator"));
    const command = await coordinator.waitForLog((l) => l.msg === "command");
    expect(command).toMatchObject({ level: 20, room, command: "list" });
    expect(String(command.sender)).toContain("alice");
    expect(coordinator.logs.find((l) => l.msg === "connected to the XMPP server")?.level).toBe(30);
    const everything = coordinator.logs.map((l) => JSON.stringify(l)).join("\n") + coordinator.stderr;
    expect(everything).not.toContain(coordinator.account.password);
    expect(everything).toContain("********");
  });

  it("shuts down on SIGTERM within 5 s with exit code 0, leaving the room", async () => {
    const room = uniqueRoom(server());
    const coordinator = await coordinatorIn(room);
    const alice = await peerIn(room, "alice");
    const { code, ms } = await coordinator.terminate();
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5000);
    const left = await alice.waitForPresence((p) => p.attrs.from === `${room}/Coordinator` && p.attrs.type === "unavailable");
    expect(left).toBeDefined();
    // An orderly leave: no kick or shutdown status, no "Disconnected: …" text from the server.
    const codes = (left.getChild("x", "http://jabber.org/protocol/muc#user")?.getChildren("status") ?? []).map((st) => st.attrs.code as string);
    expect(codes).toEqual([]);
    expect(left.getChild("status")).toBeUndefined();
    // Leaving on purpose is not news, and the stream closed in order (</stream:stream> answered).
    const fromShutdown = coordinator.logs.slice(coordinator.logs.findIndex((l) => l.msg === "shutting down"));
    const complaints = fromShutdown.filter((l) => l.level >= 40);
    expect(complaints.map((l) => l.msg), JSON.stringify(complaints)).toEqual([]);
    expect(fromShutdown.map((l) => l.msg)).toEqual(expect.arrayContaining(["left the room", "closed the XMPP stream"]));
  });
});

describe("stopping while work is in flight", () => {
  it("SIGTERM while sessions start, contributions in parts arrive and models are validated: never an uncaught exception, six times", async () => {
    for (let round = 0; round < 6; round++) {
      const room = uniqueRoom(server());
      const coordinator = await coordinatorIn(room, { mfrConfig: "mfr:contributionTimeout 3000 ; mfr:quietPeriod 500 ;" });
      const alice = await peerIn(room, "alice");
      const agent = await peerIn(room, `agent${round}`);
      await alice.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
      const request = await alice.waitForMessage((m) => m.payload?.mode === Mode.ModelNegotiation && String(m.payload.messageType).endsWith("ModelContributionRequest"));
      const sessionId = String((request.payload?.json as { sessionId: string }).sessionId);
      // Parts and whole contributions keep coming while the coordinator is told to stop,
      // each round a little later in the work (checks, validation, the solution request).
      const turtle = syntheticContribution(`agent${round}`, 400);
      const sending = (async () => {
        for (let k = 1; k <= 6; k++) {
          await agent.sendGroupchat(room, { payload: { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: turtle }, siblings: { sessionId, modelPart: `${k}/8` } }).catch(() => undefined);
          await agent.sendGroupchat(room, { payload: { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: turtle }, siblings: { sessionId } }).catch(() => undefined);
        }
      })();
      await new Promise((r) => setTimeout(r, 40 * round));
      const { code } = await coordinator.terminate();
      await sending;
      expect(code).toBe(0);
      const complaints = coordinator.logs.filter((l) => l.msg === "uncaught exception" || l.msg === "error while shutting down");
      expect(complaints, JSON.stringify(complaints)).toEqual([]);
    }
  }, 90_000);
});

describe("a server() restart", () => {
  it("reconnects, rejoins and answers again within 5 s of the server() coming back", async () => {
    const restartServer = await startTestProsody();
    try {
      const room = uniqueRoom(restartServer);
      const coordinator = await CoordinatorProcess.start({ server: restartServer, room });
      afterThis(() => coordinator.kill());
      await coordinator.joined(room);
      await coordinator.waitForLog((l) => l.msg.startsWith("direct line open"));

      await restartServer.kill();
      await new Promise((r) => setTimeout(r, 300));
      await restartServer.restart();
      const back = Date.now();

      const account = await registerUser(restartServer, "alice");
      const alice = await TestPeer.connect(peerOptions(restartServer, account));
      afterThis(() => alice.stop());
      await alice.joinRoom(room, "alice");
      // Ask until it answers: it is back once a help reply arrives.
      let answered: ReceivedMessage | undefined;
      while (!answered && Date.now() - back < 5000) {
        await alice.sendGroupchat(room, { body: "help" });
        answered = await alice.waitForMessage(fromNick(room, "Coordinator"), 250).catch(() => undefined);
      }
      expect(answered?.body, "no answer within 5 s of the restart").toContain("mfr-start");
      expect(Date.now() - back).toBeLessThan(5000);
      if (process.env.MFR_PRINT_FIGURES) console.log(`answering again ${Date.now() - back} ms after Prosody came back`);
      expect(coordinator.child.exitCode).toBeNull();
      await coordinator.joined(room, 2);
      // Per connection (its lines say which: "room", "direct"), one warning when it went and
      // one line when it came back: not one per attempt.
      await coordinator.waitForLog((l) => l.line === "direct" && l.msg === "connection to the XMPP server is back", 10_000);
      for (const line of ["room", "direct"]) {
        const ofLine = coordinator.logs.filter((l) => l.line === line);
        expect(ofLine.filter((l) => l.msg === LOST_CONNECTION_LOG)).toHaveLength(1);
        const comeBack = ofLine.filter((l) => l.msg === "connection to the XMPP server is back");
        expect(comeBack).toHaveLength(1);
        expect(comeBack[0]).toMatchObject({ level: 30, outageMs: expect.any(Number), attempts: expect.any(Number) });
        expect(comeBack[0]?.attempts).toBeGreaterThanOrEqual(1);
      }
      // …and 1:1 chat is on the direct line again.
      await alice.sendChat(coordinator.jid, "help");
      const direct = await alice.waitForMessage((m) => m.type === "chat" && (m.body ?? "").includes("mfr-start"), 5000);
      expect(direct.from).toBe(`${coordinator.jid}/${coordinator.directResource}`);
    } finally {
      await restartServer.stop();
    }
  });
});
