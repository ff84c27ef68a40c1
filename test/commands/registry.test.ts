/** The command registry: every command word has its handler, and each handler says what it always said. */
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/commands/parse.js";
import { helpText } from "../../src/commands/help-text.js";
import type { CommandScope } from "../../src/commands/command.js";
import { AVAILABLE_COMMANDS, runCommand } from "../../src/commands/registry.js";
import { withReading, withStanding } from "../../src/inbound/context.js";
import type { Command } from "../../src/commands/parse.js";
import { xml } from "../../src/xmpp/stanza.js";
import { contextOf, keptOutlet, roomLine, roomsWith } from "../inbound/helpers.js";

const rooms = roomsWith({ nick: "alice" });
const who = { nick: "alice", jid: undefined, identity: "nick:alice" };

function scope(overrides: Partial<CommandScope["sessions"]> = {}, started: { ok: true; sessionId: string } | { ok: false; reason: string } = { ok: true, sessionId: "s7" }) {
  const applied: unknown[] = [];
  const sessions = { session: () => undefined, clarificationFor: () => undefined, start: () => started, debatingSessions: () => [], apply: (input: unknown) => void applied.push(input), ...overrides };
  const chooser = { planStart: () => ({ expectedAgents: [], expectedProposers: null, expectedSolvers: [], approvalRequired: [] }), planDebate: () => ({ expectedAgents: [], expectedProposers: null, expectedSolvers: [], approvalRequired: [], note: "No Chair here." }) };
  const s = { nick: "Coordinator", room: "room@conference.localhost", maxStanzaBytes: 60_000, sessions, chooser, identities: () => undefined, available: AVAILABLE_COMMANDS, refused: () => undefined } as unknown as CommandScope;
  return { scope: s, applied };
}

async function run(command: Command, s: CommandScope, direct = false) {
  const outlet = keptOutlet();
  const stanza = direct ? xml("message", { from: "alice@localhost/phone", type: "chat", id: "d" }, xml("body", {}, "x")) : roomLine("alice", "x");
  const ctx = withStanding(withReading(contextOf(stanza, rooms, outlet), { kind: "command", command }), { participant: who, requester: who, facts: { nick: "alice", identity: "nick:alice", realJid: undefined, formerNicks: [] }, agent: false });
  await runCommand(command, ctx, s);
  return outlet.said;
}

describe("the command registry", () => {
  it("has a handler for every command word, so help marks none as not yet available", () => {
    expect([...AVAILABLE_COMMANDS].sort()).toEqual(COMMANDS.map((c) => c.name).sort());
    expect(helpText("Coordinator", AVAILABLE_COMMANDS)).not.toContain("not yet available");
  });

  it("help answers with the help text; a session that does not exist is named back", async () => {
    expect((await run({ name: "help" }, scope().scope)).map((s) => s.text)).toEqual([helpText("Coordinator", AVAILABLE_COMMANDS)]);
    expect((await run({ name: "approve", sessionId: "nope" }, scope().scope)).map((s) => s.text)).toEqual(['There is no session "nope". Say "mfr-list" for the sessions.']);
    expect((await run({ name: "use", choice: [1] }, scope().scope)).map((s) => s.text)).toEqual(["No session is waiting for you to choose agents."]);
  });

  it("approve and reject become the session's approval input, from the requester", async () => {
    const { scope: s, applied } = scope({ session: (() => ({ id: "s1" })) as never });
    await run({ name: "approve", sessionId: "s1" }, s);
    await run({ name: "reject", sessionId: "s1" }, s);
    expect(applied).toEqual([
      { kind: "approval", sessionId: "s1", by: who, approved: true },
      { kind: "approval", sessionId: "s1", by: who, approved: false },
    ]);
  });

  it("start says where the session runs when asked in 1:1 chat; debate says the chooser's note in the room first", async () => {
    expect((await run({ name: "start", problem: "Plan a trip" }, scope().scope, true)).map((s) => s.text)).toEqual(["Started s7 in room@conference.localhost."]);
    expect(await run({ name: "debate", problem: "Which route?" }, scope().scope)).toEqual([{ how: "sayIn", room: "primary", text: "No Chair here." }]);
    const refused = await run({ name: "start", problem: "p" }, scope({}, { ok: false, reason: "Too many live sessions." }).scope);
    expect(refused.map((s) => s.text)).toEqual(["alice: Too many live sessions."]);
  });
});
