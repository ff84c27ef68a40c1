/**
 * The reference planner over a formal model (docs/protocol.md, "Formal models and verified
 * solutions"), in two parts that each do what they are good at:
 * - heuristic forward search (src/planning/solver/heuristic: greedy best-first with the FF heuristic,
 *   Metric-FF's numeric extension, helpful actions) finds a plan, also on real problems with
 *   plans of tens or hundreds of steps;
 * - bounded SMT planning with Z3 then tries every shorter horizon, up to `maxSteps`, in the
 *   time left: a shorter plan found that way is the shortest, and "no plan at any shorter
 *   horizon" proves the heuristic plan shortest. On small problems that takes milliseconds.
 * Either way a plan is returned only after the simulator has judged it valid, so what it
 * answers is never weaker than what the coordinator checks.
 *
 * Where docs/protocol.md leaves room, the planner decides:
 * - A plan is searched only for a model with a formal goal and an action a plan can use;
 *   the empty plan is an answer when the goals already hold.
 * - A fluent without initial value has no value until an action assigns one; reading it, or
 *   increasing, decreasing or scaling it, before then fails the plan, as in the simulator
 *   (see encoding.ts); so does a `scale-down` by zero.
 * - Numbers are Int unless a division (a `scale-down` included) or a non-integer occurs, then Real. Constants enter Z3
 *   as the exact values of the simulator's doubles, but Z3 then computes exactly where the
 *   simulator rounds: a plan that depends on rounding is caught by the simulator's check
 *   and answered "cannot-help", never returned.
 * - Plans are sequential (one action per step) and shortest: horizons are tried in order.
 * - One Z3 instance per planner; calls run one at a time on it. A check is cut short by the
 *   time limit, by a memory budget (Z3's heap cannot grow past 2 GiB, and running out would
 *   abort the process), and by close().
 * - checkPlan answers "unknown" where the simulator's verdict is "unverifiable" (a step naming
 *   an action that is partly free text, a model with nothing formal, its size bounds), and
 *   when the solver runs out of time.
 */
import type { FormalModel } from "../../formal/model.js";
import { DEFAULT_SIMULATION_LIMITS, simulatePlan } from "../../formal/simulate.js";
import type { Verification } from "../../formal/simulate.js";
import { MAX_CHECKED_STEPS, checkSteps, resolvePlan } from "./check.js";
import { groundModel } from "./grounding.js";
import type { GroundingOutcome } from "./grounding.js";
import { searchPlan } from "./search.js";
import type { SearchResult } from "./search.js";
import { searchHeuristicPlan } from "./heuristic/index.js";
import { loadZ3 } from "./z3.js";
import type { Z3Instance } from "./z3.js";

export interface PlanSearchOptions {
  /** Longest plan the SMT search tries (to find or to prove a shortest plan); default 30. */
  maxSteps?: number;
  /** Wall-clock limit of one search; default 20000. */
  timeoutMs?: number;
  /** Both parts (the default), or one alone (the bench compares them). */
  method?: "auto" | "heuristic" | "smt";
}

/** How a plan was found. */
export type PlanMethod = "heuristic" | "smt";

export type PlanSearchOutcome =
  | {
      kind: "plan";
      plan: string[];
      verification: Verification;
      /** The SMT search's longest horizon tried; 0 when it did not run. */
      horizonTried: number;
      elapsedMs: number;
      method: PlanMethod;
      /** Whether no shorter plan exists (proved by the SMT search). */
      shortest: boolean;
    }
  | {
      kind: "no-plan";
      maxSteps: number;
      reason: string;
      elapsedMs: number;
      /** True when no plan of any length exists (the whole reachable state space was searched). */
      proven?: boolean;
    }
  | { kind: "gave-up"; reason: string; horizonTried: number; elapsedMs: number }
  | { kind: "cannot-help"; reason: string };

export interface Planner {
  solve(model: FormalModel, options?: PlanSearchOptions): Promise<PlanSearchOutcome>;
  /** Independent check of a given plan by the same SMT encoding (action choices fixed): used by the benchmark as an oracle to cross-check the simulator. */
  checkPlan(model: FormalModel, plan: readonly string[], options?: { timeoutMs?: number }): Promise<"valid" | "invalid" | "unknown">;
  close(): Promise<void>;
}

export const DEFAULT_MAX_STEPS = 30;
export const DEFAULT_TIMEOUT_MS = 20_000;
export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
/** The part of a search's time limit the SMT search may spend on shorter horizons after the heuristic search found a plan. */
export const SMT_SHARE = 0.25;

export async function createPlanner(): Promise<Planner> {
  return new Z3Planner(await loadZ3());
}

class Z3Planner implements Planner {
  /** Z3 calls on one context must not interleave: each call waits for the one before. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Grounding is pure and costs more than a small check: kept per model object. */
  private readonly groundings = new WeakMap<FormalModel, GroundingOutcome>();

  constructor(private readonly z3: Z3Instance) {}

  private readonly stopped = (): boolean => this.closed;

  solve(model: FormalModel, options: PlanSearchOptions = {}): Promise<PlanSearchOutcome> {
    return this.serial(() => this.search(model, options));
  }

  checkPlan(model: FormalModel, plan: readonly string[], options: { timeoutMs?: number } = {}): Promise<"valid" | "invalid" | "unknown"> {
    return this.serial(() => this.check(model, plan, Date.now() + positive(options.timeoutMs, DEFAULT_CHECK_TIMEOUT_MS)));
  }

  /** Ends the work in progress (a running search stops within a moment, queued calls are refused), then stops Z3. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.z3.close();
  }

  private serial<T>(run: () => Promise<T>): Promise<T> {
    const start = (): Promise<T> => (this.closed ? Promise.reject(new Error("the planner is closed")) : run());
    if (this.closed) return start();
    const next = this.queue.then(start);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private ground(model: FormalModel): GroundingOutcome {
    let outcome = this.groundings.get(model);
    if (outcome === undefined) {
      outcome = groundModel(model);
      this.groundings.set(model, outcome);
    }
    return outcome;
  }

  private async search(model: FormalModel, options: PlanSearchOptions): Promise<PlanSearchOutcome> {
    const method = options.method ?? "auto";
    if (method === "smt") return this.smtSearch(model, options, Date.now());
    const unplannable = cannotPlan(model);
    if (unplannable !== undefined) return unplannable;
    const started = Date.now();
    const timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS);
    const maxSteps = Math.floor(Math.max(0, options.maxSteps ?? DEFAULT_MAX_STEPS));
    const found = await searchHeuristicPlan(model, { deadline: started + timeoutMs, stopped: this.stopped });
    const elapsed = (): number => Date.now() - started;
    switch (found.kind) {
      case "cannot-help":
        return found;
      case "gave-up":
        return { kind: "gave-up", reason: this.closed ? "the search was stopped (the planner is closing)" : found.reason, horizonTried: 0, elapsedMs: elapsed() };
      case "no-plan":
        return { kind: "no-plan", maxSteps, reason: found.reason, elapsedMs: elapsed(), proven: true };
      case "plan":
        break;
    }
    const heuristic: PlanSearchOutcome = { kind: "plan", plan: found.plan, verification: found.verification, horizonTried: 0, elapsedMs: elapsed(), method: "heuristic", shortest: found.plan.length === 0 };
    if (method === "heuristic" || found.plan.length === 0 || found.plan.length - 1 > maxSteps) return heuristic;
    // Shorter horizons, in a quarter of the time limit at most (the plan in hand should not wait
    // long for a proof): a plan there is the shortest; none proves this one shortest.
    const left = Math.min(started + timeoutMs - Date.now(), timeoutMs * SMT_SHARE);
    if (left <= 0) return heuristic;
    const shorter = await this.smtSearch(model, { maxSteps: found.plan.length - 1, timeoutMs: left }, Date.now());
    if (shorter.kind === "plan") return { ...shorter, elapsedMs: elapsed() };
    // Every shorter horizon was tried without a plan: this one's length is the first that has one.
    if (shorter.kind === "no-plan") return { ...heuristic, horizonTried: found.plan.length, elapsedMs: elapsed(), shortest: true };
    return { ...heuristic, horizonTried: "horizonTried" in shorter ? shorter.horizonTried : 0, elapsedMs: elapsed() };
  }

  private async smtSearch(model: FormalModel, options: PlanSearchOptions, started: number): Promise<PlanSearchOutcome> {
    const maxSteps = Math.floor(Math.max(0, options.maxSteps ?? DEFAULT_MAX_STEPS));
    const timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS);
    const elapsed = (): number => Date.now() - started;
    const unplannable = cannotPlan(model);
    if (unplannable !== undefined) return unplannable;
    const grounded = this.ground(model);
    if (!grounded.ok) return { kind: "cannot-help", reason: `the model is too large to plan with: ${grounded.reason}` };
    let result: SearchResult;
    try {
      result = await searchPlan(this.z3, grounded.problem, { maxSteps, deadline: started + timeoutMs, stopped: this.stopped });
    } catch (e) {
      // A failure here is a bug of the planner; the caller still gets an outcome, not an exception.
      return { kind: "cannot-help", reason: `the planner failed: ${e instanceof Error ? e.message : String(e)}` };
    }
    switch (result.kind) {
      case "no-plan": {
        let why = "";
        if (result.never === true) why = " (no action can ever make the goal true)";
        else if (result.exhausted === 0) why = " (the initial state already breaks a constraint)";
        else if (result.exhausted !== undefined) why = ` (no sequence of ${result.exhausted} applicable steps keeps every constraint, so no longer plan exists either)`;
        return { kind: "no-plan", maxSteps, reason: `no plan within ${maxSteps} steps${why}`, elapsedMs: elapsed() };
      }
      case "gave-up":
        return { kind: "gave-up", reason: result.reason, horizonTried: result.horizon, elapsedMs: elapsed() };
      case "plan": {
        // The simulator has the last word: a plan it rejects is never answered.
        const verification = simulatePlan(model, result.plan);
        if (verification.verdict === "unverifiable") {
          return { kind: "cannot-help", reason: `the plan found (${result.plan.length} steps) cannot be checked: ${verification.reason}` };
        }
        if (verification.verdict !== "valid") {
          return { kind: "cannot-help", reason: `the planner's encoding and the plan check disagree on ${JSON.stringify(result.plan)}: ${verification.reason}` };
        }
        return { kind: "plan", plan: result.plan, verification, horizonTried: result.horizon, elapsedMs: elapsed(), method: "smt", shortest: true };
      }
    }
  }

  private async check(model: FormalModel, plan: readonly string[], deadline: number): Promise<"valid" | "invalid" | "unknown"> {
    const runnable = model.actions.some((a) => a.informal.length === 0);
    // As the simulator: a model with nothing formal, or a plan longer than checked, is not judged.
    if (!runnable && model.constraints.length === 0 && model.goals.length === 0) return "unknown";
    if (plan.length > MAX_CHECKED_STEPS || model.objects.length > DEFAULT_SIMULATION_LIMITS.maxObjects) return "unknown";
    const grounded = this.ground(model);
    if (!grounded.ok) return "unknown";
    const resolution = resolvePlan(model, grounded.problem, plan);
    if (resolution.stop === "invalid") return "invalid";
    if (resolution.stop === "unknown") {
      // The steps before the one that cannot be checked may already fail.
      const prefix = await checkSteps(this.z3, grounded.problem, resolution.steps, false, { deadline, stopped: this.stopped });
      return prefix === "unsat" ? "invalid" : "unknown";
    }
    const answer = await checkSteps(this.z3, grounded.problem, resolution.steps, true, { deadline, stopped: this.stopped });
    return answer === "sat" ? "valid" : answer === "unsat" ? "invalid" : "unknown";
  }
}

/** Why no plan can be searched for at all, or undefined when one can. */
function cannotPlan(model: FormalModel): Extract<PlanSearchOutcome, { kind: "cannot-help" }> | undefined {
  if (model.goals.length === 0) return { kind: "cannot-help", reason: "the model states no formal goal, so a plan would have nothing to reach" };
  if (model.actions.some((a) => a.informal.length === 0)) return undefined;
  const why = model.actions.length === 0 ? "the model has no action" : `none of its ${model.actions.length} actions is fully formal (${model.actions.map((a) => `${a.name}: ${a.informal.join("; ")}`).join(" / ")})`;
  return { kind: "cannot-help", reason: `no action can be used in a plan: ${why}` };
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
