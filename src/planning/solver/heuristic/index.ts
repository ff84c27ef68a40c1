/**
 * Heuristic forward search over the grounded model (docs/protocol.md, "Formal models and
 * verified solutions"): FF's enforced hill-climbing, then greedy best-first search, with the
 * FF relaxed-plan heuristic (Metric-FF's numeric extension for fluents) and helpful actions.
 * It scales to plans of hundreds of steps, where bounded SMT planning grows with plan length;
 * it does not prove a plan shortest. Every plan is checked by the simulator before it is
 * returned: a plan the check does not call valid is never an answer.
 *
 * CPU-bound: it lets the process's other work run every 50 ms, and callers that must stay
 * responsive run it in a process of their own (src/planning/solver/planner-process.ts).
 */
import type { FormalModel } from "../../../formal/model.js";
import { simulatePlan } from "../../../formal/simulate.js";
import type { SimulationLimits, Verification } from "../../../formal/simulate.js";
import { DEFAULT_GROUNDING_BOUNDS, groundTask } from "./ground-task.js";
import { search } from "./search.js";

/** When the search must stop. */
export interface HeuristicOptions {
  /** Epoch milliseconds after which the search gives up. */
  deadline: number;
  /** Called now and then; true ends the search ("gave-up"). */
  stopped?: () => boolean;
  /** States kept before the search gives up; default 2,000,000. */
  maxStates?: number;
  /**
   * Bounds of the simulator's check of the plan found; the coordinator's own by default, so
   * that a plan the coordinator could not check (over 1,000 steps) is not answered. The
   * planning bench raises them to measure the search on long competition plans.
   */
  checkLimits?: Partial<SimulationLimits>;
}

/** What grounding and search did: the grounded size, the states expanded and estimated, the time each took. */
export interface HeuristicStats {
  /** Ground actions after reachability. */
  groundActions: number;
  /** Atoms that can change, and fluents. */
  atoms: number;
  fluents: number;
  /** Action instances looked at while grounding. */
  instancesSeen: number;
  expanded: number;
  evaluated: number;
  groundingMs: number;
  searchMs: number;
  /** Which phase found the plan. */
  phase?: "hill-climbing" | "best-first";
}

/** A plan the simulator calls valid, a proof that none exists, a limit reached, or why the model cannot be planned for. */
export type HeuristicOutcome =
  | { kind: "plan"; plan: string[]; verification: Verification; stats: HeuristicStats }
  | { kind: "no-plan"; reason: string; stats: HeuristicStats }
  | { kind: "gave-up"; reason: string; stats?: HeuristicStats }
  | { kind: "cannot-help"; reason: string };

export const DEFAULT_MAX_STATES = 2_000_000;

/** Plan steps are `(name arg …)`, lower-cased, as the simulator reads them. */
export async function searchHeuristicPlan(model: FormalModel, options: HeuristicOptions): Promise<HeuristicOutcome> {
  if (model.goals.length === 0) return { kind: "cannot-help", reason: "the model states no formal goal, so a plan would have nothing to reach" };
  if (!model.actions.some((a) => a.informal.length === 0)) return { kind: "cannot-help", reason: "no action of the model is fully formal" };
  const started = Date.now();
  const grounded = groundTask(model, DEFAULT_GROUNDING_BOUNDS);
  const groundingMs = Date.now() - started;
  if (!grounded.ok) return { kind: "cannot-help", reason: `the model is too large to ground: ${grounded.reason}` };
  const { task } = grounded;
  const outcome = await search(task, { deadline: options.deadline, maxStates: options.maxStates ?? DEFAULT_MAX_STATES, ...(options.stopped ? { stopped: options.stopped } : {}) });
  const stats: HeuristicStats = {
    groundActions: task.ops.length,
    atoms: task.atoms.length,
    fluents: task.fluents.length,
    instancesSeen: grounded.instancesSeen,
    expanded: outcome.expanded,
    evaluated: outcome.evaluated,
    groundingMs,
    searchMs: Date.now() - started - groundingMs,
  };
  if (outcome.kind !== "plan") return { kind: outcome.kind, reason: outcome.reason, stats };
  const plan = outcome.ops.map((i) => (task.ops[i] as { step: string }).step);
  // The simulator has the last word: a plan it does not call valid is never an answer.
  const verification = simulatePlan(model, plan, options.checkLimits);
  if (verification.verdict !== "valid") {
    return { kind: "cannot-help", reason: `the plan found (${plan.length} steps) is not valid by the plan check: ${verification.reason}` };
  }
  return { kind: "plan", plan, verification, stats: { ...stats, phase: outcome.phase } };
}
