/**
 * What the reference solver says back: the `solution` of its SolutionProposal for each outcome
 * of the search. Claims are only made for what was checked: a plan is offered only when the
 * coordinator's own simulator found it valid, and then every formal goal is satisfied.
 */
import type { FormalModel } from "../../formal/index.js";
import type { PlanMethod, PlanSearchOutcome } from "../../planning/solver/index.js";
import { clip } from "../../base/text.js";
import type { SolutionBody as ProtocolSolution } from "../../session/types.js";

/** A proposal's `solution` as docs/protocol.md has it, with how the search went (an extra field the coordinator keeps and shows). */
export type SolutionBody = ProtocolSolution & {
  search?: { horizon?: number; elapsedMs?: number; planner: string; method?: PlanMethod; shortest?: boolean };
};

export const PLANNER_NAME = "the reference planner (heuristic search, then bounded planning with Z3)";

/** How each part of the planner is named in a proposal. */
const METHOD_TEXT: Record<PlanMethod, string> = {
  heuristic: "greedy best-first search with the FF heuristic",
  smt: "bounded planning with Z3",
};

function secondsText(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function solutionFor(model: FormalModel, outcome: PlanSearchOutcome): SolutionBody {
  switch (outcome.kind) {
    case "plan": {
      const n = outcome.plan.length;
      const shortest = outcome.shortest ? "no shorter one exists" : "not known to be the shortest";
      return {
        success: true,
        message: `A plan of ${n === 1 ? "1 step" : `${n} steps`} (${shortest}), found by ${METHOD_TEXT[outcome.method]} in ${secondsText(outcome.elapsedMs)} and checked against the model.`,
        plan: outcome.plan,
        satisfiesGoals: model.goals.map((g) => ({ goal: clip(g.text, 200), satisfied: true })),
        search: { horizon: outcome.horizonTried, elapsedMs: Math.round(outcome.elapsedMs), planner: PLANNER_NAME, method: outcome.method, shortest: outcome.shortest },
      };
    }
    case "no-plan":
      return {
        success: false,
        message: outcome.proven === true ? `No plan exists: ${outcome.reason}` : `No plan within ${outcome.maxSteps} steps: ${outcome.reason}`,
        executionError: outcome.proven === true ? "no plan exists" : `no plan within ${outcome.maxSteps} steps`,
        search: { horizon: outcome.maxSteps, elapsedMs: Math.round(outcome.elapsedMs), planner: PLANNER_NAME },
      };
    case "gave-up":
      return {
        success: false,
        message: `No plan found in time: ${outcome.reason}`,
        executionError: outcome.reason,
        search: { horizon: outcome.horizonTried, elapsedMs: Math.round(outcome.elapsedMs), planner: PLANNER_NAME },
      };
    case "cannot-help":
      return { success: false, message: `I cannot plan for this model: ${outcome.reason}`, executionError: outcome.reason };
  }
}

/** The answer when the model itself could not be read (not Turtle, too large). */
export function unreadableModel(reason: string): SolutionBody {
  return { success: false, message: `I cannot plan for this model: ${reason}`, executionError: reason };
}
