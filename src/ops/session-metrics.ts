/**
 * Session metrics from the host's one stream of steps (SessionHost.onStep): what each step
 * means for the counters and histograms, timed by the step's own instant (the host's clock,
 * a fake one in tests). The only state kept is what a duration needs: when each live
 * session entered its phase, and when its running validation began. Sessions restored
 * from the durable log at start are timed from their first phase change on.
 */
import type { SessionStep } from "../host/session-host.js";
import type { AnalysisOutcome, ContributionCheck, Phase } from "../session/types.js";
import type { SessionInstruments, ValidationOutcome } from "./metrics.js";
import type { RefusalReason } from "./refusals.js";

interface Since {
  phase: Phase;
  at: number;
}

interface ValidationClock {
  version: number;
  at: number;
}

export class SessionMetrics {
  private readonly phases = new Map<string, Since>();
  private readonly validations = new Map<string, ValidationClock>();

  constructor(private readonly instruments: SessionInstruments) {}

  /** Takes one step; meant as the SessionHost.onStep listener. */
  readonly take = (step: SessionStep): void => {
    this.countInput(step);
    this.timeValidation(step);
    this.timePhases(step);
  };

  private countInput({ input, before, after }: SessionStep): void {
    switch (input.kind) {
      case "start":
        if (!before && after) this.instruments.started();
        return;
      case "contribution":
        this.instruments.contributionReceived();
        if (!before) this.instruments.refused("unknown-session");
        else {
          const reason = refusalOf(input.check);
          if (reason) this.instruments.refused(reason);
        }
        return;
      case "proposal":
        this.instruments.proposalReceived();
        if (!before) this.instruments.refused("unknown-session");
        return;
      default:
        return;
    }
  }

  /**
   * Validation time runs from the moment a worker began the job (`analysis-started`), or,
   * for a session whose clock does not start in the worker, from when it was asked for
   * (`analyse`), to the `analysis` answer of that same version.
   */
  private timeValidation({ at, input, effects }: SessionStep): void {
    const id = input.sessionId;
    for (const effect of effects) if (effect.kind === "analyse") this.validations.set(id, { version: effect.version, at });
    if (input.kind === "analysis-started") {
      this.validations.set(id, { version: input.version, at });
    } else if (input.kind === "analysis") {
      const clock = this.validations.get(id);
      if (clock?.version !== input.version) return;
      this.validations.delete(id);
      this.instruments.validated(validationOutcome(input.outcome), seconds(at - clock.at));
    }
  }

  private timePhases({ at, input, before, after }: SessionStep): void {
    const id = input.sessionId;
    if (!after) return;
    if (!before) {
      if (input.kind === "start") this.phases.set(id, { phase: after.phase, at });
    } else if (before.phase !== after.phase) {
      const since = this.phases.get(id);
      if (since?.phase === before.phase && before.phase !== "complete") this.instruments.phaseEnded(before.phase, seconds(at - since.at));
      this.phases.set(id, { phase: after.phase, at });
    }
    if (after.phase === "complete") {
      if (before?.phase !== "complete" && after.completion) this.instruments.completed(after.completion.status);
      this.phases.delete(id);
      this.validations.delete(id);
    }
  }
}

/** Why a contribution's check refused it: a syntax error n3 could place, or a rule. */
function refusalOf(check: ContributionCheck): RefusalReason | undefined {
  if (check.ok) return undefined;
  if (check.refused) return "contribution-over-limit";
  // Without a place it is the check itself that failed (a full worker queue is counted
  // where it is decided, a timed-out or crashed worker is no refusal of the input).
  return check.line !== null ? "malformed-turtle" : undefined;
}

function validationOutcome(outcome: AnalysisOutcome): ValidationOutcome {
  if (outcome.ok) return outcome.analysis.conforms ? "sound" : "violations";
  return outcome.timedOut ? "timed-out" : "failed";
}

function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}
