/**
 * What a proposal is worth, by the coordinator's own check rather than the agent's claims
 * (PROTOCOL.md, "Formal models and verified solutions"): each plan is simulated on the
 * validated model as it arrives, the verdict is kept with the proposal, and a model with a
 * formal part is solved only by a valid plan.
 */
import { simulatePlan, type FormalModel, type Verification } from "../formal/index.js";
import type { Proposal, Session, SolutionBody } from "./types.js";

/** Whether the model states anything a plan can be checked against. */
export function hasFormalPart(model: FormalModel): boolean {
  return model.goals.length > 0 || model.constraints.length > 0 || model.actions.some((a) => a.informal.length === 0);
}

/**
 * The check of one proposal's plan; undefined for sessions logged before plans were checked
 * (their analysis carries no formal model), so a replay of them stays as it was.
 */
export function verifyProposal(session: Session, solution: SolutionBody): Verification | undefined {
  const formal = session.model?.formal;
  if (!formal) return undefined;
  if (!hasFormalPart(formal)) {
    return { verdict: "unverifiable", reason: "The model has no formal part (its expressions are free text), so the plan could not be checked." };
  }
  // No plan at all is not an empty plan: there is nothing to check (an empty plan is checked).
  if (solution.plan === undefined) return { verdict: "unverifiable", reason: "The proposal has no plan to check." };
  const verification = simulatePlan(formal, solution.plan);
  const refutedClaim = refutedClaimOf(solution, verification);
  return refutedClaim ? { ...verification, refutedClaim } : verification;
}

/**
 * A claim the check contradicts: success claimed for an invalid plan, or goals claimed
 * satisfied when the plan ends with a formal goal false. Claimed goals are free text, so they
 * are not matched one by one to formal goals; the first false goal is named instead.
 */
function refutedClaimOf(solution: SolutionBody, v: Verification): string | undefined {
  if (v.verdict !== "invalid") return undefined;
  const planLength = solution.plan?.length ?? 0;
  const claimedGoals = (solution.satisfiesGoals ?? []).filter((g) => g.satisfied).length;
  if (claimedGoals > 0 && v.step === planLength + 1) {
    return `It claims ${claimedGoals === 1 ? "a goal" : `${claimedGoals} goals`} satisfied, but ${v.failed ?? "a goal"} is false at the end.`;
  }
  if (solution.success) return `It claims success, but the plan is invalid${v.step !== undefined ? ` at step ${v.step}` : ""}.`;
  return undefined;
}

const VERDICT_ORDER = { valid: 0, unverifiable: 1, invalid: 2 } as const;

/** Valid first, then unverifiable (or unchecked), then invalid. */
export function verdictRank(p: Proposal): number {
  return VERDICT_ORDER[p.verification?.verdict ?? "unverifiable"];
}

/** Solved: by a valid plan where the model has a formal part; where it has none, by a claim of success. */
export function isSolved(session: Session): boolean {
  const formal = session.model?.formal;
  if (formal && hasFormalPart(formal)) return session.proposals.some((p) => p.verification?.verdict === "valid");
  return session.proposals.some((p) => p.solution.success);
}

/** "valid, 4 steps" / "invalid at step 2: (handempty) is false" / "unverifiable: …". */
export function verdictWords(p: Proposal): string {
  const v = p.verification;
  if (!v) return p.solution.success ? "claims success (not checked)" : "claims failure";
  const steps = p.solution.plan?.length ?? 0;
  if (v.verdict === "valid") return `valid, ${steps === 1 ? "1 step" : `${steps} steps`}`;
  if (v.verdict === "invalid") {
    const claimed = v.refutedClaim ? " (claimed success)" : "";
    return `invalid${v.step !== undefined ? ` at step ${v.step}` : ""}${v.failed ? `: ${v.failed} is false` : `: ${v.reason}`}${claimed}`;
  }
  return `unverifiable: ${v.reason}`;
}

/**
 * What each proposer of an invalid plan must repair: the failing step, the expression that
 * was false there, and what the steps before it did (the state it failed in).
 */
export function repairIssues(session: Session): Record<string, string[]> {
  const issues: Record<string, string[]> = {};
  for (const p of session.proposals) {
    const v = p.verification;
    if (v?.verdict !== "invalid") continue;
    const lines = [v.reason];
    if (v.trace && v.step !== undefined) lines.push(...v.trace.slice(Math.max(0, v.step - 2), v.step).map((t) => `before: ${t}`));
    issues[p.agent] = lines.slice(0, 4);
  }
  return issues;
}
