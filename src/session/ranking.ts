import type { Proposal } from "./types.js";
import { verdictRank } from "./verdicts.js";

function goalsSatisfied(p: Proposal): number {
  return (p.solution.satisfiesGoals ?? []).filter((g) => g.satisfied).length;
}

/**
 * Best first: by the coordinator's verdict (valid, unverifiable, invalid), then successful
 * before failed, then more goals satisfied, then earlier. Claims only break ties.
 */
export function rankProposals(proposals: readonly Proposal[]): Proposal[] {
  return [...proposals].sort(
    (a, b) =>
      verdictRank(a) - verdictRank(b) ||
      Number(b.solution.success) - Number(a.solution.success) ||
      goalsSatisfied(b) - goalsSatisfied(a) ||
      a.receivedAt - b.receivedAt,
  );
}

export { goalsSatisfied };
