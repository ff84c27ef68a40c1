/**
 * Prints a shortest plan for each named benchmark problem, found by breadth-first search.
 * A helper for writing bench/problems/*.plans.json, not part of the benchmark.
 * Run: node scripts/prepare.mjs && node dist/bench/verification/find-plans.js logistics clinic
 */
import { analyseProblem, loadBenchShapes, readProblemText } from "./problems.js";
import { breadthFirstPlan } from "./search.js";

const shapes = loadBenchShapes();
for (const name of process.argv.slice(2)) {
  const analysis = await analyseProblem(name, readProblemText(name), shapes);
  const started = performance.now();
  const outcome = breadthFirstPlan(analysis.formal);
  const ms = performance.now() - started;
  console.log(`${name}: ${outcome.plan ? `${outcome.plan.length} steps` : "no plan"} (${outcome.expanded} states expanded, ${ms.toFixed(0)} ms)`);
  if (outcome.plan) console.log(JSON.stringify(outcome.plan));
}
