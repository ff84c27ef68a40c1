import { sameAgent } from "./identity.js";
import type { Proposal, Session } from "./types.js";
import { verdictRank } from "./verdicts.js";

/**
 * Who was asked for a solution: every contributor, and every agent the session invited (chosen
 * by debate or selection). Anyone else may still propose; they rank behind within a verdict.
 */
export function requestedProposers(session: Pick<Session, "solvers" | "invitedAgents">): string[] {
  return [...session.solvers, ...(session.invitedAgents ?? [])];
}

function byName(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A plan's length; a proposal without a plan ranks behind every plan of its verdict. */
function steps(p: Proposal): number {
  const plan = p.solution.plan;
  return Array.isArray(plan) ? plan.length : Number.POSITIVE_INFINITY;
}

/**
 * Best first: by the coordinator's verdict (valid, unverifiable, invalid); among unverifiable
 * proposals, a claimed success before a failure (with no formal part, the claim is all there
 * is to go by, and it decides whether the session is solved); then requested agents before
 * unrequested ones, then fewer steps, then earlier, then by name. Claimed goal lists never count: a goal
 * listed fifty times is still a claim.
 */
export function rankProposals(proposals: readonly Proposal[], requested: readonly string[] = []): Proposal[] {
  const wasAsked = (p: Proposal): number => (requested.some((a) => sameAgent(a, p.agent)) ? 0 : 1);
  const claim = (p: Proposal): number => (p.verification?.verdict === "valid" || p.verification?.verdict === "invalid" ? 0 : Number(!p.solution.success));
  return [...proposals].sort(
    (a, b) =>
      verdictRank(a) - verdictRank(b) ||
      claim(a) - claim(b) ||
      wasAsked(a) - wasAsked(b) ||
      steps(a) - steps(b) ||
      a.receivedAt - b.receivedAt ||
      // Last, the name: the order never depends on the order proposals were stored in.
      byName(a.agent, b.agent),
  );
}

/** Goals a proposal claims to satisfy, each counted once (claims, shown but never ranked on). */
export function goalsSatisfied(p: Proposal): number {
  return new Set((p.solution.satisfiesGoals ?? []).filter((g) => g.satisfied).map((g) => g.goal)).size;
}

/** A session's proposals, best first. */
export function rankedProposals(session: Pick<Session, "proposals" | "solvers" | "invitedAgents">): Proposal[] {
  return rankProposals(session.proposals, requestedProposers(session));
}
