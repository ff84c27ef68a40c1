/**
 * The coordinator's metrics, in a registry of its own (not prom-client's global one), so
 * that tests and a process running several coordinators each get their own. Counters and
 * histograms are fed as things happen (session steps, refusals, reconnects); gauges are
 * read from their owners when Prometheus scrapes, so nothing here keeps a copy of state.
 * Every label takes its values from a fixed set: nothing a sender writes becomes a label.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { CompletionStatus, Phase } from "../session/types.js";
import { INBOUND_STAGES, type InboundStage } from "./inbound-stages.js";
import { REFUSAL_REASON_NAMES, type RefusalReason } from "./refusals.js";

/** How a validation ended: the model sound, with violations, failed (worker error) or over its time budget. */
export type ValidationOutcome = "sound" | "violations" | "failed" | "timed-out";

/** Phases that have a duration: every phase but the last. */
export type TimedPhase = Exclude<Phase, "complete">;

/** What the session steps are turned into (see session-metrics.ts). */
export interface SessionInstruments {
  started(): void;
  completed(status: CompletionStatus): void;
  phaseEnded(phase: TimedPhase, seconds: number): void;
  validated(outcome: ValidationOutcome, seconds: number): void;
  contributionReceived(): void;
  proposalReceived(): void;
  refused(reason: RefusalReason): void;
}

/** Read at each scrape, from the parts that own the numbers. */
export interface GaugeSources {
  liveSessions(): number;
  queuedModelJobs(): number;
  connected(): boolean;
  /** The direct line (1:1 chat on a connection of its own); absent when it is turned off. */
  directLineConnected?(): boolean;
}

export interface MetricsOptions {
  /** Node.js and process metrics (event-loop delay, memory, CPU, GC); on unless a test turns them off. */
  processMetrics?: boolean;
}

const COMPLETION_STATUSES: readonly CompletionStatus[] = ["solved", "failed", "timed-out", "cancelled"];
const TIMED_PHASES: readonly TimedPhase[] = ["selecting", "collecting", "validating", "reasoning"];
const VALIDATION_OUTCOMES: readonly ValidationOutcome[] = ["sound", "violations", "failed", "timed-out"];

/** Phases last from a second (a quiet room) to the contribution and reasoning timeouts (minutes). */
const PHASE_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
/** A validation takes tens of milliseconds for a small model and seconds for a large one. */
const VALIDATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class OperationsMetrics implements SessionInstruments {
  readonly registry = new Registry();
  private readonly sessionsStarted: Counter;
  private readonly sessionsCompleted: Counter<"status">;
  private readonly phaseSeconds: Histogram<"phase">;
  private readonly validationSeconds: Histogram<"outcome">;
  private readonly contributions: Counter;
  private readonly proposals: Counter;
  private readonly refusals: Counter<"reason">;
  private readonly reconnects: Counter;
  private readonly caughtUpMessages: Counter;
  private readonly inboundErrors: Counter<"stage">;
  private wasOnline = false;

  constructor(sources: GaugeSources, options: MetricsOptions = {}) {
    const registers = [this.registry];
    this.sessionsStarted = new Counter({ name: "mfr_sessions_started_total", help: "Sessions started.", registers });
    this.sessionsCompleted = new Counter({ name: "mfr_sessions_completed_total", help: "Sessions completed, by status.", labelNames: ["status"], registers });
    this.phaseSeconds = new Histogram({
      name: "mfr_session_phase_duration_seconds",
      help: "How long sessions spent in each phase, observed when they leave it.",
      labelNames: ["phase"],
      buckets: PHASE_BUCKETS,
      registers,
    });
    this.validationSeconds = new Histogram({
      name: "mfr_validation_duration_seconds",
      help: "Model validation (merge and SHACL) from the moment a worker began it to its answer, by outcome.",
      labelNames: ["outcome"],
      buckets: VALIDATION_BUCKETS,
      registers,
    });
    this.contributions = new Counter({ name: "mfr_contributions_received_total", help: "Model contributions received (a contribution in parts counts once, when complete or refused).", registers });
    this.proposals = new Counter({ name: "mfr_proposals_received_total", help: "Solution proposals received.", registers });
    this.refusals = new Counter({ name: "mfr_inputs_refused_total", help: "Input from the network refused, by reason (a fixed set; see docs/operating.md, Metrics and health).", labelNames: ["reason"], registers });
    this.inboundErrors = new Counter({
      name: "mfr_inbound_errors_total",
      help: "Inbound stanzas whose handling failed with an error, by the stage that threw (caught, logged with the stanza's id).",
      labelNames: ["stage"],
      registers,
    });
    this.caughtUpMessages = new Counter({
      name: "mfr_catch_up_messages_total",
      help: "Messages taken in from a room's history at a join: what the room said while no instance listened (after a restart, a reconnect or a takeover).",
      registers,
    });
    this.reconnects = new Counter({ name: "mfr_xmpp_reconnects_total", help: "Connections to the XMPP server after the first (each follows a lost connection).", registers });
    new Gauge({
      name: "mfr_live_sessions",
      help: "Sessions not yet complete.",
      registers,
      collect() {
        this.set(sources.liveSessions());
      },
    });
    new Gauge({
      name: "mfr_model_jobs_queued",
      help: "Model jobs (contribution checks, validations) waiting for a worker thread.",
      registers,
      collect() {
        this.set(sources.queuedModelJobs());
      },
    });
    new Gauge({
      name: "mfr_xmpp_connected",
      help: "1 while connected to the XMPP server, else 0.",
      registers,
      collect() {
        this.set(sources.connected() ? 1 : 0);
      },
    });
    const directLineConnected = sources.directLineConnected?.bind(sources);
    if (directLineConnected) {
      new Gauge({
        name: "mfr_direct_line_connected",
        help: "1 while the direct line (1:1 chat on its own connection) is connected, else 0; absent when it is off.",
        registers,
        collect() {
          this.set(directLineConnected() ? 1 : 0);
        },
      });
    }
    // Every label value is known in advance: shown at 0 from the start, so rates work from the first scrape.
    for (const status of COMPLETION_STATUSES) this.sessionsCompleted.labels(status).inc(0);
    for (const phase of TIMED_PHASES) this.phaseSeconds.zero({ phase });
    for (const outcome of VALIDATION_OUTCOMES) this.validationSeconds.zero({ outcome });
    for (const reason of REFUSAL_REASON_NAMES) this.refusals.labels(reason).inc(0);
    for (const stage of INBOUND_STAGES) this.inboundErrors.labels(stage).inc(0);
    // Includes nodejs_eventloop_lag_seconds and its percentiles (perf_hooks.monitorEventLoopDelay).
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  started(): void {
    this.sessionsStarted.inc();
  }

  completed(status: CompletionStatus): void {
    this.sessionsCompleted.labels(status).inc();
  }

  phaseEnded(phase: TimedPhase, seconds: number): void {
    this.phaseSeconds.labels(phase).observe(seconds);
  }

  validated(outcome: ValidationOutcome, seconds: number): void {
    this.validationSeconds.labels(outcome).observe(seconds);
  }

  contributionReceived(): void {
    this.contributions.inc();
  }

  proposalReceived(): void {
    this.proposals.inc();
  }

  refused(reason: RefusalReason): void {
    this.refusals.labels(reason).inc();
  }

  /** A stage of the inbound pipeline threw (inbound/error-boundary.ts). */
  inboundError(stage: InboundStage): void {
    this.inboundErrors.labels(stage).inc();
  }

  /** Called on every `online` of the connection: each one after the first is a reconnect. */
  connectionOnline(): void {
    if (this.wasOnline) this.reconnects.inc();
    this.wasOnline = true;
  }

  /** Messages taken in from a room's history at a join (catch-up/catch-up.ts). */
  caughtUp(taken: number): void {
    if (taken > 0) this.caughtUpMessages.inc(taken);
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
