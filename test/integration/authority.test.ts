/**
 * Who may steer a session (cancel, approve, reject): the person who started it, a room
 * moderator (from the room's own presence), or a real JID on mfr:allowCommandsFrom; anyone
 * else is told who may. The rooms are created by their owner before the coordinator joins,
 * so the owner is a moderator and the coordinator an ordinary participant.
 */
import { describe, expect, it } from "vitest";
import { itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import type { ReceivedMessage } from "../support/peer.js";
import { uniqueRoom, useTestProsody } from "../support/prosody.js";
import { json, mucOf, negotiation, roomKit, said, startSession } from "../support/room-kit.js";

const { server, afterThis } = useTestProsody();
const kit = roomKit(server, afterThis);

/** Long windows: sessions stay live until someone with the standing ends them. */
const TIMEOUTS = "mfr:contributionTimeout 30000 ; mfr:debateTimeout 30000 ;";

const notAllowed = (room: string, nick: string, sessionId: string, action: string) =>
  said(room, `${nick}: Only alice, who started ${sessionId}, a room moderator, or someone on mfr:allowCommandsFrom may ${action} ${sessionId}.`);

const PROFILES = {
  "executor.ttl": `@prefix agent: <https://tensegrity.it/vocab/agent#> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix schema: <https://schema.org/> .
<#executor> foaf:nick "Executor" ; dcterms:description "Executes plans in the world: delivery dispatch" ;
  agent:hasCapability [ schema:name "plan execution" ] ; agent:requiresApproval true .`,
};

/** Nothing but a `status` answer "collecting": the session is still live. */
async function expectStillCollecting(peer: Awaited<ReturnType<typeof kit.person>>, room: string, sessionId: string): Promise<void> {
  await peer.sendGroupchat(room, { body: `mfr-status ${sessionId}` });
  await peer.waitForMessage(said(room, `[MFR] Session ${sessionId}: collecting model contributions`));
  expect(peer.messages.filter(negotiation("SessionComplete", sessionId))).toEqual([]);
}

describe("authority over sessions in a real room", () => {
  it("an ordinary occupant may not cancel alice's session; the room owner may, and alice is told who did", async () => {
    const { room, owner } = await kit.ownedRoom("owner");
    const coordinator = await kit.coordinator(room, TIMEOUTS);
    const alice = await kit.person(room, "alice");
    const bob = await kit.person(room, "bob");
    // bob is an ordinary participant; the owner is a moderator, as the coordinator sees them.
    const bobSeen = await owner.waitForPresence((p) => p.attrs.from === `${room}/bob` && !p.attrs.type);
    expect(mucOf(bobSeen)).toMatchObject({ role: "participant", affiliation: "none" });
    const ownerSeen = await bob.waitForPresence((p) => p.attrs.from === `${room}/owner` && !p.attrs.type);
    expect(mucOf(ownerSeen)).toMatchObject({ role: "moderator", affiliation: "owner" });

    const sessionId = await startSession(alice, room, "Deliver goods from the depot");
    await bob.sendGroupchat(room, { body: `mfr-cancel ${sessionId}` });
    await bob.waitForMessage(notAllowed(room, "bob", sessionId, "cancel"));
    await coordinator.waitForLog((l) => l.msg === "cancel refused" && l.by === "bob");
    await expectStillCollecting(alice, room, sessionId);

    await owner.sendGroupchat(room, { body: `mfr-cancel ${sessionId}` });
    const complete = json(await alice.waitForMessage(negotiation("SessionComplete", sessionId)));
    expect(complete.status).toBe("cancelled");
    expect(complete.reason).toBe("Cancelled by owner.");
    await alice.waitForMessage(said(room, `alice: Your session ${sessionId} was cancelled by owner (a room moderator).`));
  });

  it("a real JID on mfr:allowCommandsFrom may cancel; a room that hides that JID does not let its nick stand for it", async () => {
    const { room } = await kit.ownedRoom("owner");
    const { peer: carol, account: carolAccount } = await kit.account("carol");
    const coordinator = await kit.coordinator(room, `${TIMEOUTS} mfr:allowCommandsFrom "${carolAccount.jid}" ;`);
    const alice = await kit.person(room, "alice");
    await carol.joinRoom(room, "carol");
    const sessionId = await startSession(alice, room, "Deliver goods from the depot");

    // In this semi-anonymous room the coordinator cannot see that "carol" is carol's account.
    await carol.sendGroupchat(room, { body: `mfr-cancel ${sessionId}` });
    await carol.waitForMessage(notAllowed(room, "carol", sessionId, "cancel"));
    await expectStillCollecting(alice, room, sessionId);

    // In a 1:1 chat the server vouches for her JID.
    await coordinator.takesOneToOneChat();
    await carol.sendChat(coordinator.jid, `mfr-cancel ${sessionId}`);
    const complete = json(await alice.waitForMessage(negotiation("SessionComplete", sessionId)));
    expect(complete.status).toBe("cancelled");
    await alice.waitForMessage(said(room, `alice: Your session ${sessionId} was cancelled by ${carolAccount.jid} (on mfr:allowCommandsFrom).`));
  });

  it("in a room that shows real JIDs (the coordinator created it), an allow-listed JID cancels from the room", async () => {
    const room = uniqueRoom(server());
    const { peer: carol, account: carolAccount } = await kit.account("carol");
    const coordinator = await kit.coordinator(room, `${TIMEOUTS} mfr:allowCommandsFrom "${carolAccount.jid}" ;`);
    await coordinator.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("created the room and configured it: real JIDs visible"));
    const alice = await kit.person(room, "alice");
    const bob = await kit.person(room, "bob");
    await carol.joinRoom(room, "carol");
    const sessionId = await startSession(alice, room, "Deliver goods from the depot");

    // Seeing bob's JID gives him no standing: he is neither the starter nor listed.
    await bob.sendGroupchat(room, { body: `mfr-cancel ${sessionId}` });
    await bob.waitForMessage(notAllowed(room, "bob", sessionId, "cancel"));
    await carol.sendGroupchat(room, { body: `mfr-cancel ${sessionId}` });
    expect(json(await alice.waitForMessage(negotiation("SessionComplete", sessionId))).status).toBe("cancelled");
    await alice.waitForMessage(said(room, `alice: Your session ${sessionId} was cancelled by carol (on mfr:allowCommandsFrom).`));
  });

  it("approve and reject from someone other than the starter are refused; the starter's approve is taken", async () => {
    const { room } = await kit.ownedRoom("owner");
    const coordinator = await kit.coordinator(room, TIMEOUTS, { agentProfiles: PROFILES });
    const alice = await kit.person(room, "alice");
    const bob = await kit.person(room, "bob");
    const executor = await kit.agent(room, "Executor", {}, { coordinator });

    await alice.sendGroupchat(room, { body: "mfr-start Plan and execute the delivery" });
    const ask = await alice.waitForMessage(said(room, /Executor acts in the world/));
    const sessionId = /"approve (\S+)"/.exec(ask.body ?? "")?.[1] ?? "";
    expect(sessionId).not.toBe("");

    await bob.sendGroupchat(room, { body: `approve ${sessionId}` });
    await bob.waitForMessage(notAllowed(room, "bob", sessionId, "approve agents for"));
    await bob.sendGroupchat(room, { body: `reject ${sessionId}` });
    await bob.waitForMessage(notAllowed(room, "bob", sessionId, "reject agents for"));
    // Neither went through: no decision announced, nobody asked yet.
    await new Promise((r) => setTimeout(r, 200));
    expect(alice.messages.filter(said(room, new RegExp(`^\\[MFR\\] ${sessionId}: bob (approved|rejected)`)))).toEqual([]);
    expect(alice.messages.filter(negotiation("ModelContributionRequest", sessionId))).toEqual([]);
    expect(executor.requests).toEqual([]);

    await alice.sendGroupchat(room, { body: `approve ${sessionId}` });
    await alice.waitForMessage(said(room, `[MFR] Session ${sessionId}: alice approved Executor.`));
    const request = await executor.peer.waitForMessage((m: ReceivedMessage) => negotiation("ModelContributionRequest", sessionId)(m));
    expect(json(request).sessionId).toBe(sessionId);
    await alice.sendGroupchat(room, { body: `mfr-cancel ${sessionId}` });
    expect(json(await alice.waitForMessage(negotiation("SessionComplete", sessionId))).status).toBe("cancelled");
  });

  itReplaysEveryLoggedSessionAsSent();
});
