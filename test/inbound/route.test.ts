/** The routing stage: each identified message to where it goes, and nowhere else. */
import { describe, expect, it } from "vitest";
import type { CommandScope } from "../../src/commands/command.js";
import { AVAILABLE_COMMANDS } from "../../src/commands/registry.js";
import { isRouted, withReading, withStanding, type IdentifiedContext, type InboundContext } from "../../src/inbound/context.js";
import type { Reading } from "../../src/inbound/reading.js";
import { routeMessage, type RouteOptions } from "../../src/inbound/route.js";
import { carried, type CarryOptions } from "../../src/inbound/carry-protocol.js";
import { contextOf, keptLog, keptOutlet, roomLine, roomsWith } from "./helpers.js";

const rooms = roomsWith({ nick: "alice" });

function routing() {
  const calls: string[] = [];
  const sessions = {
    apply: (input: { kind: string }) => void calls.push(`apply ${input.kind}`),
    contribute: async (sessionId: string) => void calls.push(`contribute ${sessionId}`),
    contributePart: async (sessionId: string) => void calls.push(`part ${sessionId}`),
    propose: async (sessionId: string) => void calls.push(`propose ${sessionId}`),
    cancel: (sessionId: string) => (calls.push(`cancel ${sessionId}`), true),
    listText: () => "No sessions.",
  };
  const commands = { nick: "Coordinator", room: "room@conference.localhost", maxStanzaBytes: 60_000, sessions, chooser: {}, identities: () => undefined, available: AVAILABLE_COMMANDS, refused: () => undefined } as unknown as CommandScope;
  const intake = { contributions: { contribute: sessions.contribute, contributePart: sessions.contributePart }, proposals: { propose: sessions.propose } };
  const options: RouteOptions = { sessions: sessions as never, commands, log: keptLog().log };
  const carry: CarryOptions = { intake: intake as never, maxStanzaBytes: 60_000, refused: () => undefined, log: keptLog().log };
  return { options, carry, calls };
}

function identified(ctx: InboundContext, reading: Reading) {
  return withStanding(withReading(ctx, reading), { participant: { nick: "alice", jid: undefined, identity: "nick:alice" }, requester: { nick: "alice", jid: undefined, identity: "nick:alice" }, facts: { nick: "alice", identity: "nick:alice", realJid: undefined, formerNicks: [] }, agent: false });
}

/** routeMessage on a message the carrying stage hands on (anything but protocol). */
function route(ctx: IdentifiedContext, options: RouteOptions): Promise<void> {
  if (!isRouted(ctx)) throw new Error("a protocol message is carried, not routed");
  return routeMessage(ctx, options);
}

describe("route", () => {
  it("carries a protocol message to the host's intakes and no further, and hands anything else on to routing", async () => {
    const { carry, calls } = routing();
    const handedOn: string[] = [];
    const next = async (ctx: { reading: Reading }): Promise<void> => void handedOn.push(ctx.reading.kind);
    const protocol = identified(contextOf(roomLine("alice", "x"), rooms, keptOutlet()), { kind: "protocol", payloadMode: "m", protocol: { mode: "contribution", sessionId: "s1", modelPart: undefined, content: "<a> <b> <c> ." }, evidence: "contribution" });
    await carried(carry)(protocol, next);
    await carried(carry)(identified(contextOf(roomLine("alice", "mfr-list"), rooms, keptOutlet()), { kind: "command", command: { name: "list" } }), next);
    expect(calls).toEqual(["contribute s1"]);
    expect(handedOn).toEqual(["command"]);
  });

  it("sends a command to its handler, and answers in the room it was said in", async () => {
    const { options, calls } = routing();
    const outlet = keptOutlet();
    await route(identified(contextOf(roomLine("alice", "mfr-cancel s1"), rooms, outlet), { kind: "command", command: { name: "cancel", sessionId: "s1" } }), options);
    await route(identified(contextOf(roomLine("alice", "mfr-list"), rooms, outlet), { kind: "command", command: { name: "list" } }), options);
    expect(calls).toEqual(["cancel s1"]);
    expect(outlet.said).toEqual([{ how: "to", target: { kind: "room", room: "room@conference.localhost" }, text: "No sessions." }]);
  });

  it("sends a debate line to the session, answers a misspelt command by nick, a misuse with its usage, and chatter not at all", async () => {
    const { options, calls } = routing();
    const outlet = keptOutlet();
    const ctx = () => contextOf(roomLine("alice", "x"), rooms, outlet);
    await route(identified(ctx(), { kind: "debate-line", input: { kind: "debate", sessionId: "s1", from: { nick: "Chair", jid: undefined }, line: { kind: "started" } } as never }), options);
    await route(identified(ctx(), { kind: "unknown", unknown: { word: "mfr-lst", suggestion: "mfr-list" } }), options);
    await route(identified(ctx(), { kind: "misuse", misuse: { name: "cancel", usage: "mfr-cancel <sessionId>" } }), options);
    await route(identified(ctx(), { kind: "chatter" }), options);
    expect(calls).toEqual(["apply debate"]);
    expect(outlet.said.map((s) => s.text)).toEqual(['alice: Unknown command "mfr-lst"; did you mean mfr-list? Say "help" for the commands I know.', "Usage: mfr-cancel <sessionId>"]);
  });
});
