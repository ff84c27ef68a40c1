/**
 * An independent check of a given plan by the planning encoding, with the action of every
 * step fixed: the plan is valid when the encoding is satisfiable. It shares no evaluation code
 * with the simulator (only the plan-step reader and the model), so the two can be compared.
 *
 * Steps are resolved in order as the simulator reads them. A step no plan could contain (not a
 * step, unknown action or object, wrong arity or type, an action that can never be
 * applicable) makes the plan invalid. A step naming an action that cannot be checked (free
 * text, ambiguous name) leaves it unknown, unless the steps before it already fail.
 */
import type { FormalModel } from "../../formal/model.js";
import { parsePlanStep } from "../../formal/plan-step.js";
import { DEFAULT_SIMULATION_LIMITS } from "../../formal/simulate.js";
import { hasType } from "../../formal/state.js";
import type { GroundProblem } from "./ground.js";
import { PlanEncoding, solverFor } from "./encoding.js";
import { guardedCheck } from "./z3.js";
import type { CheckLimits, Z3Instance } from "./z3.js";

export type PlanCheck = "valid" | "invalid" | "unknown";

/** The longest plan checked, as in the simulator's default bound. */
export const MAX_CHECKED_STEPS = DEFAULT_SIMULATION_LIMITS.maxSteps;

type Resolution = { steps: number[]; stop?: "invalid" | "unknown" };

const indexes = new WeakMap<GroundProblem, Map<string, number>>();

/** The ground action of each step, up to the first step that cannot be resolved. */
export function resolvePlan(model: FormalModel, problem: GroundProblem, plan: readonly unknown[]): Resolution {
  const runnable = model.actions.filter((a) => a.informal.length === 0);
  const index = actionIndex(problem);
  const steps: number[] = [];
  for (const raw of plan) {
    // Plans come from agents' JSON: a step that is not text is read as its JSON, as the simulator does.
    const step = parsePlanStep(typeof raw === "string" ? raw : String(JSON.stringify(raw)));
    if (step === undefined) return { steps, stop: "invalid" };
    const named = model.actions.filter((a) => a.name === step.action);
    const action = named[0];
    // With no action to run at all, an unknown name says nothing about the plan (as the simulator says).
    if (action === undefined) return { steps, stop: runnable.length === 0 ? "unknown" : "invalid" };
    if (named.length > 1 || action.informal.length > 0) return { steps, stop: "unknown" };
    if (step.args.length !== action.parameters.length) return { steps, stop: "invalid" };
    for (const [i, parameter] of action.parameters.entries()) {
      const object = model.objects.find((o) => o.symbol === step.args[i]);
      if (object === undefined || !hasType(object, parameter.type)) return { steps, stop: "invalid" };
    }
    // Grounding keeps every action that may ever be applicable; a missing one never is.
    const ground = index.get([step.action, ...step.args].join(" "));
    if (ground === undefined) return { steps, stop: "invalid" };
    steps.push(ground);
  }
  return { steps };
}

/** Asks Z3 whether the encoding with these steps fixed reaches the goals (or, for a prefix, merely runs). */
export async function checkSteps(z3: Z3Instance, problem: GroundProblem, steps: readonly number[], withGoal: boolean, limits: CheckLimits): Promise<"sat" | "unsat" | "unknown"> {
  const solver = solverFor(z3, problem);
  try {
    const encoding = new PlanEncoding(z3.ctx, problem, solver);
    for (const step of steps) encoding.addLayer([step]);
    if (withGoal) encoding.assert(encoding.goalAt(steps.length));
    return (await guardedCheck(z3, solver, [], limits)).answer;
  } finally {
    solver.release();
  }
}

function actionIndex(problem: GroundProblem): Map<string, number> {
  let index = indexes.get(problem);
  if (index === undefined) {
    index = new Map(problem.actions.map((a, i) => [[a.name, ...a.args].join(" "), i]));
    indexes.set(problem, index);
  }
  return index;
}
