/**
 * Set-up shared by the integration tests of identity, authority and bounds: rooms created by
 * a person before the coordinator arrives (so the coordinator is an ordinary participant),
 * people and scripted agents who join, leave and rename, and the predicates the tests wait on.
 *
 *   const { server, afterThis } = useTestProsody();
 *   const kit = roomKit(server, afterThis);
 *   const { room, owner } = await kit.ownedRoom("owner");
 *   const coordinator = await kit.coordinator(room, "mfr:contributionTimeout 4000 ;");
 *   const alice = await kit.person(room, "alice");
 */
import { xml } from "@xmpp/client";
import { expect } from "vitest";
import { MFR, Mode } from "../../src/base/vocab.js";
import { LOST_CONNECTION_LOG } from "../../src/xmpp/connection.js";
import { CoordinatorProcess, type CoordinatorProcessOptions, type LogLine } from "./coordinator-process.js";
import { TestPeer, type Element, type ReceivedMessage, type TestPeerOptions } from "./peer.js";
import { peerOptions, registerUser, uniqueRoom, type LocalProsody, type TestAccount } from "./prosody.js";
import { ScriptedAgent, type AgentScript } from "./scripted-agent.js";

const NS_MUC_USER = "http://jabber.org/protocol/muc#user";
export const COORDINATOR_NICK = "Coordinator";
/** The coordinator's log line when its stream drops. */
export const DISCONNECTED_LOG = LOST_CONNECTION_LOG;

// ---- predicates -------------------------------------------------------------------------

/** A ModelNegotiation payload of this type (short name), for this session when given. */
export const negotiation = (type: string, sessionId?: string) => (m: ReceivedMessage) =>
  m.payload?.mode === Mode.ModelNegotiation &&
  m.payload.messageType === `${MFR}${type}` &&
  (sessionId === undefined || (m.payload.json as { sessionId?: string } | undefined)?.sessionId === sessionId);

export function json(m: ReceivedMessage): Record<string, unknown> {
  return m.payload?.json as Record<string, unknown>;
}

/**
 * A body as a person reads it: without the status mark every room line of the coordinator's
 * carries (src/session/room-lines.ts; the rule itself is tested in test/session/room-lines.test.ts
 * and by the demo's transcript), and with no-break spaces (between a number and its unit) as
 * plain spaces.
 */
export function readable(body: string | undefined): string {
  const text = (body ?? "").replace(/\u00a0/g, " ");
  return text.startsWith("[MFR] ") ? text.slice("[MFR] ".length) : text;
}

/** A plain body the coordinator said in the room (read as `readable` gives it): starting with `prefix`, or matching a RegExp. */
export const said = (room: string, text: string | RegExp) => (m: ReceivedMessage) =>
  m.from === `${room}/${COORDINATOR_NICK}` &&
  m.type === "groupchat" &&
  !m.payload &&
  (typeof text === "string" ? readable(m.body).startsWith(text.startsWith("[MFR] ") ? text.slice(6) : text) : text.test(readable(m.body)));

/**
 * What the coordinator told one occupant privately (a private message through the room):
 * how answers to agents travel, since agents take a room line that starts with their nick
 * as a command.
 */
export const toldPrivately = (room: string, text: string | RegExp) => (m: ReceivedMessage) =>
  m.from === `${room}/${COORDINATOR_NICK}` &&
  m.type === "chat" &&
  (typeof text === "string" ? readable(m.body).startsWith(text) : text.test(readable(m.body)));

/** The coordinator's answer to `help` in the room. */
export const helpAnswer = (room: string) => said(room, `${COORDINATOR_NICK} runs Model-First Reasoning sessions.`);

/** The last line of a multi-line body. */
export function lastLine(m: ReceivedMessage): string {
  return (m.body ?? "").split("\n").at(-1) ?? "";
}

/** MUC status codes and the item of a room presence. */
export function mucOf(presence: Element): { statuses: string[]; role?: string; affiliation?: string; jid?: string } {
  const x = presence.getChild("x", NS_MUC_USER);
  const item = x?.getChild("item");
  return {
    statuses: (x?.getChildren("status") ?? []).map((s: Element) => String(s.attrs.code)),
    ...(item?.attrs.role ? { role: String(item.attrs.role) } : {}),
    ...(item?.attrs.affiliation ? { affiliation: String(item.attrs.affiliation) } : {}),
    ...(item?.attrs.jid ? { jid: String(item.attrs.jid) } : {}),
  };
}

// ---- room membership --------------------------------------------------------------------

/** Leaves a room and resolves once the room confirms it (our own unavailable presence, status 110). */
export async function leaveRoom(peer: TestPeer, room: string, nick: string): Promise<void> {
  const from = `${room}/${nick}`;
  const gone = peer.waitForPresence((p) => p.attrs.from === from && p.attrs.type === "unavailable" && mucOf(p).statuses.includes("110"));
  await peer.leaveRoom(room, nick);
  await gone;
}

/**
 * Changes nick in a room (a plain presence to room/newNick, XEP-0045 §7.6) and resolves with
 * the room's presence for the new nick (status 110). The room first sends the old nick as
 * unavailable with status 303 and the new nick.
 */
export async function changeNick(peer: TestPeer, room: string, from: string, to: string): Promise<Element> {
  const start = peer.presences.length;
  const renamed = peer.waitForPresence(
    (p) => peer.presences.indexOf(p) >= start && p.attrs.from === `${room}/${to}` && !p.attrs.type && mucOf(p).statuses.includes("110"),
  );
  await peer.sendRaw(xml("presence", { to: `${room}/${to}` }));
  const presence = await renamed;
  const left = peer.presences.find((p) => peer.presences.indexOf(p) >= start && p.attrs.from === `${room}/${from}` && p.attrs.type === "unavailable");
  expect(left && mucOf(left).statuses).toContain("303");
  return presence;
}

// ---- the kit ----------------------------------------------------------------------------

export interface RoomKit {
  /** A fresh account, connected (not in any room yet); stopped after the test. */
  account(prefix: string, options?: Partial<TestPeerOptions>): Promise<{ peer: TestPeer; account: TestAccount }>;
  /** A fresh account that joins `room` as `nick`. */
  person(room: string, nick: string): Promise<TestPeer>;
  /**
   * A new room created by a person (the owner) before any coordinator: Prosody's defaults
   * make it semi-anonymous (real JIDs only for moderators), and the owner is a moderator.
   */
  ownedRoom(ownerNick?: string): Promise<{ room: string; owner: TestPeer; ownerAccount: TestAccount; ownerPresence: Element }>;
  /** The real CLI, joined to `room`; killed after the test. */
  coordinator(room: string, mfrConfig?: string, more?: Partial<CoordinatorProcessOptions>): Promise<CoordinatorProcess>;
  /** A scripted agent under its own fresh account; by default it announces itself and the coordinator has noted it. */
  agent(room: string, nick: string, script: AgentScript, opts?: { coordinator?: CoordinatorProcess; announce?: boolean }): Promise<ScriptedAgent>;
}

export function roomKit(server: () => LocalProsody, afterThis: (step: () => Promise<unknown>) => void): RoomKit {
  const account: RoomKit["account"] = async (prefix, options = {}) => {
    const acc = await registerUser(server(), prefix);
    const peer = await TestPeer.connect({ ...peerOptions(server(), acc), ...options });
    afterThis(() => peer.stop());
    return { peer, account: acc };
  };
  return {
    account,
    async person(room, nick) {
      const { peer } = await account(nick.toLowerCase());
      await peer.joinRoom(room, nick);
      return peer;
    },
    async ownedRoom(ownerNick = "owner") {
      const room = uniqueRoom(server());
      const { peer: owner, account: ownerAccount } = await account(ownerNick.toLowerCase());
      const ownerPresence = await owner.joinRoom(room, ownerNick);
      const muc = mucOf(ownerPresence);
      // 201: the owner created the room, so the coordinator will find it already there.
      expect(muc.statuses).toContain("201");
      expect(muc).toMatchObject({ role: "moderator", affiliation: "owner" });
      return { room, owner, ownerAccount, ownerPresence };
    },
    async coordinator(room, mfrConfig = "", more = {}) {
      const coordinator = await CoordinatorProcess.start({ server: server(), room, mfrConfig, ...more });
      afterThis(() => coordinator.kill());
      await coordinator.joined(room);
      return coordinator;
    },
    async agent(room, nick, script, opts = {}) {
      const agent = await ScriptedAgent.join(server(), room, nick, script);
      afterThis(() => agent.stop());
      if (opts.announce !== false) {
        const from = opts.coordinator?.logs.length ?? 0;
        await agent.announce();
        await opts.coordinator?.waitForLog((l) => protocolMessageFrom(l, nick, Mode.HumanChat), 5000, from);
      }
      return agent;
    },
  };
}

/** The coordinator's debug line for a protocol message from `nick` (logs name senders "nick (identity)"). */
export function protocolMessageFrom(line: LogLine, nick: string, mode?: string): boolean {
  return line.msg === "protocol message" && String(line.sender ?? "").startsWith(`${nick} (`) && (mode === undefined || line.mode === mode);
}

// ---- session helpers --------------------------------------------------------------------

/** `mfr-start` from `human`; resolves with the session id from the first contribution request. */
export async function startSession(human: TestPeer, room: string, problem: string): Promise<string> {
  const start = human.messages.length;
  await human.sendGroupchat(room, { body: `mfr-start ${problem}` });
  const request = await human.waitForMessage((m) => human.messages.indexOf(m) >= start && negotiation("ModelContributionRequest")(m));
  return String(json(request).sessionId);
}

/**
 * The coordinator's stream never dropped, it is still running, and it still answers `help`
 * from `asker` in `room`.
 */
export async function expectStillServing(coordinator: CoordinatorProcess, asker: TestPeer, room: string): Promise<void> {
  const start = asker.messages.length;
  await asker.sendGroupchat(room, { body: "help" });
  await asker.waitForMessage((m) => asker.messages.indexOf(m) >= start && helpAnswer(room)(m));
  expect(coordinator.child.exitCode).toBeNull();
  expect(coordinator.logs.filter((l) => l.msg === DISCONNECTED_LOG)).toEqual([]);
}
