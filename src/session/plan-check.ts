/**
 * The check of one proposal's plan against the model's formal part (docs/protocol.md, "Formal
 * models and verified solutions"), as one pure function both sides share: the model worker
 * runs it on the live path (the formal model lives there), and the core runs it when it
 * replays a log written before plans were checked in the worker.
 */
import { hasFormalPart, simulatePlan, type FormalModel, type Verification } from "../formal/index.js";
import type { SolutionBody } from "./types.js";

/** What of a proposal the check reads: the plan and what the proposal claims for it. */
export type ClaimedPlan = Pick<SolutionBody, "success" | "plan" | "satisfiesGoals">;

/** Only the fields the check reads, so a job for the worker carries nothing else the agent sent. */
export function claimedPlanOf(solution: SolutionBody): ClaimedPlan {
  return {
    success: solution.success,
    ...(solution.plan !== undefined ? { plan: solution.plan } : {}),
    ...(solution.satisfiesGoals !== undefined ? { satisfiesGoals: solution.satisfiesGoals } : {}),
  };
}

/**
 * The verdict when the plan need not be simulated: a model with no formal part, or a proposal
 * with no plan. Undefined when the plan must be simulated on the formal model.
 */
export function verdictWithoutSimulation(modelHasFormalPart: boolean, claim: ClaimedPlan): Verification | undefined {
  if (!modelHasFormalPart) {
    return { verdict: "unverifiable", reason: "The model has no formal part (its expressions are free text), so the plan could not be checked." };
  }
  // No plan at all is not an empty plan: there is nothing to check (an empty plan is checked).
  if (claim.plan === undefined) return { verdict: "unverifiable", reason: "The proposal has no plan to check." };
  return undefined;
}

/** The plan simulated on `formal`, with any claim of the proposal the simulation refutes. */
export function checkPlan(formal: FormalModel, claim: ClaimedPlan): Verification {
  const early = verdictWithoutSimulation(hasFormalPart(formal), claim);
  if (early) return early;
  const verification = simulatePlan(formal, claim.plan ?? []);
  const refutedClaim = refutedClaimOf(claim, verification);
  return refutedClaim ? { ...verification, refutedClaim } : verification;
}

/** The verdict of a plan whose check did not finish (the worker failed or ran out of time). */
export function unfinishedCheck(error: string): Verification {
  return { verdict: "unverifiable", reason: `The plan check did not finish: ${error}.` };
}

/**
 * A claim the check contradicts: success claimed for an invalid plan, or goals claimed
 * satisfied when the plan ends with a formal goal false. Claimed goals are free text, so they
 * are not matched one by one to formal goals; the first false goal is named instead.
 */
function refutedClaimOf(claim: ClaimedPlan, v: Verification): string | undefined {
  if (v.verdict !== "invalid") return undefined;
  const planLength = claim.plan?.length ?? 0;
  const claimedGoals = (claim.satisfiesGoals ?? []).filter((g) => g.satisfied).length;
  if (claimedGoals > 0 && v.step === planLength + 1) {
    return `It claims ${claimedGoals === 1 ? "a goal" : `${claimedGoals} goals`} satisfied, but ${v.failed ?? "a goal"} is false at the end.`;
  }
  if (claim.success) return `It claims success, but the plan is invalid${v.step !== undefined ? ` at step ${v.step}` : ""}.`;
  return undefined;
}
