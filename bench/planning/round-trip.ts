/**
 * A check of the plan check itself on real data (heuristic planner only, after a plan was
 * found): the found plan and up to MUTANTS seeded mutations of it are simulated on the imported
 * model and on the same model written as PDDL (src/planning/pddl-export/pddl.ts) and imported again; the two
 * agree when verdict and step are equal. Runs after the search is timed, so it costs no search time.
 */
import { toPddl } from "../../src/planning/pddl-export/pddl.js";
import type { FormalModel } from "../../src/formal/model.js";
import { simulatePlan } from "../../src/formal/simulate.js";
import type { SimulationLimits, Verification } from "../../src/formal/simulate.js";
import { importPddl } from "../../src/planning/pddl-import/index.js";
import { mutatePlans } from "../verification/mutate.js";
import type { RoundTripDisagreement, RoundTripReport } from "./types.js";

export const ROUND_TRIP_MUTANTS = 20;
export const ROUND_TRIP_SEED = 7;
/** Longer plans are skipped: 21 simulations on each of two models stay short below this. */
export const ROUND_TRIP_MAX_STEPS = 1_000;

function side(v: Verification): RoundTripDisagreement["imported"] {
  return { verdict: v.verdict, reason: v.reason, ...(v.step !== undefined ? { step: v.step } : {}) };
}

export function roundTripCheck(model: FormalModel, name: string, plan: readonly string[], limits: Partial<SimulationLimits>): RoundTripReport {
  const started = performance.now();
  const empty = { checked: 0, agreed: 0, invalidMutants: 0, disagreements: [] };
  if (plan.length > ROUND_TRIP_MAX_STEPS) return { ...empty, skipped: `a plan of ${plan.length} steps, over ${ROUND_TRIP_MAX_STEPS}`, ms: performance.now() - started };
  let again: ReturnType<typeof importPddl>;
  try {
    const files = toPddl(model, { name });
    again = importPddl(files.domain, files.problem);
  } catch (err) {
    const reason = `the round trip failed: ${err instanceof Error ? err.message : String(err)}`;
    return { ...empty, disagreements: [{ plan: "the round trip", reason }], ms: performance.now() - started };
  }
  const mutants = mutatePlans([plan], model.objects.map((o) => o.symbol), { seed: ROUND_TRIP_SEED, count: ROUND_TRIP_MUTANTS });
  const plans = [{ label: "the found plan", plan: [...plan], mutant: false }, ...mutants.map((m) => ({ label: `mutant ${m.kind}`, plan: m.plan, mutant: true }))];
  if (!again.ok) {
    const r = again.refusal;
    const reason = `the round-tripped PDDL was refused: ${r.file} ${r.line}:${r.column} \`${r.construct}\`: ${r.message}`;
    return { ...empty, disagreements: [{ plan: "the round trip", reason }], ms: performance.now() - started };
  }
  const report: RoundTripReport = { ...empty, disagreements: [], ms: 0 };
  for (const p of plans) {
    const a = simulatePlan(model, p.plan, limits);
    const b = simulatePlan(again.model, p.plan, limits);
    report.checked += 1;
    if (p.mutant && a.verdict === "invalid") report.invalidMutants += 1;
    if (a.verdict === b.verdict && a.step === b.step) {
      report.agreed += 1;
      continue;
    }
    // The first step at which the two differ: the earlier of the steps they name (0 = the initial state).
    const steps = [a.step, b.step].filter((s): s is number => s !== undefined);
    const step = steps.length > 0 ? Math.min(...steps) : undefined;
    const text = step !== undefined ? p.plan[step - 1] : undefined;
    report.disagreements.push({
      plan: p.label,
      reason: `imported ${describe(a)}, round-tripped ${describe(b)}`,
      imported: side(a),
      roundTripped: side(b),
      ...(step !== undefined ? { step } : {}),
      ...(text !== undefined ? { stepText: text } : {}),
    });
  }
  report.ms = performance.now() - started;
  return report;
}

function describe(v: Verification): string {
  return `${v.verdict}${v.step !== undefined ? ` at step ${v.step}` : ""}`;
}
