/**
 * A person is always answered: in 1:1 chat every unknown command gets a line, however many
 * come in a row; in the room, a line starting with a misspelt command word gets the same line,
 * while chatter, and agents, get none (src/commands/misspelt-command.ts).
 */
import { describe, expect, it } from "vitest";
import { CoordinatorProcess } from "../support/coordinator-process.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { ScriptedAgent } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();

async function setUp(): Promise<{ room: string; alice: TestPeer; coordinator: CoordinatorProcess }> {
  const room = uniqueRoom(server());
  const coordinator = await CoordinatorProcess.start({ server: server(), room });
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  const account = await registerUser(server(), "alice");
  const alice = await TestPeer.connect(peerOptions(server(), account));
  afterThis(() => alice.stop());
  await alice.joinRoom(room, "alice");
  return { room, alice, coordinator };
}

/** A line the coordinator said in the room (not the subject of the room it created, which it gives from its nick at every join). */
const inRoomFromCoordinator = (room: string) => (m: ReceivedMessage) => m.from === `${room}/Coordinator` && m.type === "groupchat" && m.body !== undefined;

describe("unknown and misspelt commands over a real room", () => {
  it("in the room, mfr-stauts gets 'did you mean mfr-status?', frobnicate now and an agent's typo get nothing", async () => {
    const { room, alice } = await setUp();
    const agent = await ScriptedAgent.join(server(), room, "modeler", {});
    afterThis(() => agent.stop());
    await agent.announce();
    await new Promise((r) => setTimeout(r, 200)); // the announcement reaches the coordinator first

    await alice.sendGroupchat(room, { body: "frobnicate now" });
    await agent.peer.sendGroupchat(room, { body: "mfr-stauts" });
    await alice.sendGroupchat(room, { body: "I think mfr-status is broken" });
    await alice.sendGroupchat(room, { body: "mfr-stauts" });
    const answer = await alice.waitForMessage(inRoomFromCoordinator(room));
    // The first thing said in the room answers alice's typo: the chatter and the agent got nothing.
    expect(answer.body).toBe('[MFR] alice: Unknown command "mfr-stauts"; did you mean mfr-status? Say "help" for the commands I know.');

    await alice.sendGroupchat(room, { body: "hepl" });
    expect((await alice.waitForMessage(inRoomFromCoordinator(room))).body).toContain("did you mean help?");
    await alice.sendGroupchat(room, { body: "mfr-list" });
    expect((await alice.waitForMessage(inRoomFromCoordinator(room))).body).toMatch(/No sessions/);
    await new Promise((r) => setTimeout(r, 300));
    expect(alice.messages.filter(inRoomFromCoordinator(room))).toHaveLength(3);
    expect(agent.peer.messages.filter((m) => m.type === "chat" && m.from.startsWith(room))).toEqual([]);
  });

  it("in 1:1 chat, three unknown commands in a row each get an answer", async () => {
    const { alice, coordinator } = await setUp();
    const fromCoordinator = (m: ReceivedMessage) => m.type === "chat" && m.from.startsWith(coordinator.jid);
    await coordinator.takesOneToOneChat();
    for (const [typed, expected] of [
      ["frobnicate", 'Unknown command "frobnicate". Say "help" for the commands I know.'],
      ["stauts", 'Unknown command "stauts"; did you mean mfr-status? Say "help" for the commands I know.'],
      ["mfr-lsit", 'Unknown command "mfr-lsit"; did you mean mfr-list? Say "help" for the commands I know.'],
    ] as const) {
      await alice.sendChat(coordinator.jid, typed);
      expect((await alice.waitForMessage(fromCoordinator)).body).toBe(expected);
    }
  });
});
