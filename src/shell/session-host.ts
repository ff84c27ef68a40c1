/**
 * The one owner of session state in the running coordinator. It feeds inputs to the pure
 * core (`stepSession`, one session at a time) and carries out the effects it returns:
 * messages, deadlines, and model work in the worker. Nothing else changes a session.
 */
import type { Logger } from "pino";
import { archivedListLine, sessionListLine, sessionStatus, sessionWording } from "../session/report.js";
import type { AnalysedModel, AnalyseAnswer, AnalyseOptions, CheckAnswer, CheckRequest, JobOptions, VerifyAnswer, VerifyRequest } from "../model/model-worker.js";
import type { Verification } from "../formal/index.js";
import { claimedPlanOf, unfinishedCheck, verdictWithoutSimulation } from "../session/plan-check.js";
import type { AnalysisJob } from "../model/analysis.js";
import { sessionBaseIri } from "../protocol/vocab.js";
import { newSessionId } from "../session/session-id.js";
import { analysisRequest, emptySessions, sessionIn, stepSession } from "../session/step.js";
import { sameAgent, sameParticipant } from "../session/identity.js";
import type { AnalysisOutcome, ChooseAgents, ContributionCheck, Effect, Input, Participant, Requester, RoomView, Session, SessionSettings, Sessions, SolutionBody } from "../session/types.js";
import type { SentRecord, StoredEvent } from "../store/records.js";
import { worthABlob, type BlobRef } from "../store/blobs.js";
import type { Element } from "../xmpp/stanza.js";
import { formatBytes } from "../chat/wording.js";
import { ContributionAssembler, joinParts, partsLimits, type PartOutcome, type PartRefusal, type PartsLimits, type PendingSummary } from "./contribution-parts.js";
import type { PartNumber } from "../protocol/part-number.js";
import { DeadlineTimers } from "./deadline-timers.js";
import { maxModelStatementBytes, privateMessage, renderEffects, solutionRequestSplitKeys, stanzaDigest, type Outgoing, type RenderContext } from "./outgoing.js";
import { forgetSplits, rememberSplits } from "../protocol/split-memo.js";
import { replayWithSends, unsentTail, type ExpectedSend } from "./sent-check.js";
import { KeyedSequence } from "./keyed-sequence.js";
import type { Heard } from "./heard.js";
import type { HeardRecord } from "../store/heard-log.js";
import { NS_SID, originIdElement } from "../xmpp/room-history.js";
import { hintStorage } from "../xmpp/storage-hints.js";

/**
 * The model work the host needs; ModelWorker (a pool of worker threads) provides it (a fake
 * may, in tests). Jobs of one session are asked for with the session id as `key` (they keep
 * their order); `onStart` is called when a worker begins a job, which a fake may never do.
 */
export interface ModelService {
  check(request: CheckRequest, options?: JobOptions): Promise<CheckAnswer>;
  analyse(job: AnalysisJob, options?: AnalyseOptions): Promise<AnalyseAnswer>;
  /** Checks a proposal's plan against the session's formal model, which only the workers hold. */
  verify(request: VerifyRequest, options?: JobOptions): Promise<VerifyAnswer>;
}

/** A session that has left memory: enough to list it and show its status. */
export interface ArchivedSummary {
  id: string;
  problem: string;
  status: string;
  startedAt: number;
  completedAt: number;
}

/**
 * Durable storage of sessions (the SQLite store implements it). Inputs are appended before
 * they are applied; completed sessions are archived and leave memory.
 */
export interface SessionJournal {
  /**
   * Returns the input's sequence number in the log. `heard`: the room message the input came
   * from, recorded in the same transaction (shell/heard.ts), so it is never taken in twice.
   */
  append(sessionId: string, input: Input, at: number, heard?: HeardRecord): number;
  /** Notes that a stanza of the step of `eventSeq` was handed to the connection. */
  recordSent(record: SentRecord): void;
  sentOf(sessionId: string): SentRecord[];
  /** Events at or below this were logged before sends were recorded. */
  sentTrackedAfter(): number;
  archive(session: Session): void;
  saveArtefact(sessionId: string, kind: string, content: string): void;
  /**
   * Notes that a value of the session (a text, or an object kept as JSON) is already stored
   * as a blob, written by the model worker: the log and the archive refer to it instead of
   * writing it again on the main thread. Optional: without it, values are written inline.
   */
  adoptBlob?(sessionId: string, value: string | object, ref: BlobRef): void;
  /** Keeps an artefact whose text the model worker already stored as the blob `digest`. */
  saveArtefactBlob?(sessionId: string, kind: string, digest: string): void;
  archivedSession(id: string): Session | undefined;
  listArchived(limit: number): ArchivedSummary[];
  /** Whether a session id was ever used (live or archived). */
  knows(id: string): boolean;
}

/** Where the host's messages go. */
export interface Outlet {
  /**
   * Sends one stanza to the server; called in order, one at a time. `sized`: the stanza is
   * known to be within the stanza limit, so it need not be measured (serialized) again.
   */
  send(stanza: Element, options?: { sized?: boolean }): Promise<void>;
  /**
   * Resolves once the server has taken in what was sent so far. Awaited after each bulk
   * stanza (a model part), so the model is not piled into the socket megabytes ahead and
   * replies to people, sent beside this queue, wait for one part at most.
   */
  settled?(): Promise<void>;
}

export interface SessionHostOptions {
  /** The rooms and the stanza limit the core's messages are rendered for. */
  render: RenderContext;
  settings: SessionSettings;
  maxLiveSessions: number;
  /** Most live sessions one person may have started (same identity, see session/identity.ts). */
  maxLiveSessionsPerPerson?: number;
  models: ModelService;
  outlet: Outlet;
  log: Logger;
  now: () => number;
  random?: () => number;
  /** Durable log and archive; without one, sessions live in memory only. */
  journal?: SessionJournal;
  /** The room as it is now, for a debate whose deadline fires (its fallback is chosen from it). */
  deadlineRoom?: (session: Session) => RoomView | undefined;
  /** Bounds on contributions in parts; by default `partsLimits(maxTriplesPerContribution, 224 KiB)`. */
  parts?: PartsLimits;
  /** Told of each part refused at the edge (the operations metrics count them). */
  onPartRefused?: (reason: PartRefusal) => void;
}

/** How a session begins: who is expected, and how agents are chosen first (see the core's start input). */
export interface SessionPlan {
  expectedAgents: string[];
  /** Agents known to answer SolutionRequests (they proposed before); null when unknown. */
  expectedProposers?: string[] | null;
  /** Agents that propose without modelling: the solution window waits for them too. */
  expectedSolvers?: string[];
  requestedAgents?: string[] | null;
  approvalRequired?: string[];
  choose?: (sessionId: string) => ChooseAgents;
  /** The room as the shell sees it now (who may be asked, and why each is taken for an agent). */
  room?: RoomView;
}

/**
 * One step of one session, as the core took it: the input, the session before and after,
 * and the effects it asked for. The host emits one for every input it applies (journaled or
 * not); the web view, the metrics and the tests all read this one stream, so nothing keeps
 * its own account of what a session did.
 */
export interface SessionStep {
  at: number;
  input: Input;
  /** Undefined before a session's first input, or for a session the core does not know. */
  before: Session | undefined;
  /** The session as the step left it (before it is archived, when the step completed it). */
  after: Session | undefined;
  effects: readonly Effect[];
}

export type SessionStepListener = (step: SessionStep) => void;

/** Bytes left for n3's blank-node label prefixes (`b12_`) in a statement measured on arrival. */
const BLANK_LABEL_MARGIN = 64;

/** What the core is told about input for a session it does not know (it answers "no such session"). */
const UNKNOWN_SESSION: ContributionCheck = { ok: false, message: "unknown session", line: null, column: null };

/** Who a series of parts belongs to: the identity the core attributes contributions by. */
function senderKey(from: Participant): string {
  return from.identity ?? (from.jid !== undefined ? `jid:${from.jid.toLowerCase()}` : `nick:${from.nick.toLowerCase()}`);
}

/** Completed sessions kept in memory for mfr-status/mfr-list when there is no journal. */
const COMPLETED_KEPT = 200;

export class SessionHost {
  private state: Sessions = emptySessions();
  private readonly timers: DeadlineTimers;
  /** Outgoing messages are chained so they leave in the order the core produced them. */
  private sending: Promise<void> = Promise.resolve();
  /** Contributions in parts still incomplete (not inputs of the core until complete; not journaled). */
  private readonly parts: ContributionAssembler<Participant>;
  /** Parts of one series are taken one after another, in arrival order (by series). */
  private readonly partsInOrder = new KeyedSequence();
  private readonly stepListeners = new Set<SessionStepListener>();
  /** Proposals of a session are handed to the core in arrival order, each after its plan check (by session). */
  private readonly proposalsInOrder = new KeyedSequence();
  /**
   * The formal model's JSON of sessions whose model the worker could not store (no store, or
   * the write failed), by session: sent with each plan check, since a worker that did not
   * analyse the session has no other way to the model. Never parsed here.
   */
  private readonly formalTexts = new Map<string, { digest: string; json: string }>();
  /** What a crash kept from going out, found at restore; sent once the rooms are caught up on. */
  private restoredTail: ExpectedSend[] = [];

  constructor(private readonly options: SessionHostOptions) {
    this.timers = new DeadlineTimers(options.now, (sessionId, at) => this.apply(this.deadlineInput(sessionId, at)));
    this.parts = new ContributionAssembler(options.parts ?? partsLimits(options.settings.maxTriplesPerContribution, 224 * 1024));
  }

  /** Hears every step from now on; returns the function that stops it. */
  onStep(listener: SessionStepListener): () => void {
    this.stepListeners.add(listener);
    return () => this.stepListeners.delete(listener);
  }

  /** The live record itself, for reading: this host changes it in place. */
  get sessions(): { readonly byId: Readonly<Sessions["byId"]> } {
    return this.state;
  }

  session(id: string): Session | undefined {
    return sessionIn(this.state, id);
  }

  liveSessions(): Session[] {
    return Object.values(this.state.byId).filter((s) => s.phase !== "complete");
  }

  /** Starts a session; returns its id, or a reason it cannot start now. */
  start(problem: string, by: Participant, plan: SessionPlan, heard?: Heard): { ok: true; sessionId: string } | { ok: false; reason: string } {
    if (this.liveSessions().length >= this.options.maxLiveSessions) {
      return { ok: false, reason: `${this.options.maxLiveSessions} sessions are already running; wait for one to finish or cancel one.` };
    }
    const perPerson = this.options.maxLiveSessionsPerPerson;
    const own = this.liveSessions().filter((s) => sameParticipant(s.startedBy, by));
    if (perPerson !== undefined && own.length >= perPerson) {
      return { ok: false, reason: `you already have ${own.length} sessions running (${own.map((s) => s.id).join(", ")}), the most one person may; wait for one to finish or cancel one.` };
    }
    const sessionId = newSessionId(this.options.random ?? Math.random, (id) => sessionIn(this.state, id) !== undefined || (this.options.journal?.knows(id) ?? false));
    this.apply({
      kind: "start",
      sessionId,
      problem,
      by,
      settings: this.options.settings,
      expectedAgents: plan.expectedAgents,
      requestedAgents: plan.requestedAgents ?? null,
      ...(plan.expectedProposers !== undefined ? { expectedProposers: plan.expectedProposers } : {}),
      ...(plan.expectedSolvers?.length ? { expectedSolvers: plan.expectedSolvers } : {}),
      ...(plan.choose ? { choose: plan.choose(sessionId) } : {}),
      ...(plan.approvalRequired?.length ? { approvalRequired: plan.approvalRequired } : {}),
      ...(plan.room ? { room: plan.room } : {}),
    }, heard);
    return { ok: true, sessionId };
  }

  /** A deadline as an input; a debate's carries the room as it is now, to fall back on. */
  private deadlineInput(sessionId: string, at: number): Input {
    const session = sessionIn(this.state, sessionId);
    const room = session ? this.options.deadlineRoom?.(session) : undefined;
    return { kind: "deadline", sessionId, at, ...(room ? { room } : {}) };
  }

  /** Sessions still choosing their agents (debate, clarification or approval). */
  choosingSessions(): Session[] {
    return this.liveSessions().filter((s) => s.phase === "selecting");
  }

  /** Sessions whose agents are being chosen in a Chair's debate. */
  debatingSessions(): Session[] {
    return this.liveSessions().filter((s) => s.phase === "selecting" && s.selection?.stage === "debating");
  }

  /**
   * The newest session waiting for this person to choose agents: one they started, or,
   * for a moderator or allow-listed person, any (the core decides whether they may).
   */
  clarificationFor(by: Requester): Session | undefined {
    const waiting = this.liveSessions()
      .filter((s) => s.phase === "selecting" && s.selection?.stage === "clarifying")
      .sort((a, b) => b.startedAt - a.startedAt);
    return waiting.find((s) => sameParticipant(s.startedBy, by)) ?? (by.standing ? waiting[0] : undefined);
  }

  cancel(sessionId: string, by: Requester, heard?: Heard): boolean {
    if (!sessionIn(this.state, sessionId)) return false;
    this.apply({ kind: "cancel", sessionId, by }, heard);
    return true;
  }

  /** A Turtle contribution: checked off the event loop first, then handed to the core. */
  async contribute(sessionId: string, from: Participant, turtle: string, heard?: Heard): Promise<void> {
    if (this.answeredFromArchive(sessionId, from, (s) => sessionWording.contributionTooLate(s, true))) return;
    if (!sessionIn(this.state, sessionId)) {
      // The core answers "no such session"; no need to parse anything.
      this.apply({ kind: "contribution", sessionId, from, turtle, check: UNKNOWN_SESSION }, heard);
      return;
    }
    this.apply({ kind: "contribution", sessionId, from, turtle, check: await this.check(sessionId, from, turtle, true) }, heard);
  }

  /**
   * One part of a contribution sent in parts (docs/protocol.md, "ModelFirstRDF contributions").
   * Each part is checked alone as it arrives, so a broken one is named at once; the parts of
   * one series are kept at the edge (shell/contribution-parts.ts) until all n are in, and
   * their union goes to the core as one contribution. Parts of one sender and session are
   * taken in arrival order.
   */
  contributePart(sessionId: string, from: Participant, part: PartNumber, turtle: string, heard?: Heard): Promise<void> {
    const key = { sessionId, sender: senderKey(from) };
    const id = `${sessionId}\u0000${key.sender}`;
    return this.partsInOrder.run(
      id,
      () => this.takePart(key, from, part, turtle, heard),
      (err) => this.options.log.error({ err, sessionId, agent: from.nick }, "failed to take a contribution part"),
    );
  }

  private async takePart(key: { sessionId: string; sender: string }, from: Participant, part: PartNumber, turtle: string, heard: Heard | undefined): Promise<void> {
    const { log } = this.options;
    const { sessionId } = key;
    const label = `${part.k}/${part.n}`;
    if (!this.openForParts(sessionId)) {
      // Answered once per contribution (at its part 1), so echoed or replayed parts cost one line.
      if (part.k === 1) this.answerClosed(sessionId, from);
      else log.debug({ sessionId, agent: from.nick, part: label }, "contribution part for a session not taking contributions dropped");
      return;
    }
    if (this.parts.isQuiet(key, part)) {
      log.debug({ sessionId, agent: from.nick, part: label }, "part of a refused contribution dropped");
      return;
    }
    // A series of one part is the contribution itself: its text is kept as it is checked.
    const check = await this.check(sessionId, from, turtle, part.n === 1);
    if (!this.openForParts(sessionId)) {
      log.debug({ sessionId, agent: from.nick, part: label }, "contribution part arrived as the model closed; dropped");
      return;
    }
    if (!check.ok) {
      this.parts.refuse(key, from, part.n);
      this.apply({ kind: "contribution", sessionId, from, turtle, check, parts: { n: part.n, refusedPart: part.k } }, heard);
      return;
    }
    const outcome = this.parts.offer(key, from, part, turtle);
    for (const dropped of outcome.evicted) {
      log.warn({ sessionId: dropped.sessionId, agent: dropped.from.nick, received: dropped.received, parts: dropped.n }, "incomplete contribution in parts dropped: too many waiting");
      this.tellDropped(dropped, "evicted");
    }
    this.onPartOutcome(key, from, part, outcome);
    if (outcome.kind !== "complete") return;
    const union = outcome.parts.length === 1 ? (outcome.parts[0] ?? "") : joinParts(outcome.parts, sessionBaseIri(sessionId));
    const unionCheck = outcome.parts.length === 1 ? check : await this.check(sessionId, from, union, true);
    this.apply({ kind: "contribution", sessionId, from, turtle: union, check: unionCheck, parts: { n: part.n } }, heard);
  }

  private onPartOutcome(key: { sessionId: string; sender: string }, from: Participant, part: PartNumber, outcome: PartOutcome<Participant>): void {
    const { log } = this.options;
    const context = { sessionId: key.sessionId, agent: from.nick, part: `${part.k}/${part.n}` };
    if ((outcome.kind === "waiting" || outcome.kind === "complete") && outcome.restarted) {
      log.info({ ...context, dropped: `${outcome.restarted.received} of ${outcome.restarted.n}` }, "contribution in parts started over by a new part 1");
    }
    switch (outcome.kind) {
      case "waiting":
        log.debug({ ...context, received: outcome.received }, "contribution part received");
        return;
      case "complete":
        log.debug(context, "contribution part received; all parts are in");
        return;
      case "ignored":
        log.debug(context, "part of a refused contribution dropped");
        return;
      case "refused": {
        this.options.onPartRefused?.(outcome.reason);
        const why =
          outcome.reason === "other-count"
            ? { reason: outcome.reason, pendingN: outcome.pending?.n ?? part.n }
            : outcome.reason === "too-large"
              ? { reason: outcome.reason, maxBytes: formatBytes(this.parts.limits.maxBytesPerContribution) }
              : { reason: outcome.reason };
        log.info({ ...context, reason: outcome.reason, dropped: outcome.pending ? `${outcome.pending.received} of ${outcome.pending.n}` : null }, "contribution part refused");
        this.tellPrivately(key.sessionId, from, sessionWording.partRefused(key.sessionId, part, why, this.hasContribution(key.sessionId, from)));
        return;
      }
    }
  }

  /** Whether a session takes contributions (in parts) now: it exists and its model is not yet closed. */
  private openForParts(sessionId: string): boolean {
    const s = sessionIn(this.state, sessionId);
    return s !== undefined && s.phase !== "reasoning" && s.phase !== "complete";
  }

  /** Part 1 of a contribution for a session that is unknown, archived or closed: one answer. */
  private answerClosed(sessionId: string, from: Participant): void {
    if (this.answeredFromArchive(sessionId, from, sessionWording.partsTooLate)) return;
    const session = sessionIn(this.state, sessionId);
    // The core answers "no such session" (and logs nothing).
    if (!session) this.apply({ kind: "contribution", sessionId, from, turtle: "", check: UNKNOWN_SESSION });
    else this.tellPrivately(sessionId, from, sessionWording.partsTooLate(session));
  }

  /** Contributions in parts of a session that stopped taking contributions are dropped, and their senders told. */
  private dropClosedParts(sessionId: string): void {
    if (this.openForParts(sessionId) || !this.parts.hasSession(sessionId)) return;
    const why = sessionIn(this.state, sessionId)?.phase === "reasoning" ? "closed" : "complete";
    for (const dropped of this.parts.dropSession(sessionId)) {
      this.options.log.info({ sessionId, agent: dropped.from.nick, received: dropped.received, parts: dropped.n }, "incomplete contribution in parts not used: the model closed");
      this.tellDropped(dropped, why);
    }
  }

  private tellDropped(dropped: PendingSummary<Participant>, why: "closed" | "complete" | "evicted"): void {
    this.tellPrivately(dropped.sessionId, dropped.from, sessionWording.partsDropped(dropped.sessionId, dropped, why, this.hasContribution(dropped.sessionId, dropped.from)));
  }

  /** Whether the session holds a contribution of this agent (so "your earlier contribution still stands"). */
  private hasContribution(sessionId: string, from: Participant): boolean {
    const s = sessionIn(this.state, sessionId);
    return s !== undefined && Object.keys(s.contributions).some((nick) => sameAgent(nick, from.nick));
  }

  /** An answer to one agent from the shell, not a step of the core: not logged, so not replayed. */
  private tellPrivately(sessionId: string, to: Participant, text: string): void {
    this.queueSend({ sessionId, stanza: privateMessage(to.room ?? this.options.render.room, to.nick, text), what: "tell privately" }, undefined);
  }

  /**
   * Checks a contribution (or one part) alone in the model worker: syntax, limits, what it
   * adds. With `keep` (the text is what the core will be given) and a text large enough to be
   * a blob, the worker also stores it, so its journal entry refers to it rather than holding it.
   */
  private async check(sessionId: string, from: Participant, turtle: string, keep: boolean): Promise<ContributionCheck> {
    const base = sessionBaseIri(sessionId);
    const adopt = this.options.journal?.adoptBlob?.bind(this.options.journal);
    const answer = await this.options.models.check({
      turtle,
      baseIri: base,
      graphIri: `${base}contribution/${encodeURIComponent(from.nick)}`,
      maxTriples: this.options.settings.maxTriplesPerContribution,
      // Blank-node labels grow by a few characters when the merged model is re-read for splitting.
      maxStatementBytes: maxModelStatementBytes(sessionId, this.options.render) - BLANK_LABEL_MARGIN,
      skolemBase: base,
      ...(keep && adopt && worthABlob(turtle) ? { keepFor: sessionId } : {}),
    }, { key: sessionId });
    if (answer.ok && answer.stored !== undefined) adopt?.(sessionId, turtle, { digest: answer.stored, as: "text" });
    if (answer.ok && answer.storeError !== undefined) this.options.log.warn({ sessionId, agent: from.nick, error: answer.storeError }, "the model worker could not store the contribution; it is logged inline");
    return !answer.ok
      ? { ok: false, message: `it could not be checked (${answer.error})`, line: null, column: null }
      : answer.check.ok
        ? { ok: true, tripleCount: answer.check.tripleCount, counts: answer.check.counts }
        : { ok: false, message: answer.check.error.message, line: answer.check.error.line, column: answer.check.error.column, ...(answer.check.error.refused ? { refused: true as const } : {}) };
  }

  /**
   * A SolutionProposal. While the session takes proposals and its model has a formal part,
   * the plan is checked in a model worker first (the formal model lives there) and the core
   * is given the proposal with the check; proposals of one session reach the core in the
   * order they arrived, whatever their checks take. Resolves once this one is handed over.
   */
  propose(sessionId: string, from: Participant, solution: SolutionBody, heard?: Heard): Promise<void> {
    if (this.answeredFromArchive(sessionId, from, sessionWording.proposalTooLate)) return Promise.resolve();
    const check = this.planCheck(sessionId, solution);
    const hand = (verification: Verification | undefined): void =>
      this.apply({ kind: "proposal", sessionId, from, solution, ...(verification ? { verification } : {}) }, heard);
    // Nothing to wait for: handed over at once, as every proposal was before plans were checked here.
    if (!this.proposalsInOrder.busy(sessionId) && !(check instanceof Promise)) {
      hand(check);
      return Promise.resolve();
    }
    return this.proposalsInOrder.run(
      sessionId,
      async () => hand(await check),
      (err) => this.options.log.error({ err, sessionId, agent: from.nick }, "failed to take a proposal"),
    );
  }

  /**
   * The check of a proposal's plan, for a session that takes proposals and whose model has a
   * formal summary: at once when no simulation is needed, else from a model worker (in the
   * session's job order). A check that fails or runs out of time leaves the plan unverifiable,
   * saying why. Undefined when the core will not take the proposal, or for a session restored
   * from a log that keeps the formal model itself (the core checks it then, as it did).
   */
  private planCheck(sessionId: string, solution: SolutionBody): Verification | undefined | Promise<Verification> {
    const session = sessionIn(this.state, sessionId);
    const summary = session?.model?.formalSummary;
    if (session?.phase !== "reasoning" || summary === undefined) return undefined;
    const claim = claimedPlanOf(solution);
    const early = verdictWithoutSimulation(summary.hasFormalPart, claim);
    if (early) return early;
    const held = this.formalTexts.get(sessionId);
    const formalJson = held?.digest === summary.digest ? held.json : undefined;
    return this.options.models
      .verify({ sessionId, digest: summary.digest, claim, ...(formalJson !== undefined ? { formalJson } : {}) }, { key: sessionId })
      .then((answer) => (answer.ok ? answer.verification : unfinishedCheck(answer.error)))
      .catch((err: unknown) => unfinishedCheck(err instanceof Error ? err.message : String(err)));
  }

  /** Input for a session that is complete and archived: a polite answer, nothing else. */
  private answeredFromArchive(sessionId: string, from: Participant, answer: (s: Session) => string): boolean {
    if (sessionIn(this.state, sessionId) || !this.options.journal?.knows(sessionId)) return false;
    const archived = this.options.journal.archivedSession(sessionId);
    if (!archived) return false;
    this.options.log.info({ sessionId, agent: from.nick }, "input for an archived session ignored");
    this.queueSend({ sessionId, stanza: privateMessage(from.room ?? this.options.render.room, from.nick, answer(archived)), what: "tell privately" }, undefined);
    return true;
  }

  statusText(sessionId: string | undefined): string {
    const now = this.options.now();
    if (sessionId) {
      const s = sessionIn(this.state, sessionId) ?? this.options.journal?.archivedSession(sessionId);
      return s ? sessionStatus(s, now) : `There is no session "${sessionId}". Say "mfr-list" for the sessions.`;
    }
    const live = this.liveSessions().sort((a, b) => b.startedAt - a.startedAt);
    if (live.length === 0) return `No session is running. ${this.listText()}`;
    if (live.length === 1) return sessionStatus(live[0] as Session, now);
    return `${live.length} sessions are running; say "mfr-status <id>" for one of them.\n${live.map((s) => sessionListLine(s, now)).join("\n")}`;
  }

  listText(limit = 10): string {
    const now = this.options.now();
    const inMemory = Object.values(this.state.byId).map((s) => ({ startedAt: s.startedAt, line: sessionListLine(s, now) }));
    const archived = (this.options.journal?.listArchived(limit) ?? [])
      .filter((a) => sessionIn(this.state, a.id) === undefined)
      .map((a) => ({ startedAt: a.startedAt, line: archivedListLine(a, now) }));
    const all = [...inMemory, ...archived].sort((a, b) => b.startedAt - a.startedAt);
    if (all.length === 0) return "No sessions yet. Start one with: mfr-start <problem>";
    const lines = all.slice(0, limit).map((e) => e.line);
    if (all.length > limit) lines.push(`… and older ones`);
    return `Sessions, newest first:\n${lines.join("\n")}`;
  }

  /**
   * Rebuilds the live sessions from the durable log, stepping each input with the instant
   * it was logged at, exactly as live did. What those steps sent went out before the stop,
   * so nothing is sent again — except the tail a crash swallowed between logging an input
   * and handing its stanzas to the connection, which the sent-record shows and which goes
   * out now. Then re-arms each deadline with the time it has left (an expired one fires at
   * once) and restarts interrupted model work.
   */
  restore(events: Iterable<StoredEvent>): { sessions: number; events: number; unsent: number } {
    const { log, journal } = this.options;
    const replayed = replayWithSends(events, this.options.render, (err, event) =>
      log.error({ err, input: event.input.kind, sessionId: event.sessionId, seq: event.seq }, "an event could not be replayed; skipped"),
    );
    this.state = replayed.state;
    this.restoredTail = [];
    if (journal) {
      const trackedAfter = journal.sentTrackedAfter();
      for (const id of Object.keys(this.state.byId)) {
        const tail = unsentTail(replayed.expected.filter((e) => e.outgoing.sessionId === id), journal.sentOf(id), trackedAfter);
        this.restoredTail.push(...tail);
      }
    }
    for (const session of Object.values(this.state.byId)) {
      if (session.phase === "complete") {
        // Completed but not yet archived when the process stopped: archive it now.
        this.archive(session.id);
        continue;
      }
      if (session.deadline) this.timers.schedule(session.id, session.deadline.at);
      if (session.phase === "validating" && session.analysingVersion !== null) {
        void this.runAnalysis(analysisRequest(session, session.analysingVersion));
      }
    }
    return { sessions: this.liveSessions().length, events: replayed.applied, unsent: this.restoredTail.length };
  }

  /**
   * Sends what a crash kept from going out (found by `restore`), in order, once: a stanza
   * whose origin-id the rooms' history shows (`carried`) went out before the crash (it was
   * written to the socket but not recorded), so it is recorded now and not sent again. Called
   * once the rooms have been caught up on; a second call sends nothing.
   */
  sendRestoredTail(carried: ReadonlySet<string>): { sent: number; skipped: number } {
    const { journal, log } = this.options;
    const tail = this.restoredTail;
    this.restoredTail = [];
    let skipped = 0;
    for (const e of tail) {
      const record = { eventSeq: e.eventSeq, position: e.position, at: e.at };
      if (!carried.has(originIdOf(e.outgoing.sessionId, record))) {
        this.queueSend(e.outgoing, record);
        continue;
      }
      skipped++;
      try {
        journal?.recordSent({ sessionId: e.outgoing.sessionId, ...record, digest: e.digest, what: e.outgoing.what });
      } catch (err) {
        log.error({ err, sessionId: e.outgoing.sessionId }, "could not record a sent message");
      }
    }
    const bySession = new Map<string, string[]>();
    for (const e of tail) bySession.set(e.outgoing.sessionId, [...(bySession.get(e.outgoing.sessionId) ?? []), e.outgoing.what]);
    for (const [sessionId, what] of bySession) log.warn({ sessionId, stanzas: what.length, what }, "sending what a crash kept from going out");
    if (skipped > 0) log.info({ skipped }, "not sent again: the room's history shows these went out before the crash");
    return { sent: tail.length - skipped, skipped };
  }

  /** While the rooms are out of reach or being caught up on, deadlines wait (DeadlineTimers.hold). */
  holdDeadlines(): void {
    this.timers.hold();
  }

  /** Deadlines that fell at or before `upTo` fire now: an answer stamped later is about to be taken in. */
  fireDeadlinesDueBy(upTo: number): void {
    this.timers.fireDue(upTo);
  }

  releaseDeadlines(): void {
    this.timers.release();
  }

  /** Stops timers; pending sends finish. */
  async close(): Promise<void> {
    this.timers.cancelAll();
    await this.sending;
  }

  /**
   * Records the input, steps the core and carries out the effects. Never throws.
   *
   * The clock is read once: the instant logged is the instant the core sees and the
   * messages carry, so a replay of the log computes the same deadlines and the same bytes.
   */
  apply(input: Input, heard?: Heard): void {
    try {
      // What the room said while we were away counts when the room stamped it (shell/heard.ts).
      const at = heard?.caughtUp ? heard.at : this.options.now();
      // An input for a session that does not exist changes nothing; it is answered but not
      // logged, so nobody can grow the log with made-up session ids.
      const before = sessionIn(this.state, input.sessionId);
      const logged = input.kind === "start" || before !== undefined ? this.journal(input, at, heard) : undefined;
      // In place: the record is this host's own, and copying it per input grows with the live sessions.
      const { session: after, effects } = stepSession(before, input, at);
      if (after !== undefined) this.state.byId[after.id] = after;
      // A completed session checks no more plans.
      if (after?.phase === "complete") this.formalTexts.delete(input.sessionId);
      this.carryOut(input.sessionId, effects, at, logged);
      this.emitStep({ at, input, before, after, effects });
      this.dropClosedParts(input.sessionId);
    } catch (err) {
      this.options.log.error({ err, input: input.kind, sessionId: input.sessionId }, "failed to apply a session input");
    }
  }

  /** A listener's failure is its own: the session goes on, and the others still hear. */
  private emitStep(sessionStep: SessionStep): void {
    for (const listener of this.stepListeners) {
      try {
        listener(sessionStep);
      } catch (err) {
        this.options.log.error({ err, sessionId: sessionStep.input.sessionId }, "a session step listener failed");
      }
    }
  }

  private carryOut(sessionId: string, effects: Effect[], at: number, eventSeq: number | undefined): void {
    const { log } = this.options;
    const rendered = renderEffects(sessionId, effects, at, this.options.render);
    for (const note of rendered.notes) log[note.level](note.data, note.msg);
    rendered.outgoing.forEach((outgoing, position) => this.queueSend(outgoing, eventSeq === undefined ? undefined : { eventSeq, position, at }));
    for (const effect of effects) {
      switch (effect.kind) {
        case "broadcast":
          log.debug({ sessionId: effect.message.sessionId, type: effect.message.type }, "protocol message sent");
          break;
        case "schedule":
          this.timers.schedule(effect.sessionId, effect.at);
          break;
        case "unschedule":
          this.timers.cancel(effect.sessionId);
          break;
        case "analyse":
          void this.runAnalysis(effect);
          break;
        case "finished":
          if (this.options.journal) this.archive(effect.sessionId);
          else this.forgetOldCompleted();
          break;
        case "log":
          log[effect.level](effect.data, effect.msg);
          break;
        default:
          // say / tell: rendered above.
          break;
      }
    }
  }

  /** Appends the input to the durable log; a failure is loud but does not stop the session. */
  private journal(input: Input, at: number, heard: Heard | undefined): number | undefined {
    const journal = this.options.journal;
    if (!journal) return undefined;
    try {
      const seq = heard ? journal.append(input.sessionId, input, at, { room: heard.room, keys: heard.keys, at: heard.at }) : journal.append(input.sessionId, input, at);
      if (heard) heard.recorded = true;
      return seq;
    } catch (err) {
      this.options.log.error({ err, sessionId: input.sessionId, input: input.kind }, "could not write the input to the durable log");
      return undefined;
    }
  }

  /** Moves a completed session from memory to the archive. */
  private archive(sessionId: string): void {
    const session = sessionIn(this.state, sessionId);
    if (!session || !this.options.journal) return;
    try {
      this.options.journal.archive(session);
      if (session.model) forgetSplits(session.model.modelTurtle);
      delete this.state.byId[sessionId];
    } catch (err) {
      this.options.log.error({ err, sessionId }, "could not archive the session; it stays in memory");
    }
  }

  /**
   * Runs the analysis in a model worker. When a worker begins it, an `analysis-started` input
   * (logged like any other) starts the session's validation clock, so waiting for a free
   * worker never counts against the validation timeout.
   */
  private async runAnalysis(effect: Extract<Effect, { kind: "analyse" }>): Promise<void> {
    const base = sessionBaseIri(effect.sessionId);
    // Deferred: a worker may begin the job while the step that asked for it is still being
    // carried out, and inputs are applied one after another, never inside each other.
    const onStart = (): void =>
      queueMicrotask(() => {
        const session = sessionIn(this.state, effect.sessionId);
        if (session?.settings.validationClockStartsInWorker && session.phase === "validating" && session.analysingVersion === effect.version) {
          this.apply({ kind: "analysis-started", sessionId: effect.sessionId, version: effect.version });
        }
      });
    const answer = await this.options.models.analyse({
      sessionId: effect.sessionId,
      problemDescription: effect.problem,
      baseIri: base,
      coordinatorGraphIri: `${base}coordinator`,
      contributions: effect.contributions.map((c) => ({ agent: c.agent, graphIri: `${base}contribution/${encodeURIComponent(c.agent)}`, turtle: c.turtle })),
      maxTriplesPerContribution: this.options.settings.maxTriplesPerContribution,
    }, { key: effect.sessionId, onStart, splits: solutionRequestSplitKeys(effect.sessionId, this.options.render) });
    // The parts the SolutionRequest will need, split in the worker (protocol/split-memo.ts).
    if (answer.ok) rememberSplits(answer.analysis.modelTurtle, answer.analysis.modelSplits ?? []);
    if (answer.ok && this.options.journal) {
      const { journal } = this.options;
      const { stored } = answer;
      if (answer.storeError !== undefined) this.options.log.warn({ sessionId: effect.sessionId, error: answer.storeError }, "the model worker could not store the model; it is logged inline");
      try {
        // Stored by the worker already: the analysis input and the archive refer to it. (The
        // formal model is stored too, but only its summary comes here; export reads it by digest.)
        if (stored?.modelTurtle !== undefined && journal.adoptBlob) journal.adoptBlob(effect.sessionId, answer.analysis.modelTurtle, { digest: stored.modelTurtle, as: "text" });
        this.options.journal.saveArtefact(effect.sessionId, "validation", JSON.stringify(answer.analysis.validation));
      } catch (err) {
        this.options.log.warn({ err, sessionId: effect.sessionId }, "could not save the model for export");
      }
    }
    if (answer.ok) this.keepFormalText(effect.sessionId, answer.analysis);
    const outcome: AnalysisOutcome = answer.ok
      ? {
          ok: true,
          analysis: {
            conforms: answer.analysis.validation.conforms,
            violations: answer.analysis.validation.violations,
            warnings: answer.analysis.validation.warnings,
            findings: answer.analysis.validation.results,
            summary: answer.analysis.validation.summary,
            modelTurtle: answer.analysis.modelTurtle,
            tripleCount: answer.analysis.tripleCount,
            formalSummary: answer.analysis.formal,
          },
        }
      : { ok: false, error: answer.error, timedOut: answer.timedOut === true };
    this.apply({ kind: "analysis", sessionId: effect.sessionId, version: effect.version, outcome });
  }

  /** Keeps the formal model's JSON when the worker could not store it (see `formalTexts`); once stored, no text is held. */
  private keepFormalText(sessionId: string, analysis: AnalysedModel): void {
    if (analysis.formalJson !== undefined) this.formalTexts.set(sessionId, { digest: analysis.formal.digest, json: analysis.formalJson });
    else this.formalTexts.delete(sessionId);
  }

  /**
   * Sends in the order the core produced, one at a time; once the connection has taken a
   * stanza of a logged step, the sent-record says so (see `restore`).
   */
  private queueSend(outgoing: Outgoing, record: { eventSeq: number; position: number; at: number } | undefined): void {
    const { journal, log, outlet } = this.options;
    this.sending = this.sending
      .then(async () => {
        // A model part is built here, in its turn (see outgoing.ts, `lazyOutgoing`).
        const { stanza } = outgoing;
        // The digest is of what the step rendered; the origin-id is added after (room-history.ts).
        const digest = record && journal ? stanzaDigest(stanza) : undefined;
        if (record) stampOriginId(stanza, originIdOf(outgoing.sessionId, record));
        // Not kept: a model's parts; kept: a protocol message without a body (storage-hints.ts).
        hintStorage(stanza, outgoing.bulk === true);
        await outlet.send(stanza, outgoing.sized ? { sized: true } : undefined);
        if (record && journal && digest !== undefined) {
          try {
            journal.recordSent({ sessionId: outgoing.sessionId, ...record, digest, what: outgoing.what });
          } catch (err) {
            log.error({ err, sessionId: outgoing.sessionId }, "could not record a sent message");
          }
        }
        if (outgoing.bulk) await outlet.settled?.();
        // A model goes out as dozens of ~200 KiB stanzas, each measured and digested; without
        // a turn of the event loop between them the whole chain runs as one long task.
        await new Promise<void>((resolve) => setImmediate(resolve));
      })
      .catch((err: unknown) => log.error({ err }, "send failed"));
  }

  /** Bounds memory until sessions are archived elsewhere: the oldest completed ones go. */
  private forgetOldCompleted(): void {
    const completed = Object.values(this.state.byId)
      .filter((s) => s.phase === "complete")
      .sort((a, b) => (a.completion?.at ?? 0) - (b.completion?.at ?? 0));
    if (completed.length <= COMPLETED_KEPT) return;
    for (const s of completed.slice(0, completed.length - COMPLETED_KEPT)) delete this.state.byId[s.id];
  }
}

/**
 * The id a stanza of a logged step is sent with (XEP-0359 origin-id, and the stanza's id):
 * made of what it answers (the session, the input's place in the log, its place among that
 * input's stanzas), so the same stanza sent again after a crash has the same id, and the
 * room's history shows whether it went out before (see `sendRestoredTail`).
 */
export function originIdOf(sessionId: string, record: { eventSeq: number; position: number }): string {
  return `mfr:${sessionId}:${record.eventSeq}:${record.position}`;
}

function stampOriginId(stanza: Element, id: string): void {
  stanza.attrs.id = id;
  if (!stanza.getChild("origin-id", NS_SID)) stanza.append(originIdElement(id));
}
