/**
 * The reference solver agent: a separate peer that joins the room like any agent and answers
 * each SolutionRequest whose model has a formal part with a plan it found by bounded planning
 * (src/planning/solver), checked by the coordinator's own simulator before it is sent. Requests it
 * cannot serve get an honest failure with the reason. One search runs at a time; requests
 * wait in a short queue, and each (session, round) is answered once.
 *
 * Given a contribution (an imported PDDL model, `--pddl`), it is also a modeller: it answers
 * each session's first ModelContributionRequest with it, in parts when it is large, and then
 * joins the construction room too, where those requests go.
 */
import { Parser, type Quad } from "n3";
import type { Logger } from "pino";
import type { Config } from "../../config/schema.js";
import { readFormalModel } from "../../formal/index.js";
import { decodeMessage, encodeMessage } from "../../protocol/codec.js";
import { LINGUE_FEATURES, MessageType, Mode, sessionBaseIri } from "../../base/vocab.js";
import type { Planner } from "../../planning/solver/index.js";
import { XmppConnection } from "../../xmpp/connection.js";
import { classifyMessage } from "../../xmpp/inbound.js";
import { Rooms } from "../../xmpp/rooms.js";
import { answerDiscoveryAndPing } from "../../xmpp/service-discovery.js";
import { bareJid, type Element } from "../../xmpp/stanza.js";
import { PddlContributor } from "../pddl-contribution/index.js";
import type { PddlContribution } from "../pddl-contribution/index.js";
import { ModelPartsInbox } from "./model-parts-inbox.js";
import { solutionFor, unreadableModel, type SolutionBody } from "./proposal.js";
import { asksUs, readSolutionRequest, type SolutionRequest } from "./request.js";

/** Requests waiting while a search runs; past this the oldest waiting one is dropped (logged). */
const MAX_QUEUED = 8;
/** (session, round) pairs remembered as answered, so a repeated request is not planned twice. */
const MAX_REMEMBERED = 1_000;
/** A model larger than this is not planned for: grounding it would not finish in time anyway. */
const MAX_MODEL_TRIPLES = 200_000;

export interface SolverSettings {
  maxPlanSteps: number;
  planningTimeoutMs: number;
  /** A model to contribute when asked; without it the solver only answers SolutionRequests. */
  contribution?: PddlContribution;
}

interface Job {
  room: string;
  from: string;
  request: SolutionRequest;
  turtle: string | null;
}

export class ReferenceSolver {
  private readonly connection: XmppConnection;
  private readonly rooms: Rooms;
  private readonly inbox = new ModelPartsInbox();
  private readonly queue: Job[] = [];
  private readonly answered = new Set<string>();
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly contributor: PddlContributor | undefined;

  constructor(
    private readonly config: Config,
    private readonly settings: SolverSettings,
    private readonly planner: Planner,
    private readonly log: Logger,
  ) {
    this.connection = new XmppConnection({ account: config.xmpp, maxStanzaBytes: config.limits.maxStanzaBytes }, log);
    this.rooms = new Rooms(this.connection, log);
    const contribution = settings.contribution;
    this.contributor = contribution && new PddlContributor(contribution.turtle, { nick: config.nick, maxStanzaBytes: config.limits.maxStanzaBytes });
  }

  /**
   * The rooms it answers in: the primary room and the reasoning room, where SolutionRequests
   * go, and with a contribution the construction room, where ModelContributionRequests go.
   */
  private roomJids(): string[] {
    const { reason, construct } = this.config.phaseRooms;
    const phases = [reason, ...(this.contributor ? [construct] : [])].filter((r): r is string => typeof r === "string" && r !== "");
    return [...new Set([this.config.room, ...phases].map(bareJid))];
  }

  async start(): Promise<void> {
    answerDiscoveryAndPing(this.connection, { category: "client", type: "bot", name: this.config.nick }, LINGUE_FEATURES);
    this.connection.on("online", () => void this.rooms.rejoinAll());
    this.connection.on("offline", () => this.rooms.markDisconnected());
    this.connection.on("stanza", (stanza) => this.onStanza(stanza));
    for (const room of this.roomJids()) await this.rooms.enter(room, this.config.nick);
    await this.connection.start();
  }

  isJoined(): boolean {
    return this.roomJids().every((room) => this.rooms.isJoined(room));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    await this.running?.catch(() => undefined);
    await this.rooms.leaveAll();
    await this.connection.stop();
  }

  private onStanza(stanza: Element): void {
    try {
      if (stanza.is("presence")) this.rooms.handlePresence(stanza);
      else if (stanza.is("message")) this.onMessage(stanza);
    } catch (err) {
      // Nothing a room member sends may take the solver down.
      this.log.error({ err, from: stanza.attrs.from }, "failed to handle a stanza");
    }
  }

  private onMessage(stanza: Element): void {
    const message = classifyMessage(stanza, this.rooms, this.connection.jid ? bareJid(this.connection.jid) : undefined);
    if ("ignored" in message || message.kind !== "room") return;
    const size = Buffer.byteLength(stanza.toString(), "utf8");
    if (size > this.config.limits.maxInboundBytes) {
      this.log.warn({ from: message.nick, bytes: size }, "message over the inbound limit ignored");
      return;
    }
    const { payload, siblings } = decodeMessage(stanza);
    if (!payload) return;
    if (payload.mode === Mode.ModelFirstRDF && siblings.modelPart !== undefined && siblings.sessionId) {
      if (!this.inbox.add(message.nick, siblings.sessionId, siblings.modelPart, payload.content)) {
        this.log.warn({ from: message.nick, sessionId: siblings.sessionId, part: siblings.modelPart }, "model part refused (bad label or model too large)");
      }
      return;
    }
    if (payload.mode !== Mode.ModelNegotiation) return;
    if (this.contributor && this.contribute(message.room, payload.content, payload.messageType)) return;
    const request = readSolutionRequest(payload.content, payload.messageType);
    if (!request || !asksUs(request, this.config.nick)) return;
    const key = `${request.sessionId}\u0000${request.round}`;
    if (this.answered.has(key)) return;
    this.remember(key);
    // The parts came before the request, from the same sender: take them now, before later traffic.
    const turtle = request.modelParts > 0 ? this.inbox.take(message.nick, request.sessionId, request.modelParts)?.join("\n") ?? null : request.model;
    this.enqueue({ room: message.room, from: message.nick, request, turtle });
  }

  /** Answers a ModelContributionRequest with the contribution; false when the payload is none to answer. */
  private contribute(room: string, content: string, messageType: string | undefined): boolean {
    const answer = this.contributor?.answer(room, content, messageType) ?? { kind: "none" };
    if (answer.kind === "none") return false;
    if (answer.kind === "cannot-send") {
      this.log.error({ sessionId: answer.sessionId, error: answer.error }, "the contribution cannot be sent");
      return true;
    }
    this.log.info({ sessionId: answer.sessionId, stanzas: answer.stanzas.length }, "contributing the PDDL model");
    // Parts go one after the other, in order, as the protocol asks (part 1 opens the series).
    void (async () => {
      for (const stanza of answer.stanzas) {
        if (this.stopped) return;
        await this.connection.send(stanza);
      }
    })().catch((err: unknown) => this.log.error({ err, sessionId: answer.sessionId }, "sending the contribution failed"));
    return true;
  }

  private remember(key: string): void {
    this.answered.add(key);
    if (this.answered.size > MAX_REMEMBERED) {
      const oldest = this.answered.values().next().value;
      if (oldest !== undefined) this.answered.delete(oldest);
    }
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    if (this.queue.length > MAX_QUEUED) {
      const dropped = this.queue.shift();
      this.log.warn({ sessionId: dropped?.request.sessionId }, "too many requests waiting; the oldest was dropped");
    }
    if (!this.running) this.running = this.drain().finally(() => (this.running = null));
  }

  private async drain(): Promise<void> {
    for (let job = this.queue.shift(); job && !this.stopped; job = this.queue.shift()) {
      try {
        await this.answer(job);
      } catch (err) {
        this.log.error({ err, sessionId: job.request.sessionId }, "planning failed unexpectedly");
        await this.propose(job, unreadableModel("the planner failed unexpectedly; see the solver's log"));
      }
    }
  }

  private async answer(job: Job): Promise<void> {
    const { sessionId, round } = job.request;
    if (job.turtle === null) {
      await this.propose(job, unreadableModel(`not all ${job.request.modelParts} parts of the model arrived before the request`));
      return;
    }
    const quads = readModel(job.turtle, sessionId);
    if (!Array.isArray(quads)) {
      await this.propose(job, unreadableModel(quads.error));
      return;
    }
    const model = readFormalModel(quads);
    const outcome = await this.planner.solve(model, { maxSteps: this.settings.maxPlanSteps, timeoutMs: this.settings.planningTimeoutMs });
    this.log.info(
      { sessionId, round, outcome: outcome.kind, steps: outcome.kind === "plan" ? outcome.plan.length : undefined, elapsedMs: "elapsedMs" in outcome ? Math.round(outcome.elapsedMs) : undefined },
      outcome.kind === "plan" ? "plan found" : "no plan proposed",
    );
    await this.propose(job, solutionFor(model, outcome));
  }

  private async propose(job: Job, solution: SolutionBody): Promise<void> {
    if (this.stopped) return;
    const proposal = { messageType: MessageType.SolutionProposal, sessionId: job.request.sessionId, solution };
    await this.connection.send(
      encodeMessage({
        to: job.room,
        type: "groupchat",
        body: `Solution proposal for ${job.request.sessionId}: ${solution.message}`,
        payload: { mode: Mode.ModelNegotiation, content: JSON.stringify(proposal), messageType: MessageType.SolutionProposal },
      }),
    );
  }
}

/** The model's quads, or why it cannot be read. IRIs are only names here: nothing is fetched. */
function readModel(turtle: string, sessionId: string): Quad[] | { error: string } {
  try {
    const quads = new Parser({ format: "text/turtle", baseIRI: sessionBaseIri(sessionId) }).parse(turtle);
    if (quads.length > MAX_MODEL_TRIPLES) return { error: `the model has ${quads.length} triples, more than the ${MAX_MODEL_TRIPLES} this solver plans for` };
    return quads;
  } catch (err) {
    return { error: `the model is not valid Turtle (${(err as Error).message.split("\n")[0]})` };
  }
}
