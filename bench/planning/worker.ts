/**
 * One planner on one problem, in a process of its own (forked by child.ts): the heuristic
 * search is synchronous and may take gigabytes, and Z3's WebAssembly aborts the whole process
 * when its heap cannot grow, so either can only be stopped, or fail, by ending a process.
 *
 * Reads one WorkerJob from the parent, then reports each phase as it ends (types.ts:
 * WorkerMessage): the import, the search, the plan check, and for the heuristic planner a check
 * of the plan check against the model's round trip through PDDL (round-trip.ts). The parent times each phase from
 * the report of the one before, so the search's limit does not include reading the PDDL or
 * starting Z3.
 */
import { readFileSync } from "node:fs";
import { simulatePlan } from "../../src/formal/simulate.js";
import type { FormalModel } from "../../src/formal/model.js";
import { importPddl } from "../../src/planning/pddl-import/index.js";
import { searchHeuristicPlan } from "../../src/planning/solver/heuristic/index.js";
import { createPlanner } from "../../src/planning/solver/index.js";
import { roundTripCheck } from "./round-trip.js";
import type { ImportReport, SearchReport, WorkerJob, WorkerMessage } from "./types.js";

/**
 * The simulator's default bounds protect the coordinator from agents' plans; these plans
 * come from the project's own planners, and IPC plans run to hundreds or thousands of steps
 * over hundreds of objects, so the bounds are raised far enough not to turn a sound plan
 * into "unverifiable" (which would count as an invalid plan proposed).
 */
const CHECK_LIMITS = { maxSteps: 1_000_000, maxObjects: 1_000_000, maxExpansions: 200_000_000 };

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

function importProblem(job: WorkerJob): { report: ImportReport; model?: FormalModel; name?: string } {
  const started = performance.now();
  const result = importPddl(readFileSync(job.domainPath, "utf8"), readFileSync(job.problemPath, "utf8"));
  const ms = performance.now() - started;
  if (!result.ok) return { report: { ok: false, ms, refusal: result.refusal } };
  return { report: { ok: true, ms, domainName: result.domainName, problemName: result.problemName, notes: result.notes }, model: result.model, name: result.problemName };
}

async function search(job: WorkerJob, model: FormalModel, smt: Awaited<ReturnType<typeof createPlanner>> | null): Promise<SearchReport> {
  const started = performance.now();
  if (smt !== null) {
    const outcome = await smt.solve(model, { maxSteps: job.maxSteps, timeoutMs: job.timeoutMs, method: "smt" });
    const ms = performance.now() - started;
    if (outcome.kind === "plan") return { kind: "plan", reason: outcome.verification.reason, ms, plan: outcome.plan, stats: { horizonTried: outcome.horizonTried } };
    return { kind: outcome.kind, reason: outcome.reason, ms };
  }
  // The search's own check takes the bench's bounds, so long competition plans (sailing) are checked, not refused.
  const outcome = await searchHeuristicPlan(model, { deadline: Date.now() + job.timeoutMs, checkLimits: CHECK_LIMITS });
  const ms = performance.now() - started;
  const stats = "stats" in outcome && outcome.stats !== undefined ? numbersOf(outcome.stats) : undefined;
  if (outcome.kind === "plan") return { kind: "plan", reason: `a plan of ${outcome.plan.length} steps`, ms, plan: outcome.plan, ...(stats ? { stats } : {}) };
  return { kind: outcome.kind, reason: outcome.reason, ms, ...(stats ? { stats } : {}) };
}

async function run(job: WorkerJob): Promise<void> {
  const imported = importProblem(job);
  // Z3 starts before the search is timed: its start-up is not the planner's search time.
  const smt = imported.model !== undefined && job.planner === "smt" ? await createPlanner() : null;
  await send({ phase: "imported", report: imported.report });
  if (imported.model === undefined) return;
  const searched = await search(job, imported.model, smt);
  await send({ phase: "searched", report: searched });
  if (searched.plan === undefined) return;
  const started = performance.now();
  const verdict = simulatePlan(imported.model, searched.plan, CHECK_LIMITS);
  await send({ phase: "checked", report: { verdict: verdict.verdict, reason: verdict.reason, ...(verdict.step !== undefined ? { step: verdict.step } : {}), ms: performance.now() - started } });
  // After the search's report and timing: this check costs no search time.
  if (job.planner === "heuristic") await send({ phase: "round-tripped", report: roundTripCheck(imported.model, imported.name ?? "problem", searched.plan, CHECK_LIMITS) });
}

process.once("message", (job: WorkerJob) => {
  run(job)
    .catch((err: unknown) => send({ phase: "failed", error: err instanceof Error ? (err.stack ?? err.message) : String(err) }))
    // Exits at once: Z3's threads would otherwise keep the process alive, and the parent waits for the exit.
    .finally(() => process.exit(0));
});
// The parent gone (the bench interrupted), nothing is left to report to.
process.on("disconnect", () => process.exit(0));

/** The numeric figures of the search's statistics (the phase goes into the reason). */
function numbersOf(stats: object): Record<string, number> {
  return Object.fromEntries(Object.entries(stats).filter((e): e is [string, number] => typeof e[1] === "number"));
}
