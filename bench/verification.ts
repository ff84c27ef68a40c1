/**
 * The verification benchmark: how well and how fast the coordinator's plan simulator
 * (src/formal) judges plans on the problems in bench/problems/.
 *
 * Per problem: the model goes through the session pipeline (parse, merge, SHACL shapes,
 * formal reading); then every known plan is simulated, valid ones must come out `valid` and
 * each hand-labelled invalid one `invalid` at its labelled step; mutated plans (bench/
 * verification/mutate.ts) are simulated too: their verdicts are counted, and compared with a
 * separate hand-written implementation of the domain (bench/verification/direct-checks.ts)
 * as a second opinion. Every plan is timed over several repetitions.
 *
 * Prints figures with their targets; exits non-zero when a known-invalid plan is called
 * valid, or a problem's model does not conform. Not a test.
 * Run: node scripts/prepare.mjs && node dist/bench/verification.js
 *
 * Each problem gives one row (a `ProblemFigures`); a column is a header and a function of
 * the row, so further figures (a solver's, say) are one more field and one more column.
 */
import { simulatePlan } from "../src/formal/simulate.js";
import { createIsolatedPlanner } from "../src/planning/solver/isolated-planner.js";
import type { Planner } from "../src/planning/solver/index.js";
import type { Verdict, Verification } from "../src/formal/simulate.js";
import type { FormalModel } from "../src/formal/model.js";
import { directCheck } from "./verification/direct-checks.js";
import { mutatePlans } from "./verification/mutate.js";
import { PROBLEM_NAMES, analyseProblem, loadBenchShapes, readPlans, readProblemText } from "./verification/problems.js";
import type { PlanSet } from "./verification/problems.js";

const REPETITIONS = 5;
const MUTANTS_PER_PROBLEM = 240;
const MUTATION_SEED = 7;
const TARGET_AGREEMENT = "100%";
const TARGET_FALSE_VALID = 0;

interface Disagreement {
  plan: string[];
  expected: string;
  got: Verification;
}

interface ProblemFigures {
  name: string;
  /** "conforms", or what is wrong with the model itself. */
  model: string;
  objects: number;
  actions: number;
  knownValid: number;
  knownInvalid: number;
  mutated: number;
  agreed: number;
  falseValid: number;
  disagreements: Disagreement[];
  /** Milliseconds per simulatePlan call, every plan, every repetition. */
  times: number[];
  mutantVerdicts: Record<Verdict, number>;
  /** Mutated plans on which the simulator and a separate implementation of the domain agree (verdict and step), where there is one. */
  crossChecked?: { agreed: number; total: number; disagreements: Disagreement[] };
}

async function verificationFigures(name: string, shapes: ReturnType<typeof loadBenchShapes>): Promise<ProblemFigures> {
  const analysis = await analyseProblem(name, readProblemText(name), shapes);
  const formal = analysis.formal;
  const plans: PlanSet = readPlans(name);
  const problems = [
    ...(analysis.validation.conforms ? [] : [`${analysis.validation.violations} violations`]),
    ...(analysis.parseErrors.length > 0 ? ["does not parse"] : []),
    ...(formal.findings.length > 0 ? [`${formal.findings.length} formal findings`] : []),
    ...(formal.notMachineCheckable.length > 0 ? [`${formal.notMachineCheckable.length} free-text parts`] : []),
  ];
  const mutants = mutatePlans(plans.valid, formal.objects.map((o) => o.symbol), { seed: MUTATION_SEED, count: MUTANTS_PER_PROBLEM });

  const figures: ProblemFigures = {
    name,
    model: problems.length === 0 ? "conforms" : problems.join(", "),
    objects: formal.objects.length,
    actions: formal.actions.length,
    knownValid: plans.valid.length,
    knownInvalid: plans.invalid.length,
    mutated: mutants.length,
    agreed: 0,
    falseValid: 0,
    disagreements: [],
    times: [],
    mutantVerdicts: { valid: 0, invalid: 0, unverifiable: 0 },
  };
  for (const plan of plans.valid) {
    const v = simulatePlan(formal, plan);
    if (v.verdict === "valid") figures.agreed += 1;
    else figures.disagreements.push({ plan, expected: "valid", got: v });
  }
  for (const labelled of plans.invalid) {
    const v = simulatePlan(formal, labelled.plan);
    if (v.verdict === "invalid" && v.step === labelled.step) figures.agreed += 1;
    else figures.disagreements.push({ plan: labelled.plan, expected: `invalid at step ${labelled.step} (${labelled.kind})`, got: v });
    if (v.verdict === "valid") figures.falseValid += 1;
  }
  const direct = directCheck(name);
  if (direct !== undefined) figures.crossChecked = { agreed: 0, total: 0, disagreements: [] };
  for (const m of mutants) {
    const v = simulatePlan(formal, m.plan);
    figures.mutantVerdicts[v.verdict] += 1;
    if (direct === undefined || figures.crossChecked === undefined) continue;
    const second = direct(m.plan);
    figures.crossChecked.total += 1;
    const same = second === undefined ? v.verdict === "valid" : v.verdict === "invalid" && v.step === second.step;
    if (same) figures.crossChecked.agreed += 1;
    else figures.crossChecked.disagreements.push({ plan: m.plan, expected: second === undefined ? "valid" : `invalid at step ${second.step} (${second.why})`, got: v });
  }

  const all = [...plans.valid, ...plans.invalid.map((p) => p.plan), ...mutants.map((m) => m.plan)];
  figures.times = timeEach(formal, all);
  return figures;
}

/** Every plan simulated REPETITIONS times after one untimed pass (JIT warm-up). */
function timeEach(formal: FormalModel, plans: readonly string[][]): number[] {
  for (const plan of plans) simulatePlan(formal, plan);
  const times: number[] = [];
  for (let r = 0; r < REPETITIONS; r += 1) {
    for (const plan of plans) {
      const started = performance.now();
      simulatePlan(formal, plan);
      times.push(performance.now() - started);
    }
  }
  return times;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const ms = (x: number): string => x.toFixed(3);
const percent = (a: number, b: number): string => (b === 0 ? "-" : `${((100 * a) / b).toFixed(a === b ? 0 : 1)}%`);

interface Column {
  header: string;
  cell: (f: ProblemFigures) => string;
  /** Left-aligned (text) rather than right-aligned (figures). */
  text?: boolean;
}

const COLUMNS: Column[] = [
  { header: "problem", cell: (f) => f.name, text: true },
  { header: "model", cell: (f) => f.model, text: true },
  { header: "objects", cell: (f) => String(f.objects) },
  { header: "actions", cell: (f) => String(f.actions) },
  { header: "known", cell: (f) => `${f.knownValid}+${f.knownInvalid}` },
  { header: "mutated", cell: (f) => String(f.mutated) },
  { header: `agreement (target ${TARGET_AGREEMENT})`, cell: (f) => `${f.agreed}/${f.knownValid + f.knownInvalid} (${percent(f.agreed, f.knownValid + f.knownInvalid)})` },
  { header: `false valid (target ${TARGET_FALSE_VALID})`, cell: (f) => String(f.falseValid) },
  { header: "p50 ms", cell: (f) => ms(percentile(sorted(f.times), 50)) },
  { header: "p95 ms", cell: (f) => ms(percentile(sorted(f.times), 95)) },
  { header: "max ms", cell: (f) => ms(Math.max(...f.times)) },
  { header: "mutants valid/invalid/unverif.", cell: (f) => `${f.mutantVerdicts.valid}/${f.mutantVerdicts.invalid}/${f.mutantVerdicts.unverifiable}` },
  { header: "mutants = direct check", cell: (f) => (f.crossChecked === undefined ? "-" : `${f.crossChecked.agreed}/${f.crossChecked.total}`) },
];

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

function printTable(rows: readonly ProblemFigures[], total: ProblemFigures): void {
  const cells = [...rows, total].map((r) => COLUMNS.map((c) => c.cell(r)));
  const widths = COLUMNS.map((c, i) => Math.max(c.header.length, ...cells.map((row) => (row[i] as string).length)));
  const line = (values: readonly string[]): string =>
    values.map((v, i) => (COLUMNS[i]?.text ? v.padEnd(widths[i] as number) : v.padStart(widths[i] as number))).join("  ");
  console.log(line(COLUMNS.map((c) => c.header)));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of cells.slice(0, -1)) console.log(line(row));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  console.log(line(cells[cells.length - 1] as string[]));
}

function totalOf(rows: readonly ProblemFigures[]): ProblemFigures {
  const sum = (pick: (f: ProblemFigures) => number): number => rows.reduce((acc, f) => acc + pick(f), 0);
  return {
    name: "all",
    model: rows.every((r) => r.model === "conforms") ? "conforms" : "see rows",
    objects: sum((f) => f.objects),
    actions: sum((f) => f.actions),
    knownValid: sum((f) => f.knownValid),
    knownInvalid: sum((f) => f.knownInvalid),
    mutated: sum((f) => f.mutated),
    agreed: sum((f) => f.agreed),
    falseValid: sum((f) => f.falseValid),
    disagreements: rows.flatMap((f) => f.disagreements),
    times: rows.flatMap((f) => f.times),
    mutantVerdicts: {
      valid: sum((f) => f.mutantVerdicts.valid),
      invalid: sum((f) => f.mutantVerdicts.invalid),
      unverifiable: sum((f) => f.mutantVerdicts.unverifiable),
    },
    crossChecked: {
      agreed: sum((f) => f.crossChecked?.agreed ?? 0),
      total: sum((f) => f.crossChecked?.total ?? 0),
      disagreements: rows.flatMap((f) => f.crossChecked?.disagreements ?? []),
    },
  };
}

/** What the reference solver does with one problem, and how its SMT check judges every plan. */
interface SolverFigures {
  name: string;
  outcome: string;
  steps: number | null;
  shortestKnown: number;
  ms: number;
  /** The plan found, judged by the simulator: must be valid whenever there is one. */
  checkedValid: boolean | null;
  /** A horizon one step short of the shortest known plan: must be "no plan within N steps". */
  shortHorizon: string;
  /** Plans on which the SMT encoding (action choices fixed) and the simulator agree. */
  /** How the plan was found, and whether it is proved shortest. */
  found: string;
  oracleAgreed: number;
  oracleTotal: number;
  oracleDisagreements: Array<{ plan: string[]; simulator: Verdict; smt: string }>;
}

const SOLVER_MAX_STEPS = 30;
const SOLVER_TIMEOUT_MS = 60_000;
/** Plans per problem given to the SMT check (known plans first, then mutants): it costs milliseconds each. */
const ORACLE_PLANS = 120;

async function solverFigures(planner: Planner, name: string, shapes: ReturnType<typeof loadBenchShapes>): Promise<SolverFigures> {
  const formal = (await analyseProblem(name, readProblemText(name), shapes)).formal;
  const plans: PlanSet = readPlans(name);
  const shortestKnown = Math.min(...plans.valid.map((p) => p.length));
  const started = performance.now();
  const outcome = await planner.solve(formal, { maxSteps: SOLVER_MAX_STEPS, timeoutMs: SOLVER_TIMEOUT_MS });
  const elapsed = performance.now() - started;
  // The SMT search alone, bounded one step below the shortest known plan: it must find none.
  const short = await planner.solve(formal, { maxSteps: Math.max(0, shortestKnown - 1), timeoutMs: SOLVER_TIMEOUT_MS, method: "smt" });
  const mutants = mutatePlans(plans.valid, formal.objects.map((o) => o.symbol), { seed: MUTATION_SEED, count: MUTANTS_PER_PROBLEM });
  const sample = [...plans.valid, ...plans.invalid.map((p) => p.plan), ...mutants.map((m) => m.plan)].slice(0, ORACLE_PLANS);
  const figures: SolverFigures = {
    name,
    outcome: outcome.kind,
    steps: outcome.kind === "plan" ? outcome.plan.length : null,
    found: outcome.kind === "plan" ? `${outcome.method}${outcome.shortest ? ", shortest" : ""}` : "-",
    shortestKnown,
    ms: elapsed,
    checkedValid: outcome.kind === "plan" ? simulatePlan(formal, outcome.plan).verdict === "valid" : null,
    shortHorizon: short.kind,
    oracleAgreed: 0,
    oracleTotal: 0,
    oracleDisagreements: [],
  };
  for (const plan of sample) {
    const simulator = simulatePlan(formal, plan).verdict;
    if (simulator === "unverifiable") continue;
    const smt = await planner.checkPlan(formal, plan);
    figures.oracleTotal += 1;
    if (smt === simulator) figures.oracleAgreed += 1;
    else figures.oracleDisagreements.push({ plan, simulator, smt });
  }
  return figures;
}

function printSolverTable(rows: readonly SolverFigures[]): void {
  const header = ["problem", "solver", "found by", "steps", "shortest known", "time s", "plan checked valid", `horizon shortest-1`, "SMT check = simulator"];
  const cells = rows.map((r) => [
    r.name,
    r.outcome,
    r.found,
    r.steps === null ? "-" : String(r.steps),
    String(r.shortestKnown),
    (r.ms / 1000).toFixed(2),
    r.checkedValid === null ? "-" : r.checkedValid ? "yes" : "NO",
    r.shortHorizon,
    `${r.oracleAgreed}/${r.oracleTotal}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (values: readonly string[]): string => values.map((v, i) => (i <= 2 ? v.padEnd(widths[i] as number) : v.padStart(widths[i] as number))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of cells) console.log(line(row));
}

async function reportSolver(shapes: ReturnType<typeof loadBenchShapes>): Promise<void> {
  // The planner's own process: a problem that exhausts Z3's memory is a figure, not the end of the run.
  const planner = createIsolatedPlanner();
  try {
    const rows: SolverFigures[] = [];
    for (const name of PROBLEM_NAMES) rows.push(await solverFigures(planner, name, shapes));
    console.log("");
    console.log(`Reference solver (heuristic search, then Z3 bounded planning on the shorter horizons in a quarter of the limit; horizon up to ${SOLVER_MAX_STEPS}, ${SOLVER_TIMEOUT_MS / 1000} s per search); the same problems:`);
    printSolverTable(rows);
    const solved = rows.filter((r) => r.outcome === "plan").length;
    const shortest = rows.filter((r) => r.steps !== null && r.steps <= r.shortestKnown).length;
    const invalid = rows.filter((r) => r.checkedValid === false).length;
    const noPlanShort = rows.filter((r) => r.shortHorizon === "no-plan").length;
    const agreed = rows.reduce((n, r) => n + r.oracleAgreed, 0);
    const total = rows.reduce((n, r) => n + r.oracleTotal, 0);
    const times = rows.filter((r) => r.outcome === "plan").map((r) => r.ms);
    console.log(
      `solver: solved ${solved}/${rows.length} (target all), shortest ${shortest}/${solved} (target all), invalid plans proposed ${invalid} (target 0), "no plan within shortest-1 steps" ${noPlanShort}/${rows.length} (target all); ` +
        `median time ${(percentile(sorted(times), 50) / 1000).toFixed(2)} s, max ${(Math.max(...times) / 1000).toFixed(2)} s`,
    );
    console.log(`SMT check of given plans agrees with the simulator on ${agreed}/${total} plans (target all): two independent implementations of the plan semantics.`);
    for (const r of rows) for (const d of r.oracleDisagreements) console.log(`  ${r.name}: simulator ${d.simulator}, SMT ${d.smt}: ${d.plan.join(" ")}`);
    if (invalid > 0 || agreed !== total) process.exitCode = 1;
  } finally {
    await planner.close();
  }
}

async function main(): Promise<void> {
  const shapes = loadBenchShapes();
  const rows: ProblemFigures[] = [];
  for (const name of PROBLEM_NAMES) rows.push(await verificationFigures(name, shapes));
  const total = totalOf(rows);
  console.log(`Plan verification: ${total.knownValid + total.knownInvalid} known plans (valid + hand-labelled invalid) and ${total.mutated} mutated plans on ${rows.length} problems; times over ${REPETITIONS} repetitions of every plan.`);
  printTable(rows, total);
  const known = total.knownValid + total.knownInvalid;
  console.log(`agreement ${total.agreed}/${known} (${percent(total.agreed, known)}), target ${TARGET_AGREEMENT}; false valid: ${total.falseValid}, target ${TARGET_FALSE_VALID}`);
  for (const row of rows) {
    for (const d of row.disagreements) {
      const got = `${d.got.verdict}${d.got.step === undefined ? "" : ` at step ${d.got.step}`}`;
      console.log(`  disagreement on ${row.name}: expected ${d.expected}, simulator says ${got}: ${d.got.reason}`);
      console.log(`    plan: ${d.plan.join(" ")}`);
    }
  }
  for (const row of rows) {
    for (const d of row.crossChecked?.disagreements ?? []) {
      const got = `${d.got.verdict}${d.got.step === undefined ? "" : ` at step ${d.got.step}`}`;
      console.log(`  mutant on ${row.name}: the direct check says ${d.expected}, simulator says ${got}: ${d.got.reason}`);
      console.log(`    plan: ${d.plan.join(" ")}`);
    }
  }
  console.log("(known = valid + hand-labelled invalid plans; mutated plans have no label, a mutation may still be valid;");
  console.log(" direct check = the same mutants judged by a separate, hand-written implementation of the domain: bench/verification/direct-checks.ts)");
  if (total.falseValid > 0) {
    console.error(`FAIL: ${total.falseValid} known-invalid plan(s) called valid.`);
    process.exitCode = 1;
  }
  if (rows.some((r) => r.model !== "conforms")) {
    console.error("FAIL: a problem's model does not conform or is not wholly formal.");
    process.exitCode = 1;
  }
  await reportSolver(shapes);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
