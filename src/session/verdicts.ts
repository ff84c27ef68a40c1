/**
 * What a proposal is worth, by the coordinator's own check rather than the agent's claims
 * (docs/protocol.md, "Formal models and verified solutions"): each plan is simulated on the
 * validated model as it arrives, the verdict is kept with the proposal, and a model with a
 * formal part is solved only by a valid plan.
 */
import { hasFormalPart, summariseFormalModel, type FormalSummary, type Verification } from "../formal/index.js";
import { checkPlan, claimedPlanOf, verdictWithoutSimulation } from "./plan-check.js";
import type { ModelAnalysis, Proposal, Session } from "./types.js";
import type { Input } from "./step-io.js";
import { nameTable } from "./name-table.js";
import { inline } from "../base/text.js";

/**
 * What the core knows of a model's formal part: its summary, or, for logs written before
 * plans were checked in the worker, the summary of the formal model the analysis carried.
 * Undefined for logs older still (no formal model at all).
 */
export function formalSummaryOf(model: ModelAnalysis | null): Pick<FormalSummary, "hasFormalPart" | "notMachineCheckable"> | undefined {
  if (model?.formalSummary) return model.formalSummary;
  if (model?.formal) return { hasFormalPart: hasFormalPart(model.formal), notMachineCheckable: summariseFormalModel(model.formal, "").notMachineCheckable };
  return undefined;
}

/**
 * The check recorded with a proposal. On the live path the shell had the model worker make it
 * and the input carries it. A log written before that carries the formal model in its analysis
 * instead, and the plan is checked here as it was then; older logs have no check at all
 * (undefined), so a replay of any of them stays as it was.
 */
export function proposalVerification(session: Session, input: Extract<Input, { kind: "proposal" }>): Verification | undefined {
  if (input.verification) return input.verification;
  const model = session.model;
  if (model?.formal) return checkPlan(model.formal, claimedPlanOf(input.solution));
  if (model?.formalSummary) {
    // The shell checks every proposal it hands over while the session takes them; one without
    // a check is still judged the same way, never taken as valid.
    return verdictWithoutSimulation(model.formalSummary.hasFormalPart, input.solution) ?? { verdict: "unverifiable", reason: "The plan was not checked." };
  }
  return undefined;
}

const VERDICT_ORDER = { valid: 0, unverifiable: 1, invalid: 2 } as const;

/** Valid first, then unverifiable (or unchecked), then invalid. */
export function verdictRank(p: Proposal): number {
  return VERDICT_ORDER[p.verification?.verdict ?? "unverifiable"];
}

/** Solved: by a valid plan where the model has a formal part; where it has none, by a claim of success. */
export function isSolved(session: Session): boolean {
  if (formalSummaryOf(session.model)?.hasFormalPart) return session.proposals.some((p) => p.verification?.verdict === "valid");
  return session.proposals.some((p) => p.solution.success);
}

/** "valid, 4 steps" / "invalid at step 2: (handempty) is false" / "unverifiable (the proposal has no plan to check)". */
export function verdictWords(p: Proposal): string {
  const v = p.verification;
  if (!v) return p.solution.success ? "claims success (not checked)" : "claims failure";
  const steps = p.solution.plan?.length ?? 0;
  if (v.verdict === "valid") return `valid, ${steps === 1 ? "1 step" : `${steps} steps`}`;
  if (v.verdict === "invalid") {
    const claimed = v.refutedClaim ? " (claimed success)" : "";
    return `invalid${v.step !== undefined ? ` at step ${v.step}` : ""}${v.failed ? `: ${v.failed} is false` : ` (${inline(v.reason)})`}${claimed}`;
  }
  return `unverifiable (${inline(v.reason)})`;
}

/**
 * What each proposer of an invalid plan must repair: the failing step, the expression that
 * was false there, and what the steps before it did (the state it failed in).
 */
export function repairIssues(session: Session): Record<string, string[]> {
  const issues = nameTable<string[]>();
  for (const p of session.proposals) {
    const v = p.verification;
    if (v?.verdict !== "invalid") continue;
    const lines = [v.reason];
    if (v.trace && v.step !== undefined) lines.push(...v.trace.slice(Math.max(0, v.step - 2), v.step).map((t) => `before: ${t}`));
    issues[p.agent] = lines.slice(0, 4);
  }
  return issues;
}
