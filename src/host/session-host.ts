/**
 * The one owner of session state in the running coordinator. It feeds inputs to the pure
 * core (`stepSession`, one session at a time) and carries out the effects it returns:
 * messages, deadlines, and model work in the worker. Nothing else changes a session.
 *
 * A thin facade: each reason to change lives in its own module under host/ — the journal
 * (journal.ts, the interface a store implements, and journal-keeper.ts), the outbox and the
 * effect runner, contribution and proposal intake, the analysis in the model worker, the
 * status and list queries, the stream of steps, and the stepper (stepper.ts), which keeps the
 * one rule none of the others can: every input is journaled, stepped, carried out and
 * emitted, in that order, one at a time. Each part is given the parts it needs when it is
 * made; none calls back into this class.
 */
import type { Logger } from "pino";
import { newSessionId } from "../session/session-id.js";
import { analysisRequest } from "../session/step.js";
import type { Participant, Requester, RoomView, Session, SessionSettings, SolutionBody } from "../session/types.js";
import type { Input, Sessions } from "../session/step-io.js";
import type { StoredEvent } from "./journal-records.js";
import { partsLimits, type PartRefusal, type PartsLimits } from "./contribution-parts.js";
import type { PartNumber } from "../protocol/part-number.js";
import { DeadlineTimers } from "./deadline-timers.js";
import type { RenderContext } from "./outgoing.js";
import type { Heard } from "./heard.js";
import { AnalysisRunner, FormalTexts } from "./analysis-runner.js";
import { ContributionChecker } from "./contribution-check.js";
import { ContributionIntake } from "./contribution-intake.js";
import { EffectRunner } from "./effect-runner.js";
import type { SessionJournal } from "./journal.js";
import { JournalKeeper } from "./journal-keeper.js";
import type { ModelService } from "./model-service.js";
import { Outbox, type Outlet } from "./outbox.js";
import { ProposalIntake } from "./proposal-intake.js";
import { SessionQueries } from "./queries.js";
import { SessionTable } from "./session-table.js";
import { startInputOf, startRefusal, type SessionPlan } from "./session-start.js";
import { StepListeners, type SessionStepListener } from "./step-listeners.js";
import { Stepper } from "./stepper.js";

// The host's parts, for importers that know the host only (the web view, metrics, tests, bench).
export type { ArchivedSummary, SessionJournal } from "./journal.js";
export type { ModelService } from "./model-service.js";
export { originIdOf, type Outlet } from "./outbox.js";
export type { SessionStep, SessionStepListener } from "./step-listeners.js";
export type { SessionPlan } from "./session-start.js";

/** What a SessionHost is made with. */
export interface SessionHostOptions {
  /** The rooms and the stanza limit the core's messages are rendered for. */
  render: RenderContext;
  /** The timeouts and limits every new session is started with. */
  settings: SessionSettings;
  /** Most live sessions at once; a start beyond it is refused with a reason. */
  maxLiveSessions: number;
  /** Most live sessions one person may have started (same identity, see session/identity.ts). */
  maxLiveSessionsPerPerson?: number;
  /** Contribution checks, analyses and plan checks, off the event loop (host/model-service.ts). */
  models: ModelService;
  /** Where stanzas go, one at a time, in order (host/outbox.ts). */
  outlet: Outlet;
  log: Logger;
  /** The clock, read once per input (a fake one in tests). */
  now: () => number;
  /** For new session ids; Math.random by default. */
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

/** The host: the modules under host/, composed; see the module comment. */
export class SessionHost {
  private readonly table = new SessionTable();
  private readonly timers: DeadlineTimers;
  private readonly keeper: JournalKeeper;
  private readonly outbox: Outbox;
  private readonly stepper: Stepper;
  private readonly analyses: AnalysisRunner;
  /** The formal model's JSON the worker could not store, for plan checks (analysis-runner.ts). */
  private readonly formalTexts = new FormalTexts();
  private readonly steps: StepListeners;
  private readonly queries: SessionQueries;
  /** Contributions, whole or in parts, checked and handed to the stepper (the inbound path hands them here directly). */
  readonly contributions: ContributionIntake;
  /** Proposals, their plans checked, handed to the stepper in arrival order. */
  readonly proposals: ProposalIntake;

  constructor(private readonly options: SessionHostOptions) {
    const { log, render, settings, models, now } = options;
    this.keeper = new JournalKeeper(options.journal, this.table, log);
    this.steps = new StepListeners(log);
    const stepper = (this.stepper = new Stepper({ table: this.table, keeper: this.keeper, formalTexts: this.formalTexts, steps: this.steps, log, now, ...(options.deadlineRoom ? { deadlineRoom: options.deadlineRoom } : {}) }));
    this.timers = new DeadlineTimers(now, (sessionId, at) => stepper.deadlineFired(sessionId, at));
    this.outbox = new Outbox(options.outlet, this.keeper, log, render.room);
    this.analyses = new AnalysisRunner({ models, settings, render, table: this.table, keeper: this.keeper, formalTexts: this.formalTexts, stepper });
    stepper.carryOutWith(new EffectRunner({ render, log, outbox: this.outbox, deadlines: this.timers, analyses: this.analyses, keeper: this.keeper }));
    this.queries = new SessionQueries({ table: this.table, keeper: this.keeper, outbox: this.outbox, log, now });
    const contributions = (this.contributions = new ContributionIntake({
      table: this.table,
      limits: options.parts ?? partsLimits(settings.maxTriplesPerContribution, 224 * 1024),
      checker: new ContributionChecker({ models, settings, render, log, adopt: this.keeper.blobAdopter }),
      queries: this.queries,
      outbox: this.outbox,
      log,
      stepper,
      ...(options.onPartRefused ? { onPartRefused: options.onPartRefused } : {}),
    }));
    // After each step, parts of a contribution to a session that no longer takes them are dropped (and their senders told).
    this.steps.add(({ input }) => contributions.dropClosedParts(input.sessionId));
    this.proposals = new ProposalIntake({ table: this.table, models, formalTexts: this.formalTexts, queries: this.queries, log, stepper });
  }

  /** Hears every step from now on; returns the function that stops it. */
  onStep(listener: SessionStepListener): () => void {
    return this.steps.add(listener);
  }

  /** The live record itself, for reading: this host changes it in place. */
  get sessions(): { readonly byId: Readonly<Sessions["byId"]> } {
    return this.table.state;
  }

  /** A session in memory (live, or completed and not yet archived). */
  session(id: string): Session | undefined {
    return this.table.get(id);
  }

  /** Sessions not yet complete. */
  liveSessions(): Session[] {
    return this.table.live();
  }

  /** Starts a session; returns its id, or a reason it cannot start now (host/session-start.ts). */
  start(problem: string, by: Participant, plan: SessionPlan, heard?: Heard): { ok: true; sessionId: string } | { ok: false; reason: string } {
    const refusal = startRefusal(this.liveSessions(), by, this.options);
    if (refusal !== undefined) return { ok: false, reason: refusal };
    const sessionId = newSessionId(this.options.random ?? Math.random, (id) => this.table.get(id) !== undefined || this.keeper.knows(id));
    this.apply(startInputOf(sessionId, problem, by, this.options.settings, plan), heard);
    return { ok: true, sessionId };
  }

  /** Sessions still choosing their agents (debate, clarification or approval). */
  choosingSessions(): Session[] {
    return this.queries.choosing();
  }

  /** Sessions whose agents are being chosen in a Chair's debate. */
  debatingSessions(): Session[] {
    return this.queries.debating();
  }

  /** The newest session waiting for this person to choose agents (host/queries.ts). */
  clarificationFor(by: Requester): Session | undefined {
    return this.queries.clarificationFor(by);
  }

  /** Cancels a session in memory (the core decides whether `by` may); false for one it does not hold. */
  cancel(sessionId: string, by: Requester, heard?: Heard): boolean {
    if (!this.table.get(sessionId)) return false;
    this.apply({ kind: "cancel", sessionId, by }, heard);
    return true;
  }

  /** A Turtle contribution: checked off the event loop first, then handed to the core. */
  contribute(sessionId: string, from: Participant, turtle: string, heard?: Heard): Promise<void> {
    return this.contributions.contribute(sessionId, from, turtle, heard);
  }

  /**
   * One part of a contribution sent in parts (docs/protocol.md, "ModelFirstRDF contributions"):
   * kept at the edge until all n are in, then handed to the core as one (host/contribution-intake.ts).
   */
  contributePart(sessionId: string, from: Participant, part: PartNumber, turtle: string, heard?: Heard): Promise<void> {
    return this.contributions.contributePart(sessionId, from, part, turtle, heard);
  }

  /**
   * A SolutionProposal, its plan checked first where the session's model has a formal part;
   * proposals of one session reach the core in arrival order (host/proposal-intake.ts).
   * Resolves once this one is handed over.
   */
  propose(sessionId: string, from: Participant, solution: SolutionBody, heard?: Heard): Promise<void> {
    return this.proposals.propose(sessionId, from, solution, heard);
  }

  /** The mfr-status text: one session (live or archived), or the live ones (host/queries.ts). */
  statusText(sessionId: string | undefined): string {
    return this.queries.statusText(sessionId);
  }

  /** The mfr-list text: the newest sessions, in memory and archived. */
  listText(limit = 10): string {
    return this.queries.listText(limit);
  }

  /**
   * Rebuilds the live sessions from the durable log, stepping each input with the instant
   * it was logged at, exactly as live did. What those steps sent went out before the stop,
   * so nothing is sent again — except the tail a crash swallowed between logging an input
   * and handing its stanzas to the connection, which the sent-record shows and which goes
   * out with `sendRestoredTail`. Then re-arms each deadline with the time it has left (an
   * expired one fires at once) and restarts interrupted model work.
   */
  restore(events: Iterable<StoredEvent>): { sessions: number; events: number; unsent: number } {
    const replayed = this.keeper.replay(events, this.options.render);
    this.table.replace(replayed.state);
    this.outbox.holdUnsent(replayed.unsent);
    for (const session of this.table.all()) {
      if (session.phase === "complete") {
        // Completed but not yet archived when the process stopped: archive it now.
        this.keeper.archive(session.id);
        continue;
      }
      if (session.deadline) this.timers.schedule(session.id, session.deadline.at);
      if (session.phase === "validating" && session.analysingVersion !== null) {
        void this.analyses.run(analysisRequest(session, session.analysingVersion));
      }
    }
    return { sessions: this.liveSessions().length, events: replayed.applied, unsent: this.outbox.heldUnsent };
  }

  /**
   * Sends what a crash kept from going out (found by `restore`), in order, once: a stanza
   * whose origin-id the rooms' history shows (`carried`) went out before the crash (it was
   * written to the socket but not recorded), so it is recorded now and not sent again. Called
   * once the rooms have been caught up on; a second call sends nothing.
   */
  sendRestoredTail(carried: ReadonlySet<string>): { sent: number; skipped: number } {
    return this.outbox.sendUnsent(carried);
  }

  /** The instant of the earliest step whose stanzas a crash kept from going out (held for `sendRestoredTail`), or undefined. */
  restoredTailSince(): number | undefined {
    return this.outbox.unsentSince;
  }

  /** While the rooms are out of reach or being caught up on, deadlines wait (DeadlineTimers.hold). */
  holdDeadlines(): void {
    this.timers.hold();
  }

  /** Deadlines that fell at or before `upTo` fire now: an answer stamped later is about to be taken in. */
  fireDeadlinesDueBy(upTo: number): void {
    this.timers.fireDue(upTo);
  }

  /** Deadlines held since `holdDeadlines` fire, oldest first, and deadlines fire on time again. */
  releaseDeadlines(): void {
    this.timers.release();
  }

  /** Stops timers; pending sends finish. */
  async close(): Promise<void> {
    this.timers.cancelAll();
    await this.outbox.drained();
  }

  /** The one way in: records the input, steps the core and carries out the effects (host/stepper.ts). Never throws. */
  apply(input: Input, heard?: Heard): void {
    this.stepper.apply(input, heard);
  }
}
