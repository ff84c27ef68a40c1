/**
 * The same agent after the room was re-created: a server restart loses a room that was not
 * persistent, and whoever comes back first creates it anew with the server's defaults. A
 * room that showed real JIDs may then show occupant ids (XEP-0421) instead, and an agent
 * answering a fix round under its nick is still the agent that contributed before: what it
 * held is re-bound to the identity it now shows, and its fix is taken.
 *
 * Over a real Prosody whose room a person created (the coordinator is an ordinary
 * participant) and made non-anonymous; the coordinator reaches the server through a proxy,
 * so it comes back only after the room was re-created without that setting.
 */
import { xml } from "@xmpp/client";
import { describe, expect, it } from "vitest";
import { Mode, MFR } from "../../src/base/vocab.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent, type LogLine } from "../support/coordinator-process.js";
import { TestPeer, type Element } from "../support/peer.js";
import { peerOptions, registerUser, startTestProsody, uniqueRoom, useTestProsody, type LocalProsody } from "../support/prosody.js";
import { json, mucOf, negotiation, protocolMessageFrom, said, startSession, toldPrivately } from "../support/room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent } from "../support/scripted-agent.js";
import { TcpProxy } from "../support/tcp-proxy.js";

const { afterThis } = useTestProsody();

const NS_MUC_OWNER = "http://jabber.org/protocol/muc#owner";
/** How long the proxy keeps the coordinator away: the server restarts and the room is re-created meanwhile. */
const AWAY_MS = 3000;

/** The owner's configuration form: real JIDs shown to every occupant (a non-anonymous room). */
function nonAnonymous(room: string): Element {
  return xml(
    "iq",
    { type: "set", to: room },
    xml(
      "query",
      { xmlns: NS_MUC_OWNER },
      xml(
        "x",
        { xmlns: "jabber:x:data", type: "submit" },
        xml("field", { var: "FORM_TYPE" }, xml("value", {}, "http://jabber.org/protocol/muc#roomconfig")),
        xml("field", { var: "muc#roomconfig_whois" }, xml("value", {}, "anyone")),
      ),
    ),
  );
}

async function connect(server: LocalProsody, account: { username: string; password: string }): Promise<TestPeer> {
  const peer = await TestPeer.connect(peerOptions(server, account));
  afterThis(() => peer.stop());
  return peer;
}

const roomIdentities = (room: string) => (l: LogLine) => typeof l.msg === "string" && l.msg.startsWith("room identities:") && l.room === room;

describe("the same agent after the room was re-created on another identity basis", () => {
  it("a fix asked before a server restart is taken from the agent under its nick, now showing an occupant id", async () => {
    const own = await startTestProsody();
    afterThis(() => own.stop());
    const proxy = await TcpProxy.start({ host: own.host, port: own.port });
    afterThis(() => proxy.stop());
    const room = uniqueRoom(own);

    // A person creates the room (not persistent: the server's default) and makes it non-anonymous.
    const alice = await registerUser(own, "alice");
    const human = await connect(own, alice);
    expect(mucOf(await human.joinRoom(room, "alice")).statuses).toContain("201");
    await human.xmpp.iqCaller.request(nonAnonymous(room));

    const coordinator = await CoordinatorProcess.start({
      server: proxy.serverBehind(own),
      room,
      mfrConfig: "mfr:contributionTimeout 20000 ; mfr:reasoningTimeout 3000 ; mfr:maxFixRounds 2 ;",
    });
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    expect(await coordinator.waitForLog(roomIdentities(room))).toMatchObject({ realJids: true, basis: "real JIDs" });

    // Round 1: the modeler leaves out an entity's type (a Violation), the planner is fine.
    const modeler = await ScriptedAgent.join(own, room, "modeler", { contribution: (round) => (round === 1 ? MODELER_TURTLE.replace('mfr:entityType "Vehicle" ; ', "") : undefined) });
    afterThis(() => modeler.stop());
    const planner = await ScriptedAgent.join(own, room, "planner", { contribution: (round) => (round === 1 ? PLANNER_TURTLE : undefined) });
    afterThis(() => planner.stop());
    await modeler.announce();
    await planner.announce();
    await coordinator.waitForLog((l) => l.msg === "protocol message" && String(l.sender ?? "").startsWith("planner ("));

    const sessionId = await startSession(human, room, "Deliver goods from the depot");
    await modeler.peer.waitForMessage(toldPrivately(room, "Contribution received"), 10_000);
    const fix = await human.waitForMessage((m) => negotiation("ModelContributionRequest", sessionId)(m) && json(m).round === 2, 10_000);
    expect(Object.keys(json(fix).issues as object)).toEqual(["modeler"]);
    // The modeler's contribution was taken under its real JID.
    const first = await coordinator.waitForLog((l) => protocolMessageFrom(l, "modeler", Mode.ModelFirstRDF));
    expect(String(first.sender)).toBe(`modeler (${modeler.peer.jid.split("/")[0]})`);

    // The coordinator's connection goes and stays away; the server dies with the room and comes back.
    const beforeReturn = coordinator.logs.length;
    const cutAt = Date.now();
    proxy.cut(AWAY_MS);
    await own.kill();
    await own.restart();

    // The person comes back first and so creates the room anew, with the defaults: occupant ids, no real JIDs.
    const humanAgain = await connect(own, alice);
    const created = mucOf(await humanAgain.joinRoom(room, "alice"));
    expect(created.statuses).toContain("201");
    expect(created.statuses).not.toContain("100");
    // The modeler comes back on the same account under the same nick.
    const modelerAgain = await connect(own, modeler.peer.options);
    await modelerAgain.joinRoom(room, "modeler");
    // All this before the proxy lets the coordinator back: it finds the room as re-created.
    expect(Date.now() - cutAt, "the room was re-created before the coordinator could come back").toBeLessThan(AWAY_MS);

    await coordinator.joined(room, 2, 20_000);
    expect(coordinator.logs.filter((l) => l.msg === "joined the room" && l.room === room).map((l) => l.created)).toEqual([false, false]);
    expect(await coordinator.waitForLog(roomIdentities(room), 5000, beforeReturn)).toMatchObject({ realJids: false, occupantIds: true });

    // The fix, under the same nick from the same account, now known by its occupant id: taken, not refused as someone else's.
    await modelerAgain.sendGroupchat(room, { payload: { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: MODELER_TURTLE }, siblings: { sessionId } });
    const told = await modelerAgain.waitForMessage(toldPrivately(room, /^Contribution (received|replaced)|earlier as someone else/), 10_000);
    expect(told.body).toMatch(/^Contribution (received|replaced) for /);
    expect(await coordinator.waitForLog((l) => l.msg === "room identity basis changed", 5000, beforeReturn)).toMatchObject({ sessionId, from: "jid", to: "occupant", room });
    const rebound = await coordinator.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("the room's identity basis changed from jid to occupant; nick modeler re-bound to occupant:"), 5000, beforeReturn);
    expect(rebound).toMatchObject({ sessionId, nick: "modeler", items: 1 });
    expect(rebound.earlier).toEqual([`jid:${modeler.peer.jid.split("/")[0]}`]);

    // The re-created room kept nothing of what was said: a gap, in the log and in the room.
    const gap = await coordinator.waitForLog((l) => l.msg === "may have missed what the room said while we were away: the server did not keep it", 5000, beforeReturn);
    // Someone else created it anew, so what shows the gap is a history that does not reach back.
    expect(gap).toMatchObject({ room, why: "its history does not reach back to the last message taken in" });
    await humanAgain.waitForMessage(said(room, `[MFR] ${sessionId}: I may have missed messages in this room between`), 5000);

    // The session goes on with the fix in its model, and ends solved.
    const request = await humanAgain.waitForMessage(negotiation("SolutionRequest", sessionId), 10_000);
    expect(String(json(request).model)).toContain('"Vehicle"');
    await modelerAgain.sendGroupchat(room, {
      payload: { mode: Mode.ModelNegotiation, mime: "application/json", content: JSON.stringify({ messageType: `${MFR}SolutionProposal`, sessionId, solution: GOOD_SOLUTION }) },
    });
    const complete = await humanAgain.waitForMessage(negotiation("SessionComplete", sessionId), 10_000);
    expect(json(complete)).toMatchObject({ sessionId, status: "solved" });
    expect(modelerAgain.messages.filter(toldPrivately(room, /earlier as someone else/))).toEqual([]);
    expect(coordinator.logs.filter((l) => typeof l.msg === "string" && /under a nick that another identity used earlier/.test(l.msg))).toEqual([]);
  });

  itReplaysEveryLoggedSessionAsSent();
});
