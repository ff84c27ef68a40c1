/**
 * The planning benchmark: the project's planners on the IPC problems in ../shared/pddl
 * (relative to the repository; 470 problems in 16 folders, see its README.md).
 *
 * Per problem: the PDDL is imported (src/planning/pddl-import; a refusal is listed with its reason), then the
 * heuristic planner (src/planning/solver/heuristic) searches with a time limit, then, unless --no-smt,
 * today's SMT planner (src/planning/solver) does the same. Each run is a child process of its own
 * (bench/planning/worker.ts), killed at its limit plus a grace; several run at once (--jobs).
 * Every plan returned is checked by the simulator on the imported model: one that is not
 * `valid` is an "invalid plan proposed", printed loudly, and the exit code is 1. For the
 * heuristic planner, the found plan and up to 20 seeded mutations of it are also simulated on
 * the model round-tripped through PDDL (bench/planning/round-trip.ts); a disagreement with the
 * imported model fails the bench the same way.
 *
 * Prints a header, a table per planner (per folder: problems, imported, refused, solved within
 * the limit, invalid plans, time and length of the solved), what was not solved and why, the
 * targets, and last the line `planning: N of T solved within S s (classical …, numeric …);
 * invalid plans proposed: K` from the heuristic planner. Per-problem results go to a JSON file
 * (--json; types in bench/planning/types.ts). Not a test.
 * Run: npm run build && node dist/bench/planning.js [--only gripper --limit 2 --no-smt …]
 */
import { execFileSync } from "node:child_process";
import { availableParallelism, tmpdir } from "node:os";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runInChild } from "./planning/child.js";
import { finalLine, formatSeconds, headerLines, invalidLines, planCheckDisagreementLines, planCheckLines, refusalLines, tableLines, targetLines, unsolvedLines } from "./planning/format.js";
import { USAGE, parseOptions } from "./planning/options.js";
import type { PlanningOptions } from "./planning/options.js";
import { runPool } from "./planning/pool.js";
import { discoverProblems } from "./planning/problems.js";
import { classify, summarise } from "./planning/summary.js";
import type { PlannerName, PlannerRun, PlanningRun, Problem, ProblemResult, RunSettings } from "./planning/types.js";

/** This file runs as dist/bench/planning.js: the repository is two folders up. */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function commit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown (no git)";
  }
}

function settingsOf(options: PlanningOptions, dataDir: string): RunSettings {
  return {
    commit: commit(),
    date: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    jobs: options.jobs,
    timeoutMs: options.timeoutMs,
    smtTimeoutMs: options.smtTimeoutMs,
    maxSteps: options.maxSteps,
    graceMs: options.graceMs,
    heapMb: options.heapMb,
    dataDir,
    only: options.only,
    limit: options.limit,
  };
}

/** Runs one planner over the problems, a pool of children wide, saying each result on stderr as it comes. */
async function runPlanner(planner: PlannerName, problems: readonly Problem[], options: PlanningOptions, timeoutMs: number): Promise<PlannerRun[]> {
  let done = 0;
  return runPool(
    problems,
    options.jobs,
    (p) => runInChild({ planner, domainPath: p.domainPath, problemPath: p.problemPath, timeoutMs, maxSteps: options.maxSteps }, { graceMs: options.graceMs, heapMb: options.heapMb }),
    (run, i) => {
      done += 1;
      if (options.quiet) return;
      const p = problems[i] as Problem;
      const c = classify(run, timeoutMs);
      const figures = c.status === "solved" ? ` ${formatSeconds(c.ms ?? 0)}, ${c.length ?? 0} steps` : `: ${c.reason}`;
      console.error(`[${planner} ${done}/${problems.length}] ${p.folder}/${p.file}: ${c.status}${figures}`);
    },
  );
}

async function main(): Promise<void> {
  let options: PlanningOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    console.error(`planning: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
  const dataDir = resolve(options.dataDir ?? join(ROOT, "..", "shared", "pddl"));
  const problems = discoverProblems(dataDir, { only: options.only, limit: options.limit });
  if (problems.length === 0) throw new Error(`no problems in ${dataDir}${options.only !== null ? ` whose folder contains "${options.only}"` : ""}`);
  const settings = settingsOf(options, dataDir);
  const folders = new Set(problems.map((p) => p.folder)).size;
  for (const line of headerLines(settings, problems.length, folders, problems.filter((p) => p.numeric).length)) console.log(line);

  const heuristic = await runPlanner("heuristic", problems, options, options.timeoutMs);
  const results: ProblemResult[] = problems.map((p, i) => ({ ...p, heuristic: heuristic[i] as PlannerRun }));
  if (options.smtTimeoutMs !== null) {
    // A problem the import refused is refused for the SMT planner too: not run again.
    const toRun = results.filter((r) => r.heuristic.import?.ok !== false);
    const smt = await runPlanner("smt", toRun, options, options.smtTimeoutMs);
    toRun.forEach((r, i) => (r.smt = smt[i] as PlannerRun));
  }

  const jsonPath = resolve(options.json ?? join(tmpdir(), `mfr-planning-bench-${settings.date.replace(/[:.]/g, "-")}.json`));
  const run: PlanningRun = { settings, problems: results };
  writeFileSync(jsonPath, `${JSON.stringify(run, null, 1)}\n`);

  const heuristicRows = summarise(results, "heuristic", options.timeoutMs);
  const smtRows = options.smtTimeoutMs === null ? null : summarise(results, "smt", options.smtTimeoutMs);
  const out: string[] = ["", ...tableLines("heuristic", heuristicRows), ...planCheckLines(heuristicRows), ...unsolvedLines("heuristic", heuristicRows)];
  if (smtRows !== null) out.push("", ...tableLines("smt", smtRows), ...planCheckLines(smtRows), ...unsolvedLines("smt", smtRows));
  out.push(...refusalLines(heuristicRows));
  out.push("(time = the search alone, import and plan check apart; solved = a plan the simulator calls valid within the limit;", " length ÷ best known: only where an instance states a best known length, none of the shipped ones does)");
  const invalid = [
    ...invalidLines("heuristic", heuristicRows),
    ...(smtRows === null ? [] : invalidLines("smt", smtRows)),
    // A disagreement of the plan check with its round trip through PDDL fails the bench like an invalid plan.
    ...planCheckDisagreementLines("heuristic", heuristicRows),
    ...(smtRows === null ? [] : planCheckDisagreementLines("smt", smtRows)),
  ];
  out.push("", ...targetLines(heuristicRows, smtRows, options.timeoutMs), ...invalid, `per-problem results: ${jsonPath}`, finalLine(heuristicRows, options.timeoutMs));
  for (const line of out) console.log(line);
  if (invalid.length > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
