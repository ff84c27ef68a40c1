/**
 * What the command handler tests share: a scope whose sessions and chooser keep what they
 * were asked, and a way to run one handler on a command said in the room or in 1:1 chat by
 * alice, whose standing is given.
 */
import type { Command } from "../../src/commands/parse.js";
import type { CommandScope } from "../../src/commands/command.js";
import { AVAILABLE_COMMANDS } from "../../src/commands/registry.js";
import { withReading, withStanding, type IdentifiedContext } from "../../src/inbound/context.js";
import type { RefusalReason } from "../../src/ops/refusals.js";
import { xml } from "../../src/xmpp/stanza.js";
import { contextOf, keptOutlet, roomLine, roomsWith, type Said } from "../inbound/helpers.js";

export const ROOM = "room@conference.localhost";
export const ALICE = { nick: "alice", jid: undefined, identity: "nick:alice" };

type Started = { ok: true; sessionId: string } | { ok: false; reason: string };

export interface FakeScopeOptions {
  maxStanzaBytes?: number;
  started?: Started;
  /** Sessions that exist, by id. */
  sessions?: string[];
  /** The session waiting for a `use` from its requester, if any. */
  clarification?: string;
  /** What `cancel` answers (whether the session exists). */
  cancels?: boolean;
  debateNote?: string;
}

/** A scope that records: what the core was asked, what was refused, and in which order. */
export function fakeScope(o: FakeScopeOptions = {}) {
  const calls: Array<{ call: string; args: unknown[] }> = [];
  const refused: RefusalReason[] = [];
  const debating = [{ id: "d1" }];
  const record =
    <R>(call: string, result: (...args: unknown[]) => R) =>
    (...args: unknown[]): R => {
      calls.push({ call, args });
      return result(...args);
    };
  const plan = { expectedAgents: ["a1"], expectedProposers: null, expectedSolvers: [], approvalRequired: [] };
  const sessions = {
    session: record("session", (id) => ((o.sessions ?? []).includes(id as string) ? { id } : undefined)),
    clarificationFor: record("clarificationFor", () => (o.clarification ? { id: o.clarification } : undefined)),
    start: record("start", () => o.started ?? { ok: true, sessionId: "s7" }),
    cancel: record("cancel", () => o.cancels ?? true),
    debatingSessions: record("debatingSessions", () => debating),
    apply: record("apply", () => undefined),
  };
  const chooser = {
    planStart: record("planStart", () => plan),
    planDebate: record("planDebate", () => ({ ...plan, ...(o.debateNote ? { note: o.debateNote } : {}) })),
  };
  const scope = {
    nick: "Coordinator",
    room: ROOM,
    maxStanzaBytes: o.maxStanzaBytes ?? 60_000,
    sessions,
    chooser,
    identities: () => undefined,
    available: AVAILABLE_COMMANDS,
    refused: (reason: RefusalReason) => void refused.push(reason),
  } as unknown as CommandScope;
  return { scope, calls, refused, plan, debating };
}

const rooms = roomsWith({ nick: "alice" });

/** Runs a handler on a command from alice, in the room or (direct) in 1:1 chat; returns what was said. `requester`: alice as the core sees her (her standing). */
export async function runAs<C extends Command>(
  handler: (command: C, ctx: IdentifiedContext, scope: CommandScope) => Promise<void>,
  command: C,
  scope: CommandScope,
  direct = false,
  requester: IdentifiedContext["standing"]["requester"] = ALICE,
): Promise<Said[]> {
  const outlet = keptOutlet();
  const stanza = direct ? xml("message", { from: "alice@localhost/phone", type: "chat", id: "d" }, xml("body", {}, "x")) : roomLine("alice", "x");
  const ctx = withStanding(withReading(contextOf(stanza, rooms, outlet), { kind: "command", command }), {
    participant: ALICE,
    requester,
    facts: { nick: "alice", identity: "nick:alice", realJid: undefined, formerNicks: [] },
    agent: false,
  });
  await handler(command, ctx, scope);
  return outlet.said;
}
