/**
 * A session's analysis in a model worker: the merged model validated and summarised, its
 * outcome handed back to the core as an input, and what the plan checks will need kept.
 *
 * The rules it keeps: the validation clock starts when a worker begins the job (an
 * `analysis-started` input, logged like any other), so waiting for a free worker never counts
 * against the validation timeout; inputs are applied one after another, never inside the step
 * that asked for the analysis.
 */
import type { AnalysedModel } from "../analysis/worker-protocol.js";
import { rememberSplits } from "../protocol/split-memo.js";
import { sessionBaseIri } from "../base/vocab.js";
import type { AnalysisOutcome, SessionSettings } from "../session/types.js";
import type { Effect } from "../session/step-io.js";
import { solutionRequestSplitKeys, type RenderContext } from "./outgoing.js";
import type { JournalKeeper } from "./journal-keeper.js";
import type { ModelService } from "./model-service.js";
import type { SessionTable } from "./session-table.js";
import type { Steps } from "./stepper.js";

/**
 * The formal model's JSON of sessions whose model the worker could not store (no store, or
 * the write failed), by session: sent with each plan check, since a worker that did not
 * analyse the session has no other way to the model. Never parsed here.
 */
export class FormalTexts {
  private readonly bySession = new Map<string, { digest: string; json: string }>();

  /** Keeps the JSON when the worker could not store it; once stored, no text is held. */
  keep(sessionId: string, analysis: AnalysedModel): void {
    if (analysis.formalJson !== undefined) this.bySession.set(sessionId, { digest: analysis.formal.digest, json: analysis.formalJson });
    else this.bySession.delete(sessionId);
  }

  /** The JSON held for the model with this digest; none for an older model of the session. */
  of(sessionId: string, digest: string): string | undefined {
    const held = this.bySession.get(sessionId);
    return held?.digest === digest ? held.json : undefined;
  }

  /** A completed session checks no more plans. */
  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }
}

/** What the analysis runner works with. */
export interface AnalysisRunnerOptions {
  models: ModelService;
  settings: SessionSettings;
  render: RenderContext;
  table: SessionTable;
  keeper: JournalKeeper;
  formalTexts: FormalTexts;
  /** Where the analysis's answer goes to be stepped (host/stepper.ts). */
  stepper: Steps;
}

/** Runs analyses in the model workers and hands their outcomes to the core. */
export class AnalysisRunner {
  constructor(private readonly options: AnalysisRunnerOptions) {}

  /**
   * Runs the analysis in a model worker. When a worker begins it, an `analysis-started` input
   * (logged like any other) starts the session's validation clock, so waiting for a free
   * worker never counts against the validation timeout.
   */
  async run(effect: Extract<Effect, { kind: "analyse" }>): Promise<void> {
    const { models, settings, render, table, keeper, stepper } = this.options;
    const base = sessionBaseIri(effect.sessionId);
    // Deferred: a worker may begin the job while the step that asked for it is still being
    // carried out, and inputs are applied one after another, never inside each other.
    const onStart = (): void =>
      queueMicrotask(() => {
        const session = table.get(effect.sessionId);
        if (session?.settings.validationClockStartsInWorker && session.phase === "validating" && session.analysingVersion === effect.version) {
          stepper.apply({ kind: "analysis-started", sessionId: effect.sessionId, version: effect.version });
        }
      });
    const answer = await models.analyse({
      sessionId: effect.sessionId,
      problemDescription: effect.problem,
      baseIri: base,
      coordinatorGraphIri: `${base}coordinator`,
      contributions: effect.contributions.map((c) => ({ agent: c.agent, graphIri: `${base}contribution/${encodeURIComponent(c.agent)}`, turtle: c.turtle })),
      maxTriplesPerContribution: settings.maxTriplesPerContribution,
    }, { key: effect.sessionId, onStart, splits: solutionRequestSplitKeys(effect.sessionId, render) });
    // The parts the SolutionRequest will need, split in the worker (protocol/split-memo.ts).
    if (answer.ok) rememberSplits(answer.analysis.modelTurtle, answer.analysis.modelSplits ?? []);
    if (answer.ok) keeper.keepModel(effect.sessionId, answer);
    if (answer.ok) this.options.formalTexts.keep(effect.sessionId, answer.analysis);
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
    stepper.apply({ kind: "analysis", sessionId: effect.sessionId, version: effect.version, outcome });
  }
}
