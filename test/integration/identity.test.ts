/**
 * Who is who in a room that does not show the coordinator real JIDs: a room created by a
 * person before the coordinator joins (Prosody's default, semi-anonymous), so the coordinator
 * is an ordinary participant. Run against a server that stamps XEP-0421 occupant ids
 * (Prosody's default) and one that does not, where only nicks and their lineage are left.
 */
import { describe, expect, it } from "vitest";
import { itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import type { ReceivedMessage } from "../support/peer.js";
import { uniqueRoom, useTestProsody } from "../support/prosody.js";
import {
  changeNick,
  helpAnswer,
  json,
  lastLine,
  leaveRoom,
  mucOf,
  negotiation,
  roomKit,
  said,
  startSession,
  toldPrivately,
} from "../support/room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE } from "../support/scripted-agent.js";

const TIMEOUTS = "mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 2500 ; mfr:validationTimeout 10000 ;";

/** What someone else sends under the modeler's nick: one entity, easy to spot in a model. */
const IMPOSTOR_TURTLE = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix schema: <http://schema.org/> .
<#boat> a mfr:Entity ; mfr:entityType "Vehicle" ; schema:name "Impostor boat" .
`;
/** The modeler's own second thoughts: the same model with a renamed truck. */
const MODELER_TURTLE_REVISED = MODELER_TURTLE.replace('"Truck 1"', '"Truck 2"');

const heldByAnother = (room: string, nick: string, sessionId: string, what: "contribution" | "proposal") => (m: ReceivedMessage) =>
  toldPrivately(room, `The nick ${nick} sent to ${sessionId} earlier as someone else`)(m) && (m.body ?? "").includes(`this ${what} was not accepted and theirs stands`);

interface Mode {
  occupantIds: boolean;
  /** The `basis` field of the "room identities" log line. */
  basis: string;
  /** The start of the "Who is who" line of `agents`. */
  whoIsWho: string;
}

const OCCUPANT_IDS: Mode = {
  occupantIds: true,
  basis: "occupant ids (XEP-0421)",
  whoIsWho: "Who is who: this room gives occupant ids (XEP-0421), so taking over a nick takes over nobody's contributions.",
};
const NICKS_ONLY: Mode = {
  occupantIds: false,
  basis: "nicks only",
  whoIsWho: "Who is who: this room shows me neither occupant ids nor real JIDs, so I go by nicks:",
};

function identityScenarios(mode: Mode): void {
  const { server, afterThis } = useTestProsody({ occupantIds: mode.occupantIds });
  const kit = roomKit(server, afterThis);

  /** A semi-anonymous room created and owned by alice, then the coordinator in it as an ordinary participant. */
  async function setUp(mfrConfig = TIMEOUTS) {
    const { room, owner: alice, ownerPresence } = await kit.ownedRoom("alice");
    // The server mode is what we think it is.
    expect(ownerPresence.getChild("occupant-id", "urn:xmpp:occupant-id:0") !== undefined).toBe(mode.occupantIds);
    const coordinator = await kit.coordinator(room, mfrConfig);
    return { room, alice, coordinator };
  }

  it("the room identities log line and the `help` / `agents` answers say how people are told apart", async () => {
    const { room, alice, coordinator } = await setUp();
    const line = await coordinator.waitForLog((l) => l.msg.startsWith("room identities: "));
    expect(line).toMatchObject({ room, occupantIds: mode.occupantIds, realJids: false, basis: mode.basis });
    // Nicks alone are a weakness worth a warning; occupant ids are not.
    expect(line.level).toBe(mode.occupantIds ? 30 : 40);
    expect(line.msg.slice("room identities: ".length).startsWith(mode.whoIsWho)).toBe(true);

    // `help` speaks to people about what they can do; who is who is said by `agents`.
    await alice.sendGroupchat(room, { body: "help" });
    expect(await alice.waitForMessage(helpAnswer(room))).not.toMatchObject({ body: expect.stringContaining("Who is who") });
    await alice.sendGroupchat(room, { body: "agents" });
    const agents = await alice.waitForMessage(said(room, /Who is who:/));
    expect(lastLine(agents).startsWith(mode.whoIsWho)).toBe(true);
    // Said once at the join, not again for each command.
    expect(coordinator.logs.filter((l) => l.msg.startsWith("room identities: "))).toHaveLength(1);
  });

  it("another account under a departed agent's nick can neither contribute nor propose in its place", async () => {
    const { room, alice, coordinator } = await setUp();
    const modeler = await kit.agent(room, "modeler", {}, { coordinator });
    const planner = await kit.agent(room, "planner", {}, { coordinator });
    const sessionId = await startSession(alice, room, "Deliver goods from the depot to the warehouse");
    await modeler.contribute(sessionId, MODELER_TURTLE);
    await modeler.peer.waitForMessage(toldPrivately(room, `Contribution received for ${sessionId}`));

    // The modeler leaves; someone else takes its nick.
    await leaveRoom(modeler.peer, room, "modeler");
    const impostor = await kit.agent(room, "modeler", {}, { announce: false });
    expect(impostor.peer.jid).not.toBe(modeler.peer.jid);
    await impostor.contribute(sessionId, IMPOSTOR_TURTLE);
    await impostor.peer.waitForMessage(heldByAnother(room, "modeler", sessionId, "contribution"));

    // The planner completes the set: the merged model holds the modeler's work, not the impostor's.
    await planner.contribute(sessionId, PLANNER_TURTLE);
    const request = await alice.waitForMessage(negotiation("SolutionRequest", sessionId), 10_000);
    const model = String(json(request).model);
    expect(model).toContain("Truck 1");
    expect(model).not.toContain("Impostor boat");

    await impostor.propose(sessionId, { success: true, message: "The impostor's plan: sail away.", plan: ["sail(boat)"] });
    await impostor.peer.waitForMessage(heldByAnother(room, "modeler", sessionId, "proposal"));
    await planner.propose(sessionId, GOOD_SOLUTION);

    // The departed modeler never proposes: the reasoning window closes with the planner's solution only.
    const complete = json(await alice.waitForMessage(negotiation("SessionComplete", sessionId), 10_000));
    expect(complete.status).toBe("solved");
    expect((complete.solutions as Array<{ agent: string; message: string }>).map((s) => [s.agent, s.message])).toEqual([["planner", GOOD_SOLUTION.message]]);
    expect(String(complete.summary)).toContain("modeler: 3 entities, 1 action");
    expect(JSON.stringify(complete)).not.toContain("impostor");
  });

  it("a renamed agent is still an agent: its mfr-cancel is refused as an agent command and the session goes on", async () => {
    const { room, alice, coordinator } = await setUp();
    const modeler = await kit.agent(room, "modeler", {}, { coordinator });
    const planner = await kit.agent(room, "planner", {}, { coordinator });
    const sessionId = await startSession(alice, room, "Deliver goods");
    await modeler.contribute(sessionId, MODELER_TURTLE);
    await modeler.peer.waitForMessage(toldPrivately(room, `Contribution received for ${sessionId}`));

    await changeNick(modeler.peer, room, "modeler", "helper");
    // The room shows ordinary occupants (the coordinator, the planner) no real JID: only the
    // occupant id or the nick's lineage links the two nicks.
    const seen = await planner.peer.waitForPresence((p) => p.attrs.from === `${room}/helper` && !p.attrs.type);
    expect(mucOf(seen).jid).toBeUndefined();
    await modeler.peer.sendGroupchat(room, { body: `mfr-cancel ${sessionId}` });
    await modeler.peer.waitForMessage(toldPrivately(room, "I take commands from people, not from agents"));
    await coordinator.waitForLog((l) => l.msg === "command from an agent refused" && l.command === "cancel");

    await alice.sendGroupchat(room, { body: `mfr-status ${sessionId}` });
    await alice.waitForMessage(said(room, `[MFR] Session ${sessionId}: collecting model contributions`));
    await planner.contribute(sessionId, PLANNER_TURTLE);
    await alice.waitForMessage(negotiation("SolutionRequest", sessionId), 10_000);
    await planner.propose(sessionId, GOOD_SOLUTION);
    const complete = json(await alice.waitForMessage(negotiation("SessionComplete", sessionId), 10_000));
    expect(complete.status).toBe("solved");
    expect(alice.messages.filter(negotiation("SessionComplete", sessionId))).toHaveLength(1);
    // Refused as an agent, not judged as a person who did not start the session.
    expect(alice.messages.filter(said(room, /may cancel/))).toEqual([]);
  });

  it("a flooder that renames is still throttled: no fresh replies under the new nick", async () => {
    const { room, alice, coordinator } = await setUp(`${TIMEOUTS} mfr:messagesPerMinute 6 ;`);
    const flooder = await kit.person(room, "flooder");
    const echo = (nick: string) => (m: ReceivedMessage) => m.from === `${room}/${nick}` && m.body === "help";

    const flooding = coordinator.logs.length;
    for (let i = 0; i < 8; i++) await flooder.sendGroupchat(room, { body: "help" });
    for (let i = 0; i < 8; i++) await flooder.waitForMessage(echo("flooder"));
    for (let i = 0; i < 6; i++) await flooder.waitForMessage(helpAnswer(room));
    await flooder.waitForMessage(toldPrivately(room, "You are sending too fast"));
    // stdout lags XMPP: wait for the log lines of the two messages throttled before the rename, so neither is counted after it.
    await coordinator.waitForLogCount((l) => l.msg === "sender throttled", 2, 5000, flooding);

    await changeNick(flooder, room, "flooder", "fresh-face");
    const before = coordinator.logs.length;
    for (let i = 0; i < 4; i++) await flooder.sendGroupchat(room, { body: "help" });
    for (let i = 0; i < 4; i++) await flooder.waitForMessage(echo("fresh-face"));
    // Someone else is still served, after the renamed flooder's messages were handled.
    const start = alice.messages.length;
    await alice.sendGroupchat(room, { body: "help" });
    await alice.waitForMessage((m) => alice.messages.indexOf(m) >= start && helpAnswer(room)(m));
    // The coordinator's log reaches us through its stdout, which may lag its XMPP replies.
    await coordinator.waitForLogCount((l) => l.msg === "sender throttled", 4, 5000, before);
    await new Promise((r) => setTimeout(r, 300));

    expect(alice.messages.filter(helpAnswer(room))).toHaveLength(7);
    // One notice, to the flooder alone, and none again after the rename.
    expect(flooder.messages.filter(toldPrivately(room, /You are sending too fast/))).toHaveLength(1);
    expect(alice.messages.filter(said(room, /sending too fast/))).toEqual([]);
    const throttled = coordinator.logs.slice(before).filter((l) => l.msg === "sender throttled");
    expect(throttled).toHaveLength(4);
    for (const l of throttled) expect(String(l.sender)).toMatch(/^fresh-face \(/);
  });

  it(
    mode.occupantIds
      ? "the same account back under its nick keeps its occupant id and may replace its own contribution"
      : "without occupant ids, the same account back under its nick counts as someone new and cannot replace its contribution",
    async () => {
      const { room, alice, coordinator } = await setUp();
      const modeler = await kit.agent(room, "modeler", {}, { coordinator });
      const planner = await kit.agent(room, "planner", {}, { coordinator });
      const sessionId = await startSession(alice, room, "Deliver goods");
      await modeler.contribute(sessionId, MODELER_TURTLE);
      await modeler.peer.waitForMessage(toldPrivately(room, `Contribution received for ${sessionId}`));

      await leaveRoom(modeler.peer, room, "modeler");
      await modeler.peer.joinRoom(room, "modeler");
      await modeler.contribute(sessionId, MODELER_TURTLE_REVISED);
      if (mode.occupantIds) await modeler.peer.waitForMessage(toldPrivately(room, `Contribution replaced for ${sessionId}`));
      else await modeler.peer.waitForMessage(heldByAnother(room, "modeler", sessionId, "contribution"));

      await planner.contribute(sessionId, PLANNER_TURTLE);
      const model = String(json(await alice.waitForMessage(negotiation("SolutionRequest", sessionId), 10_000)).model);
      expect(model).toContain(mode.occupantIds ? "Truck 2" : "Truck 1");
      expect(model).not.toContain(mode.occupantIds ? "Truck 1" : "Truck 2");
      await alice.sendGroupchat(room, { body: `mfr-cancel ${sessionId}` });
      expect(json(await alice.waitForMessage(negotiation("SessionComplete", sessionId))).status).toBe("cancelled");
    },
  );

  it("a room the coordinator creates is made non-anonymous: disco#info on the room lists muc_nonanonymous", async () => {
    const room = uniqueRoom(server());
    const coordinator = await kit.coordinator(room, TIMEOUTS);
    expect(coordinator.logs.find((l) => l.msg === "joined the room")).toMatchObject({ created: true });
    await coordinator.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("created the room and configured it: real JIDs visible"));
    const bob = await kit.person(room, "bob");
    const features = await bob.discoInfo(room);
    expect(features).toContain("muc_nonanonymous");
    expect(features).not.toContain("muc_semianonymous");
    // Everyone now sees real JIDs: the coordinator's occupant item carries one.
    const seen = bob.presences.find((p) => p.attrs.from === `${room}/Coordinator`);
    expect(seen && mucOf(seen).jid).toMatch(new RegExp(`^${escapeRegExp(coordinator.jid)}/`));

    // The coordinator now goes by real JIDs, which (unlike occupant ids) are the same in all its rooms.
    const basis = coordinator.logs.filter((l) => l.msg.startsWith("room identities: ")).map((l) => l.basis);
    expect(basis.at(-1)).toBe("real JIDs");
    await bob.sendGroupchat(room, { body: "agents" });
    expect(lastLine(await bob.waitForMessage(said(room, /Who is who:/)))).toBe(
      "Who is who: I see real JIDs in this room, so taking over a nick takes over nobody's contributions.",
    );
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("identity over a real room", () => {
  describe("a server without occupant ids (nicks only)", () => identityScenarios(NICKS_ONLY));
  describe("a server with XEP-0421 occupant ids (Prosody's default)", () => identityScenarios(OCCUPANT_IDS));

  itReplaysEveryLoggedSessionAsSent();
});
