/**
 * The occupants of bench/rooms.ts: a few connections that each sit in EVERY room of the
 * bench, as a team's agents and a team's watcher would. A person starts sessions in a room
 * (each with a problem text of its own, so a start is matched to its session by the
 * ModelContributionRequest's problemDescription) and is the independent observer of what the
 * coordinator says live; instant agents contribute when asked and propose when sent a
 * SolutionRequest.
 *
 * What it keeps for the figures, per room: every origin-id the coordinator said live (one
 * heard twice is a message sent twice), the SessionCompletes per session (none: a session
 * lost), which agents sent a contribution to each session and which its summary counts (the
 * difference: contributions missed).
 */
import { client, xml, type Client } from "@xmpp/client";
import { LINGUE, MFR, Mode } from "../../src/base/vocab.js";
import { syntheticContribution } from "../../src/rdf/synthetic.js";
import { sendWithoutDelay } from "../../src/xmpp/no-delay.js";
import { feedParserWholeStanzas } from "../../src/xmpp/parser-feed.js";
import { startClient } from "../../src/xmpp/client-start.js";
import { contributorsOf, payloadJson, type Started } from "../failover/room.js";
import type { Element, ServerAddress } from "../support/occupant.js";

const NS_SID = "urn:xmpp:sid:0";
const NS_DELAY = "urn:xmpp:delay";
const NS_MUC = "http://jabber.org/protocol/muc";

/** One connection in many rooms under one nick. */
class RoomsOccupant {
  readonly xmpp: Client;
  /** Room → the nicks present there. */
  readonly present = new Map<string, Set<string>>();
  onMessage: (room: string, stanza: Element) => void = () => undefined;

  constructor(
    server: ServerAddress,
    account: { username: string; password: string },
    readonly nick: string,
  ) {
    this.xmpp = client({ service: server.service, domain: server.domain, username: account.username, password: account.password, resource: nick });
    feedParserWholeStanzas(this.xmpp, { drop: () => false });
    sendWithoutDelay(this.xmpp);
    this.xmpp.on("error", () => undefined);
    this.xmpp.on("stanza", (stanza: Element) => {
      const from = String(stanza.attrs.from ?? "");
      const slash = from.indexOf("/");
      const room = slash < 0 ? from : from.slice(0, slash);
      const nick = slash < 0 ? "" : from.slice(slash + 1);
      if (stanza.is("presence")) {
        const nicks = this.present.get(room) ?? new Set<string>();
        this.present.set(room, nicks);
        if (stanza.attrs.type === "unavailable") nicks.delete(nick);
        else nicks.add(nick);
      } else if (stanza.is("message") && stanza.attrs.type === "groupchat" && nick !== this.nick) {
        this.onMessage(room, stanza);
      }
    });
  }

  /** Online, then in every room (no history: what came before is not this run's). */
  async join(rooms: readonly string[]): Promise<void> {
    await startClient(this.xmpp);
    await this.xmpp.send(xml("presence"));
    for (const room of rooms) await this.xmpp.send(xml("presence", { to: `${room}/${this.nick}` }, xml("x", { xmlns: NS_MUC }, xml("history", { maxstanzas: "0" }))));
  }

  say(room: string, body: string, payload?: { mode: string; mime: string; content: string; messageType?: string }, siblings: Record<string, string> = {}): Promise<void> {
    return this.xmpp.send(
      xml(
        "message",
        { to: room, type: "groupchat" },
        xml("body", {}, body),
        ...(payload ? [xml("payload", { xmlns: LINGUE, mode: payload.mode, mime: payload.mime, ...(payload.messageType ? { messageType: payload.messageType } : {}) }, payload.content)] : []),
        ...Object.entries(siblings).map(([name, value]) => xml(name, { xmlns: LINGUE }, value)),
      ),
    );
  }

  async stop(): Promise<void> {
    await this.xmpp.stop().catch(() => undefined);
  }
}

/** A session started in a room of the bench. */
export interface RoomStarted extends Started {
  room: string;
}

/** What was heard in one room. */
class RoomRecord {
  /** Origin-id → how often the person heard the coordinator say it live. */
  readonly originIds = new Map<string, number>();
  /** Session id → SessionCompletes heard. */
  readonly completes = new Map<string, number>();
  /** Session id → the agents its SessionComplete counts. */
  readonly counted = new Map<string, Set<string>>();
  /** Session id → the agents that sent it a contribution. */
  readonly contributed = new Map<string, Set<string>>();
  readonly byProblem = new Map<string, RoomStarted>();
  readonly bySession = new Map<string, RoomStarted>();
}

/** See the module comment. */
export class Crowd {
  readonly started: RoomStarted[] = [];
  private readonly records = new Map<string, RoomRecord>();
  private readonly person: RoomsOccupant;
  private readonly agents: RoomsOccupant[];
  private numbered = 0;

  constructor(
    server: ServerAddress,
    readonly rooms: readonly string[],
    accounts: { person: { username: string; password: string }; agents: Array<{ nick: string; username: string; password: string }> },
    triples: number,
  ) {
    for (const room of rooms) this.records.set(room, new RoomRecord());
    this.person = new RoomsOccupant(server, accounts.person, "pat");
    this.person.onMessage = (room, stanza) => this.personHears(room, stanza);
    this.agents = accounts.agents.map((a) => {
      const agent = new RoomsOccupant(server, a, a.nick);
      const turtle = syntheticContribution(a.nick, triples);
      agent.onMessage = (room, stanza) => this.agentHears(agent, turtle, room, stanza);
      return agent;
    });
  }

  /** Everyone joins every room. */
  async join(): Promise<void> {
    await Promise.all([this.person, ...this.agents].map((o) => o.join(this.rooms)));
  }

  /** The rooms in which the person sees the coordinator's nick. */
  roomsWithCoordinator(): number {
    return this.rooms.filter((r) => this.person.present.get(r)?.has("Coordinator")).length;
  }

  /** Sends `mfr-start` in `room` with a problem text of its own. */
  start(room: string, label = "session"): RoomStarted {
    this.numbered += 1;
    const s: RoomStarted = { room, problem: `Rooms bench ${label} ${this.numbered}: deliver the goods`, startedAt: Date.now() };
    this.started.push(s);
    this.record(room).byProblem.set(s.problem, s);
    void this.person.say(room, `mfr-start ${s.problem}`).catch(() => undefined);
    return s;
  }

  /** Starts with no SessionComplete (yet). */
  unfinished(): RoomStarted[] {
    return this.started.filter((s) => s.completedAt === undefined);
  }

  /** Origin-ids heard more than once, counted once per extra hearing. */
  sentTwice(): number {
    let n = 0;
    for (const r of this.records.values()) for (const times of r.originIds.values()) n += times - 1;
    return n;
  }

  /** Sessions whose SessionComplete came more than once. */
  completedTwice(): number {
    let n = 0;
    for (const r of this.records.values()) n += [...r.completes.values()].filter((c) => c > 1).length;
    return n;
  }

  /** Contributions sent to a completed session that its SessionComplete does not count. */
  missed(): Array<{ room: string; sessionId: string; agent: string }> {
    const missed: Array<{ room: string; sessionId: string; agent: string }> = [];
    for (const [room, r] of this.records) {
      for (const [sessionId, counted] of r.counted) {
        for (const agent of r.contributed.get(sessionId) ?? []) if (!counted.has(agent)) missed.push({ room, sessionId, agent });
      }
    }
    return missed;
  }

  /** Contributions sent, over every room. */
  contributions(): number {
    let n = 0;
    for (const r of this.records.values()) for (const agents of r.contributed.values()) n += agents.size;
    return n;
  }

  async stop(): Promise<void> {
    await Promise.all([this.person, ...this.agents].map((o) => o.stop()));
  }

  private record(room: string): RoomRecord {
    const r = this.records.get(room);
    if (!r) throw new Error(`${room} is not a room of the bench`);
    return r;
  }

  private personHears(room: string, stanza: Element): void {
    const r = this.records.get(room);
    if (!r || !String(stanza.attrs.from).endsWith("/Coordinator") || stanza.getChild("delay", NS_DELAY)) return;
    const originId = stanza.getChild("origin-id", NS_SID)?.attrs.id;
    if (originId) r.originIds.set(String(originId), (r.originIds.get(String(originId)) ?? 0) + 1);
    const p = payloadJson(stanza);
    if (!p) return;
    const sessionId = String(p.json.sessionId ?? "");
    if (p.type === `${MFR}ModelContributionRequest`) {
      const s = r.byProblem.get(String(p.json.problemDescription ?? ""));
      if (s && s.sessionId === undefined) {
        s.sessionId = sessionId;
        r.bySession.set(sessionId, s);
      }
    } else if (p.type === `${MFR}SessionComplete`) {
      r.completes.set(sessionId, (r.completes.get(sessionId) ?? 0) + 1);
      r.counted.set(sessionId, contributorsOf(String(p.json.summary ?? "")));
      const s = r.bySession.get(sessionId);
      if (s && s.completedAt === undefined) {
        s.completedAt = Date.now();
        s.status = String(p.json.status ?? "");
      }
    }
  }

  /** Contributes at once when asked (round 1, or a fix round that names it), proposes at once when sent the model. */
  private agentHears(agent: RoomsOccupant, turtle: string, room: string, stanza: Element): void {
    const r = this.records.get(room);
    if (!r || !String(stanza.attrs.from).endsWith("/Coordinator") || stanza.getChild("delay", NS_DELAY)) return;
    const p = payloadJson(stanza);
    if (!p) return;
    const sessionId = String(p.json.sessionId ?? "");
    const asked = p.json.requestedAgents;
    if (Array.isArray(asked) && asked.length > 0 && !asked.includes(agent.nick)) return;
    if (p.type === `${MFR}ModelContributionRequest`) {
      const mine = r.contributed.get(sessionId) ?? new Set<string>();
      mine.add(agent.nick);
      r.contributed.set(sessionId, mine);
      void agent.say(room, `Contribution for ${sessionId}.`, { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: turtle }, { sessionId }).catch(() => undefined);
    } else if (p.type === `${MFR}SolutionRequest`) {
      const proposal = { messageType: `${MFR}SolutionProposal`, sessionId, solution: { success: true, message: `Plan by ${agent.nick}.`, plan: [`move-${agent.nick}(truck)`] } };
      void agent
        .say(room, `Proposal for ${sessionId}.`, { mode: Mode.ModelNegotiation, mime: "application/json", content: JSON.stringify(proposal), messageType: `${MFR}SolutionProposal` })
        .catch(() => undefined);
    }
  }
}
