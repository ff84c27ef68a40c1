/** The identifying stage: who asks, with what standing, and what that standing lets them ask. */
import { describe, expect, it } from "vitest";
import type { OccupantFacts } from "../../src/agent-choice/catalog.js";
import { withReading, type ReplyOutlet } from "../../src/inbound/context.js";
import { Identification } from "../../src/inbound/identify.js";
import type { Reading } from "../../src/inbound/reading.js";
import type { RefusalReason } from "../../src/ops/refusals.js";
import type { Rooms } from "../../src/xmpp/rooms.js";
import { xml } from "../../src/xmpp/stanza.js";
import { contextOf, keptLog, keptOutlet, PRIMARY, roomLine, roomsWith } from "./helpers.js";

function identification(rooms: Rooms, agents: string[] = [], lists: { protocol?: string[]; commands?: string[] } = {}, joined = true) {
  const refused: RefusalReason[] = [];
  const evidence: Array<[string, string]> = [];
  const identify = new Identification({
    primaryRoom: PRIMARY,
    protocolAllowList: lists.protocol ?? [],
    commandAllowList: lists.commands ?? [],
    rooms: { isJoined: () => joined, roomJids: () => rooms.roomJids(), occupants: (room) => rooms.occupants(room) },
    chooser: {
      isAgent: (who) => agents.includes(who.nick ?? ""),
      protocolFrom: (who: OccupantFacts, what) => void evidence.push([who.nick, what]),
      commandFrom: (who: OccupantFacts) => void evidence.push([who.nick, "person"]),
    },
    refused: (reason) => refused.push(reason),
    log: keptLog().log,
    now: () => 0,
  });
  return { identify, refused, evidence };
}

const cancel: Reading = { kind: "command", command: { name: "cancel", sessionId: "s1" } };
const list: Reading = { kind: "command", command: { name: "list" } };
const fromOutside = (outlet: ReplyOutlet, rooms: Rooms) => contextOf(xml("message", { from: "carol@localhost/laptop", type: "chat", id: "d-1" }, xml("body", {}, "mfr-cancel s1")), rooms, outlet);

describe("identify", () => {
  it("refuses a command that changes something from someone in none of our rooms, and says why", async () => {
    const rooms = roomsWith({ nick: "alice" });
    const { identify, refused, evidence } = identification(rooms);
    const outlet = keptOutlet();
    expect(await identify.run(withReading(fromOutside(outlet, rooms), cancel))).toBeUndefined();
    expect(refused).toEqual(["not-occupant"]);
    expect(outlet.said.map((s) => s.text)).toEqual(["Only occupants of the room can do that. Join the room first."]);
    expect(evidence).toEqual([]);
  });

  it("refuses a command that changes something while we are not in the primary room (reconnecting)", async () => {
    const rooms = roomsWith({ nick: "alice" });
    const { identify, refused } = identification(rooms, [], {}, false);
    const outlet = keptOutlet();
    expect(await identify.run(withReading(contextOf(roomLine("alice", "mfr-cancel s1"), rooms, outlet), cancel))).toBeUndefined();
    expect(refused).toEqual(["not-in-room"]);
    expect(outlet.said[0]?.text).toMatch(/^I am not in the room right now/);
  });

  it("lets anyone ask what changes nothing, and an occupant's command makes them a person", async () => {
    const rooms = roomsWith({ nick: "alice" });
    const { identify, refused, evidence } = identification(rooms);
    const outlet = keptOutlet();
    expect(await identify.run(withReading(fromOutside(outlet, rooms), list))).toBeDefined();
    const identified = await identify.run(withReading(contextOf(roomLine("alice", "mfr-cancel s1"), rooms, outlet), cancel));
    expect(identified?.standing.participant).toMatchObject({ nick: "alice" });
    expect(refused).toEqual([]);
    expect(evidence).toEqual([["alice", "person"]]);
  });

  it("refuses an agent's command, answering it privately once in a while, not each time", async () => {
    const rooms = roomsWith({ nick: "bot" });
    const { identify, refused } = identification(rooms, ["bot"]);
    const outlet = keptOutlet();
    for (const id of ["a", "b"]) expect(await identify.run(withReading(contextOf(roomLine("bot", "mfr-list", [], id), rooms, outlet), list))).toBeUndefined();
    expect(refused).toEqual(["agent-command", "agent-command"]);
    expect(outlet.said).toHaveLength(1);
    expect(outlet.said[0]).toMatchObject({ how: "privately", to: `${PRIMARY}/bot` });
  });

  it("never lets an agent's misspelt command be answered", async () => {
    const rooms = roomsWith({ nick: "bot" });
    const { identify } = identification(rooms, ["bot"]);
    const unknown: Reading = { kind: "unknown", unknown: { word: "mfr-lst", suggestion: "mfr-list" } };
    expect(await identify.run(withReading(contextOf(roomLine("bot", "mfr-lst"), rooms, keptOutlet()), unknown))).toBeUndefined();
  });

  it("refuses a protocol message from a sender off mfr:allowProtocolFrom; a listed sender's is evidence of an agent", async () => {
    const rooms = roomsWith({ nick: "alice" }, { nick: "modeller" });
    const { identify, refused, evidence } = identification(rooms, [], { protocol: ["modeller"] });
    const outlet = keptOutlet();
    const protocol: Reading = { kind: "protocol", payloadMode: "x", protocol: { mode: "other" }, evidence: "other" };
    expect(await identify.run(withReading(contextOf(roomLine("alice", "x"), rooms, outlet), protocol))).toBeUndefined();
    expect(await identify.run(withReading(contextOf(roomLine("modeller", "x"), rooms, outlet), { ...protocol, evidence: "contribution" }))).toBeDefined();
    expect(refused).toEqual(["not-allowed"]);
    expect(evidence).toEqual([["modeller", "contribution"]]);
  });
});
