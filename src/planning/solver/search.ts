/**
 * Iterative deepening over the horizon with one incremental solver: layer h is added once,
 * and the goal at h is an assumption, so the first plan found is a shortest one and what Z3
 * learnt at shorter horizons carries over. The wall clock is checked between layers and
 * bounds each check (see guardedCheck).
 */
import type { GroundProblem } from "./ground.js";
import { PlanEncoding, solverFor } from "./encoding.js";
import { guardedCheck } from "./z3.js";
import type { CheckLimits, Z3Bool, Z3Instance, Z3Solver } from "./z3.js";

export interface SearchSettings extends CheckLimits {
  maxSteps: number;
  /** Called after each horizon is decided: for measuring, not needed to plan. */
  onHorizon?: (horizon: number, answer: string, ms: number) => void;
}

export type SearchResult =
  | { kind: "plan"; plan: string[]; horizon: number }
  /**
   * `exhausted`: no execution of that many steps exists at all, so no longer plan either;
   * `never`: the goal can never hold, whatever the steps.
   */
  | { kind: "no-plan"; exhausted?: number; never?: true }
  | { kind: "gave-up"; reason: string; horizon: number };

export async function searchPlan(z3: Z3Instance, problem: GroundProblem, settings: SearchSettings): Promise<SearchResult> {
  const solver = solverFor(z3, problem);
  try {
    return await deepen(z3, solver, problem, settings);
  } finally {
    solver.release();
  }
}

async function deepen(z3: Z3Instance, solver: Z3Solver, problem: GroundProblem, settings: SearchSettings): Promise<SearchResult> {
  const { ctx } = z3;
  const encoding = new PlanEncoding(ctx, problem, solver);
  // An action that changes nothing never shortens a plan: it is not offered to the search.
  const candidates = problem.actions.flatMap((a, i) => (a.effect.kind === "and" && a.effect.parts.length === 0 ? [] : [i]));
  for (let h = 0; h <= settings.maxSteps; h += 1) {
    if (h > 0) encoding.addLayer(candidates);
    if (Date.now() >= settings.deadline) return { kind: "gave-up", reason: timeoutReason(h), horizon: h };
    if (settings.stopped?.() === true) return { kind: "gave-up", reason: unknownReason("stopped", h), horizon: h };
    const goal = encoding.goalAt(h);
    if (goal !== false) {
      const assumptions: Z3Bool[] = [];
      if (goal !== true) {
        const literal = ctx.Bool.const(`goal@${h}`);
        solver.add(ctx.Implies(literal, goal));
        assumptions.push(literal);
      }
      const started = Date.now();
      const checked = await guardedCheck(z3, solver, assumptions, settings);
      settings.onHorizon?.(h, checked.answer, Date.now() - started);
      if (checked.answer === "sat") return { kind: "plan", plan: planOf(z3, solver, problem, encoding), horizon: h };
      if (checked.answer === "unknown") return { kind: "gave-up", reason: unknownReason(checked.reason, h), horizon: h };
      // Unsatisfiable without the goal: no execution of h steps exists, so no longer plan does either.
      if (assumptions.length === 0 || solver.unsatCore().length() === 0) return { kind: "no-plan", exhausted: h };
    }
    // Z3's core need not be minimal, so whether any h-step execution exists at all is asked
    // outright, at doubling horizons: it ends a hopeless deepening early for a small price.
    if ((h & (h - 1)) === 0) {
      const any = await guardedCheck(z3, solver, [], settings);
      if (any.answer === "unsat") return { kind: "no-plan", exhausted: h };
      if (any.answer === "unknown") return { kind: "gave-up", reason: unknownReason(any.reason, h), horizon: h };
      // The goal folded to false when grounding: no action can ever make it true.
      if (problem.goal.kind === "const" && !problem.goal.value) return { kind: "no-plan", never: true };
    }
  }
  return { kind: "no-plan" };
}

function planOf(z3: Z3Instance, solver: Z3Solver, problem: GroundProblem, encoding: PlanEncoding): string[] {
  const model = solver.model();
  return encoding.layers.map((choices, t) => {
    const chosen = choices.find((c) => c.taken === true || (c.taken !== false && z3.ctx.isTrue(model.eval(c.taken, true))));
    if (chosen === undefined) throw new Error(`the model takes no action at step ${t + 1}`);
    return (problem.actions[chosen.action] as { step: string }).step;
  });
}

function unknownReason(why: string, h: number): string {
  const plans = `plans of ${h} step${h === 1 ? "" : "s"}`;
  if (why === "memory") return `the solver reached its memory budget while searching ${plans}`;
  if (why === "stopped") return `the search was stopped (the planner is closing) while searching ${plans}`;
  if (/timeout|cancel/i.test(why)) return timeoutReason(h);
  return `the solver could not decide whether a plan of ${h} step${h === 1 ? "" : "s"} exists (${why})`;
}

function timeoutReason(h: number): string {
  return `the time limit was reached while searching plans of ${h} step${h === 1 ? "" : "s"}`;
}
