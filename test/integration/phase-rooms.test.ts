/**
 * The MFR phase rooms over a real Prosody (with XEP-0421 occupant ids, as Prosody ships):
 * `agent:mfrRooms [ mfr:constructRoom …; mfr:validateRoom …; mfr:reasonRoom … ]`. Each
 * phase's protocol messages also go to its room, agents there take part as in the primary
 * room, people read the primary room, and the coordinator is back in every room after the
 * server restarts.
 */
import { describe, expect, it } from "vitest";
import { Mode } from "../../src/base/vocab.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, startTestProsody, uniqueRoom, useTestProsody, type LocalProsody } from "../support/prosody.js";
import { COORDINATOR_NICK, json, negotiation, protocolMessageFrom, startSession } from "../support/room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();

// Nobody in the primary room is expected (the agent sits elsewhere), so the contribution
// window runs its full length; the reasoning window closes once the contributor proposes.
const TIMEOUTS = "mfr:contributionTimeout 2500 ; mfr:reasoningTimeout 8000 ; mfr:validationTimeout 10000 ;";

interface PhaseRooms {
  room: string;
  construct: string;
  validate: string;
  reason: string;
}

function phaseRooms(on: LocalProsody): PhaseRooms {
  return { room: uniqueRoom(on), construct: uniqueRoom(on, "construct"), validate: uniqueRoom(on, "validate"), reason: uniqueRoom(on, "reason") };
}

/** A coordinator with a primary room and three phase rooms, joined to all four (it creates them). */
async function coordinatorIn(rooms: PhaseRooms, on: LocalProsody = server()): Promise<CoordinatorProcess> {
  const coordinator = await CoordinatorProcess.start({
    server: on,
    room: rooms.room,
    phaseRooms: { construct: rooms.construct, validate: rooms.validate, reason: rooms.reason },
    mfrConfig: TIMEOUTS,
  });
  afterThis(() => coordinator.kill());
  for (const room of [rooms.room, rooms.construct, rooms.validate, rooms.reason]) await coordinator.joined(room);
  return coordinator;
}

async function person(nick: string, ...rooms: string[]): Promise<TestPeer> {
  const peer = await TestPeer.connect(peerOptions(server(), await registerUser(server(), nick.toLowerCase())));
  afterThis(() => peer.stop());
  for (const room of rooms) await peer.joinRoom(room, nick);
  return peer;
}

/**
 * What the coordinator said in `room`, as message types (short names), or `text` for a body
 * without a payload; not the subject of the room it created, which it gives at every join.
 */
function coordinatorSaid(peer: TestPeer, room: string): string[] {
  return peer.messages
    .filter((m) => m.from === `${room}/${COORDINATOR_NICK}` && m.type === "groupchat" && !(m.subject !== undefined && m.body === undefined))
    .map((m) => (m.payload ? (m.payload.messageType ?? m.payload.mode).replace(/^.*\//, "") : `text: ${m.body ?? ""}`));
}

const fromCoordinatorIn = (room: string) => (m: ReceivedMessage) => m.from === `${room}/${COORDINATOR_NICK}`;

describe("MFR phase rooms", () => {
  it("an agent only in the construct and reason rooms contributes and proposes; the primary room has the summary; each phase room gets exactly its phase's messages", async () => {
    const rooms = phaseRooms(server());
    const coordinator = await coordinatorIn(rooms);
    const alice = await person("alice", rooms.room);
    const watchers = {
      construct: await person("watcher", rooms.construct),
      validate: await person("watcher", rooms.validate),
      reason: await person("watcher", rooms.reason),
    };
    const modeler = await ScriptedAgent.join(server(), [rooms.construct, rooms.reason], "Modeler", {
      contribution: () => MODELER_TURTLE + PLANNER_TURTLE,
      solution: () => GOOD_SOLUTION,
    });
    afterThis(() => modeler.stop());

    const sessionId = await startSession(alice, rooms.room, "Deliver goods from the depot to the warehouse with one truck");
    const complete = await alice.waitForMessage(negotiation("SessionComplete", sessionId), 20_000);
    expect(json(complete)).toMatchObject({ status: "solved", solutions: [{ agent: "Modeler", success: true }] });
    // The primary room's last line is the SessionComplete's body.
    expect(fromCoordinatorIn(rooms.room)(complete)).toBe(true);
    expect(complete.body ?? "").toMatch(new RegExp(`^\\[MFR\\] Session ${sessionId} solved`));
    expect(complete.body).toContain("best solution from Modeler");
    expect(String(json(complete).summary)).toContain("drive(truck, depot, warehouse)");

    // The agent heard the request in the construct room and the model in the reason room, and answered there.
    expect(modeler.requests.map((r) => [r.round, r.room])).toEqual([[1, rooms.construct]]);
    expect(modeler.solutionRequests.map((r) => r.room)).toEqual([rooms.reason]);
    expect(modeler.solutionRequests[0]?.model).toContain("Truck 1");
    // Its private answer came through the room it sits in, not the primary room it is not in.
    const told = modeler.peer.messages.filter((m) => m.type === "chat" && (m.body ?? "").startsWith(`Contribution received for ${sessionId}`));
    expect(told.map((m) => m.from)).toEqual([`${rooms.construct}/Coordinator`]);
    // The coordinator's log reaches us through its stdout, which may lag behind the room.
    await coordinator.waitForLogCount((l) => protocolMessageFrom(l, "Modeler"), 2);
    const accepted = coordinator.logs.filter((l) => protocolMessageFrom(l, "Modeler")).map((l) => [l.mode, l.room]);
    expect(accepted).toEqual([
      [Mode.ModelFirstRDF, rooms.construct],
      [Mode.ModelNegotiation, rooms.reason],
    ]);

    // The primary room keeps everything, protocol and text; each phase room gets its phase only, and no text.
    await watchers.reason.waitForMessage((m) => fromCoordinatorIn(rooms.reason)(m) && negotiation("SessionComplete", sessionId)(m));
    await new Promise((r) => setTimeout(r, 300)); // anything sent after SessionComplete has arrived by now
    const primary = coordinatorSaid(alice, rooms.room);
    expect(primary.filter((t) => !t.startsWith("text: "))).toEqual(["ModelContributionRequest", "ModelValidationResult", "SolutionRequest", "SessionComplete"]);
    // People read the protocol messages' bodies; this session needed no line of its own.
    expect(primary.filter((t) => t.startsWith("text: "))).toEqual([]);
    expect(alice.messages.find((m) => fromCoordinatorIn(rooms.room)(m) && negotiation("SessionComplete", sessionId)(m))?.body).toMatch(/^\[MFR\] Session /);
    expect(coordinatorSaid(watchers.construct, rooms.construct)).toEqual(["ModelContributionRequest"]);
    expect(coordinatorSaid(watchers.validate, rooms.validate)).toEqual(["ModelValidationResult"]);
    expect(coordinatorSaid(watchers.reason, rooms.reason)).toEqual(["SolutionRequest", "SessionComplete"]);
    // The copies are the primary room's messages: same session, same content.
    const validated = watchers.validate.messages.find(negotiation("ModelValidationResult", sessionId));
    expect(validated && json(validated)).toEqual(json(alice.messages.find(negotiation("ModelValidationResult", sessionId)) as ReceivedMessage));
    expect(validated?.siblings.sessionId).toBe(sessionId);
  });

  it("someone who is only in a phase room counts as an occupant: may start a session in 1:1 chat, and cancel it", async () => {
    const rooms = phaseRooms(server());
    const coordinator = await coordinatorIn(rooms);
    const watcher = await person("watcher", rooms.reason);
    const bob = await person("bob", rooms.validate);
    await coordinator.takesOneToOneChat();
    await bob.sendChat(coordinator.jid, "mfr-start Plan a picnic");
    const started = await bob.waitForMessage((m) => m.type === "chat" && (m.body ?? "").startsWith("Started "));
    const sessionId = /^Started (\S+) in /.exec(started.body ?? "")?.[1] ?? "";
    await bob.sendChat(coordinator.jid, `mfr-cancel ${sessionId}`);
    const complete = await watcher.waitForMessage((m) => fromCoordinatorIn(rooms.reason)(m) && negotiation("SessionComplete", sessionId)(m));
    expect(json(complete).status).toBe("cancelled");

    // Someone in none of the coordinator's rooms may not.
    const carol = await person("carol");
    await carol.sendChat(coordinator.jid, "mfr-start Plan a picnic");
    const refused = await carol.waitForMessage((m) => m.type === "chat" && m.from.startsWith(coordinator.jid));
    expect(refused.body).toBe("Only occupants of the room can do that. Join the room first.");
  });

  it("after Prosody is killed and restarted, the coordinator is back in all four rooms and mirrors again", async () => {
    const restartServer = await startTestProsody();
    try {
      const rooms = phaseRooms(restartServer);
      const coordinator = await coordinatorIn(rooms, restartServer);
      const all = [rooms.room, rooms.construct, rooms.validate, rooms.reason];

      await restartServer.kill();
      await new Promise((r) => setTimeout(r, 300));
      await restartServer.restart();
      for (const room of all) await coordinator.joined(room, 2, 15_000);

      // Seen from outside: the coordinator is an occupant of each room again.
      const alice = await TestPeer.connect(peerOptions(restartServer, await registerUser(restartServer, "alice")));
      afterThis(() => alice.stop());
      for (const room of all) {
        await alice.joinRoom(room, "alice");
        await alice.waitForPresence((p) => p.attrs.from === `${room}/${COORDINATOR_NICK}` && p.attrs.type === undefined, 5000);
      }
      const sessionId = await startSession(alice, rooms.room, "Deliver goods after a restart");
      const mirrored = await alice.waitForMessage((m) => fromCoordinatorIn(rooms.construct)(m) && negotiation("ModelContributionRequest", sessionId)(m));
      expect(json(mirrored).round).toBe(1);
      expect(coordinator.child.exitCode).toBeNull();
    } finally {
      await restartServer.stop();
    }
  });

  itReplaysEveryLoggedSessionAsSent();
});
