/**
 * A peer agent for integration tests, speaking only the wire protocol (docs/protocol.md): it
 * answers every ModelContributionRequest with a contribution and every SolutionRequest
 * with a proposal, as existing peers do, in the room the request came from. What it sends
 * is scripted per test. It may sit in several rooms (the MFR phase rooms).
 *
 * With `answersMentions` it also behaves like the existing open-source agents in the room
 * (docs/protocol.md, "Addressing in the room"): no profile, no disco#info features, and any plain
 * room line that starts with `<nick>:`/`<nick>,` or merely contains its nick wakes it up and
 * gets an answer, unless the line starts with a system-status marker (`SYS:`, `[MFR]`,
 * `Lingue `). Every such wake-up is kept in `triggers`, so a test can assert the coordinator
 * never woke it.
 */
import { LINGUE, MFR, Mode } from "../../src/base/vocab.js";
import { TestPeer, parseMessage, type ReceivedMessage } from "./peer.js";
import { peerOptions, registerUser, type LocalProsody } from "./prosody.js";

export interface AgentScript {
  /** Turtle for round n, or undefined to stay silent in that round. */
  contribution?: (round: number, sessionId: string) => string | undefined;
  /** The `solution` object of a SolutionProposal, or undefined to stay silent. */
  solution?: (model: string, sessionId: string) => Record<string, unknown> | undefined;
  /** Wake up on any plain room line that names it, as existing agents do. */
  answersMentions?: boolean;
  /** How long it thinks before it answers a request (default: at once), as slow agents do. */
  thinkMs?: number;
  /** disco#info features it advertises (default: it answers no disco#info, as existing agents). */
  discoFeatures?: readonly string[];
}

/** Bodies existing agents skip as system status. */
export const STATUS_MARKERS = ["SYS:", "[MFR]", "Lingue "];

export class ScriptedAgent {
  readonly requests: Array<{ sessionId: string; round: number; issues?: Record<string, string[]>; requestedAgents?: string[]; room: string }> = [];
  readonly solutionRequests: Array<{ sessionId: string; model: string; room: string }> = [];
  /** Plain room lines from others that named this agent and woke it up (with `answersMentions`). */
  readonly triggers: ReceivedMessage[] = [];

  private constructor(
    readonly peer: TestPeer,
    readonly room: string,
    readonly nick: string,
    private readonly script: AgentScript,
  ) {
    // Answers race with stop() at the end of a test; a send on a closing stream is not a failure.
    peer.xmpp.on("stanza", (stanza) => void this.onStanza(stanza).catch(() => undefined));
  }

  /** Joins `room` (or each of several rooms; the first is where it announces itself) as `nick`. */
  static async join(server: LocalProsody, room: string | readonly string[], nick: string, script: AgentScript): Promise<ScriptedAgent> {
    const rooms = typeof room === "string" ? [room] : room;
    const account = await registerUser(server, nick.toLowerCase());
    const peer = await TestPeer.connect({ ...peerOptions(server, account), ...(script.discoFeatures ? { features: [...script.discoFeatures] } : {}) });
    for (const r of rooms) await peer.joinRoom(r, nick);
    return new ScriptedAgent(peer, rooms[0] ?? "", nick, script);
  }

  /** Says hello with a HumanChat payload, which is how the coordinator learns it is an agent. */
  async announce(): Promise<void> {
    await this.peer.sendGroupchat(this.room, { payload: { mode: Mode.HumanChat, mime: "text/plain", content: `${this.nick} ready` } });
  }

  async contribute(sessionId: string, turtle: string, room = this.room): Promise<void> {
    await this.peer.sendGroupchat(room, { payload: { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: turtle }, siblings: { sessionId } });
  }

  /** One part of a contribution in parts: `modelPart` = "k/n" beside `sessionId` (docs/protocol.md). */
  async contributePart(sessionId: string, turtle: string, modelPart: string, room = this.room): Promise<void> {
    await this.peer.sendGroupchat(room, { payload: { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: turtle }, siblings: { sessionId, modelPart } });
  }

  /** A contribution in `parts.length` parts, sent in `order` (part numbers from 1; by default 1..n). */
  async contributeInParts(sessionId: string, parts: readonly string[], order: readonly number[] = parts.map((_, i) => i + 1), room = this.room): Promise<void> {
    for (const k of order) await this.contributePart(sessionId, parts[k - 1] ?? "", `${k}/${parts.length}`, room);
  }

  async propose(sessionId: string, solution: Record<string, unknown>, room = this.room): Promise<void> {
    // Pretty-printed, no messageType attribute, short type name: as liberal as real peers.
    await this.peer.sendGroupchat(room, {
      payload: { mode: Mode.ModelNegotiation, mime: "application/json", content: JSON.stringify({ messageType: `${MFR}SolutionProposal`, sessionId, solution }, null, 2) },
    });
  }

  private async onStanza(stanza: ReceivedMessage["stanza"]): Promise<void> {
    if (!stanza.is("message") || stanza.attrs.type !== "groupchat") return;
    const payload = stanza.getChild("payload", LINGUE);
    if (!payload && this.script.answersMentions) {
      await this.onPlainLine(parseMessage(stanza));
      return;
    }
    if (!payload || payload.attrs.mode !== Mode.ModelNegotiation) return;
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(payload.text()) as Record<string, unknown>;
    } catch {
      return;
    }
    const sessionId = String(json.sessionId);
    const from = String(stanza.attrs.from ?? "");
    const room = from.slice(0, from.includes("/") ? from.indexOf("/") : undefined);
    if (json.messageType === `${MFR}ModelContributionRequest`) {
      const round = Number(json.round ?? 1);
      this.requests.push({ sessionId, round, issues: json.issues as Record<string, string[]>, requestedAgents: json.requestedAgents as string[], room });
      const turtle = this.script.contribution?.(round, sessionId);
      if (turtle !== undefined) await this.think();
      if (turtle !== undefined) await this.contribute(sessionId, turtle, room);
    } else if (json.messageType === `${MFR}SolutionRequest`) {
      const model = String(json.model ?? "");
      this.solutionRequests.push({ sessionId, model, room });
      const solution = this.script.solution?.(model, sessionId);
      if (solution !== undefined) await this.think();
      if (solution !== undefined) await this.propose(sessionId, solution, room);
    }
  }

  /** Existing agents take `<nick>: …` as a command and wake up for any line naming them. */
  private async onPlainLine(m: ReceivedMessage): Promise<void> {
    const body = m.body ?? "";
    if (m.delayed || m.from === `${this.room}/${this.nick}` || STATUS_MARKERS.some((marker) => body.startsWith(marker))) return;
    if (!body.toLowerCase().includes(this.nick.toLowerCase())) return;
    this.triggers.push(m);
    await this.peer.sendGroupchat(this.room, { body: "Sorry, I could not run that as a query." });
  }

  async stop(): Promise<void> {
    await this.peer.stop();
  }

  private async think(): Promise<void> {
    if (this.script.thinkMs) await new Promise((r) => setTimeout(r, this.script.thinkMs));
  }
}

/** Entities and an action: the "modeler" half of the sample problem. */
export const MODELER_TURTLE = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix schema: <http://schema.org/> .
<#truck> a mfr:Entity ; mfr:entityType "Vehicle" ; schema:name "Truck 1" .
<#depot> a mfr:Entity ; mfr:entityType "Location" ; schema:name "Depot"@en .
<#warehouse> a mfr:Entity ; mfr:entityType "Location" ; schema:name "Warehouse" .
<#drive> a mfr:Action ; mfr:actionName "drive" ; mfr:hasParameter <#truck> ;
  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "at(truck, depot)" ] ;
  mfr:hasEffect [ a mfr:Effect ; mfr:expression "at(truck, warehouse)" ] .
`;

/** Constraints and a goal: the "planner" half. */
export const PLANNER_TURTLE = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#oneTruck> a mfr:Constraint ; mfr:constraintType "resource" ; mfr:appliesTo "problem" ; rdfs:comment "Only one truck." .
<#delivered> a mfr:Goal ; rdfs:label "goods delivered" ; mfr:expression "at(truck, warehouse)" .
`;

/** The planner's half with a Goal that says nothing: a Violation. */
export const PLANNER_TURTLE_BROKEN = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#oneTruck> a mfr:Constraint ; mfr:constraintType "resource" ; mfr:appliesTo "problem" ; rdfs:comment "Only one truck." .
<#delivered> a mfr:Goal .
`;

export const GOOD_SOLUTION = {
  success: true,
  message: "Drive the truck from the depot to the warehouse.",
  plan: ["drive(truck, depot, warehouse)"],
  bindings: ["truck=Truck 1"],
  satisfiesGoals: [{ goal: "goods delivered", satisfied: true }],
};
