/**
 * Heuristic forward search over the grounded model: greedy best-first search with the FF
 * relaxed-plan heuristic (Metric-FF's numeric extension for fluents) and helpful actions.
 * (Interface first; the search lands with issue 30.)
 */
import type { FormalModel } from "../../formal/model.js";

export interface HeuristicOptions {
  /** Epoch milliseconds after which the search gives up. */
  deadline: number;
  /** Called now and then; true ends the search ("gave-up"). */
  stopped?: () => boolean;
}

export interface HeuristicStats {
  groundActions: number;
  atoms: number;
  fluents: number;
  expanded: number;
  evaluated: number;
  groundingMs: number;
  searchMs: number;
}

export type HeuristicOutcome =
  | { kind: "plan"; plan: string[]; stats: HeuristicStats }
  | { kind: "no-plan"; reason: string; stats: HeuristicStats }
  | { kind: "gave-up"; reason: string; stats?: HeuristicStats }
  | { kind: "cannot-help"; reason: string };

/** Plan steps are `(name arg …)`, lower-cased, as the simulator reads them. */
export function searchHeuristicPlan(model: FormalModel, options: HeuristicOptions): HeuristicOutcome {
  void model;
  void options;
  return { kind: "cannot-help", reason: "heuristic search is not built yet" };
}
