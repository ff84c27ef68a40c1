import type { Proposal } from "./types.js";

function goalsSatisfied(p: Proposal): number {
  return (p.solution.satisfiesGoals ?? []).filter((g) => g.satisfied).length;
}

/** Best first: successful before failed, then more goals satisfied, then earlier. */
export function rankProposals(proposals: readonly Proposal[]): Proposal[] {
  return [...proposals].sort(
    (a, b) =>
      Number(b.solution.success) - Number(a.solution.success) ||
      goalsSatisfied(b) - goalsSatisfied(a) ||
      a.receivedAt - b.receivedAt,
  );
}

export { goalsSatisfied };
