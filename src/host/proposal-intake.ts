/**
 * SolutionProposals on their way to the core. While a session takes proposals and its model
 * has a formal part, a proposal's plan is checked first — at once when no simulation is
 * needed, else in a model worker, where the formal model lives — and the core is given the
 * proposal with the check.
 *
 * The rule it keeps: proposals of one session reach the core in the order they arrived,
 * whatever their checks take; a check that fails or runs out of time leaves the plan
 * unverifiable, saying why, and never holds up the proposals after it.
 */
import type { Logger } from "pino";
import type { Verification } from "../formal/index.js";
import { claimedPlanOf, unfinishedCheck, verdictWithoutSimulation } from "../session/plan-check.js";
import { sessionWording } from "../session/report.js";
import type { Participant, SolutionBody } from "../session/types.js";
import type { Heard } from "./heard.js";
import { KeyedSequence } from "../base/keyed-sequence.js";
import type { FormalTexts } from "./analysis-runner.js";
import type { ModelService } from "./model-service.js";
import type { SessionQueries } from "./queries.js";
import type { SessionTable } from "./session-table.js";
import type { Steps } from "./stepper.js";

/** What proposal intake works with. */
export interface ProposalIntakeOptions {
  table: SessionTable;
  models: ModelService;
  formalTexts: FormalTexts;
  queries: SessionQueries;
  log: Logger;
  /** Where the proposal goes to be stepped (host/stepper.ts). */
  stepper: Steps;
}

/** Takes proposals in, checks their plans, and hands them to the core in arrival order. */
export class ProposalIntake {
  /** Proposals of a session are handed to the core in arrival order, each after its plan check (by session). */
  private readonly inOrder = new KeyedSequence();

  constructor(private readonly options: ProposalIntakeOptions) {}

  /**
   * A SolutionProposal: its plan checked (see `planCheck`), then handed to the core after the
   * session's earlier proposals. Resolves once this one is handed over.
   */
  propose(sessionId: string, from: Participant, solution: SolutionBody, heard?: Heard): Promise<void> {
    const { queries, stepper, log } = this.options;
    if (queries.answeredFromArchive(sessionId, from, sessionWording.proposalTooLate)) return Promise.resolve();
    const check = this.planCheck(sessionId, solution);
    const hand = (verification: Verification | undefined): void =>
      stepper.apply({ kind: "proposal", sessionId, from, solution, ...(verification ? { verification } : {}) }, heard);
    // Nothing to wait for: handed over at once, as every proposal was before plans were checked here.
    if (!this.inOrder.busy(sessionId) && !(check instanceof Promise)) {
      hand(check);
      return Promise.resolve();
    }
    return this.inOrder.run(
      sessionId,
      async () => hand(await check),
      (err) => log.error({ err, sessionId, agent: from.nick }, "failed to take a proposal"),
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
    const session = this.options.table.get(sessionId);
    const summary = session?.model?.formalSummary;
    if (session?.phase !== "reasoning" || summary === undefined) return undefined;
    const claim = claimedPlanOf(solution);
    const early = verdictWithoutSimulation(summary.hasFormalPart, claim);
    if (early) return early;
    const formalJson = this.options.formalTexts.of(sessionId, summary.digest);
    return this.options.models
      .verify({ sessionId, digest: summary.digest, claim, ...(formalJson !== undefined ? { formalJson } : {}) }, { key: sessionId })
      .then((answer) => (answer.ok ? answer.verification : unfinishedCheck(answer.error)))
      .catch((err: unknown) => unfinishedCheck(err instanceof Error ? err.message : String(err)));
  }
}
