/**
 * Stock versus product on the model pipeline, on realistic generated models of 10k, 100k and
 * (with --with-1m) 1M triples over five agents (bench/pipeline/realistic-model.ts).
 *
 * - stock: one N3.Parser per contribution into one N3.Store (a named graph each), then
 *   rdf-validate-shacl with the project's shapes (bench/pipeline/stock.ts);
 * - product: analyseModel, what the model worker runs (parse into one store, coordinator
 *   links, formal model, SHACL with the plan compiled from the shapes (src/rdf/shacl/),
 *   findings, the Turtle for solvers, counts).
 *
 * Each size runs in a fresh child process (so peak RSS is that size's, not the largest
 * one's): warm-up on a small model, then the stock runs, then the product runs (gc before
 * each), then one run of each split by phase, then the identical-results check: stock's
 * rdf-validate-shacl report against the product engine's results on its own merged store
 * (severity, focus node, path, source shape, component, value, messages), and the findings.
 * Timings on a shared machine vary with its load; the like-for-like line (parse + merge +
 * validate, the issue's measure) and the ratios move less than the milliseconds.
 * Target: product at least 2x faster than stock at 10k and 100k (stretch 4x), with the same
 * `conforms` and the same results.
 *
 * Prints figures only; not a test. Run:
 *   node scripts/prepare.mjs && node --expose-gc dist/bench/pipeline.js [--with-1m]
 * 10k and 100k take about a minute together; 1M about four more (one run of each pipeline,
 * then one more of each by phase; stock's SHACL validation alone is about 40 s there),
 * hence behind --with-1m. The 1M process peaks at about 5 GiB RSS, in the stock runs.
 * One size, one pipeline, e.g. for a CPU profile (prints the figures as JSON):
 *   node --cpu-prof --cpu-prof-dir=prof dist/bench/pipeline.js --child --size 100000 --reps 1 --only product
 *   node dist/bench/pipeline/profile-summary.js prof/<file>.cpuprofile
 */
import { fork } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DataFactory, Parser, type Store } from "n3";
import type { Quad } from "n3";
import { isReadByFormalModel, readFormalModel } from "../src/formal/index.js";
import { analyseModel } from "../src/analysis/analysis.js";
import type { AnalysisJob } from "../src/analysis/analysis.js";
import { completeMerge, countItemsByAgent, problemModelIriFor } from "../src/rdf/merge.js";
import type { ContributionGraph } from "../src/rdf/merge.js";
import { parseInto } from "../src/rdf/parse.js";
import { modelForSolvers, sessionPrefixes } from "../src/rdf/serialize.js";
import { validateShacl } from "../src/rdf/shacl/engine.js";
import { resultsOfReport } from "../src/rdf/shacl/result.js";
import type { ShaclOutcome } from "../src/rdf/shacl/result.js";
import { PROBLEM_MODEL_SHAPE, loadShapes } from "../src/rdf/shapes.js";
import { validateModel } from "../src/rdf/validate.js";
import { ModelStore, type QuadQueries } from "../src/rdf/quad-store.js";
import { YOUNG_GENERATION_MB } from "../src/model-workers/model-worker.js";
import { sessionBaseIri } from "../src/base/vocab.js";
import { difference, findingKeysOfOutcome, findingKeysOfReport, reportKeys, sameKeys } from "./pipeline/compare.js";
import { realisticModel } from "./pipeline/realistic-model.js";
import { stockPipeline } from "./pipeline/stock.js";
import type { StockPhases } from "./pipeline/stock.js";

const TARGET = 2;
const STRETCH = 4;
/** Repetitions per size: more where a run is short. */
const REPS: Record<number, number> = { 10_000: 5, 100_000: 3, 1_000_000: 1 };
const WARM_UP_TRIPLES = 5_000;

type ProductPhases = Record<"parse" | "merge" | "formal" | "shaclRaw" | "validateModel" | "turtle" | "count", number>;

interface SizeFigures {
  size: number;
  districts: number;
  /** Distinct triples in the stock store (all graphs, coordinator links included). */
  storeQuads: number;
  stockMs: number[];
  productMs: number[];
  rssAfterStock: number;
  rssAfterProduct: number;
  stockPhases?: StockPhases;
  productPhases?: ProductPhases;
  check?: {
    conformsStock: boolean;
    conformsProduct: boolean;
    results: number;
    bySeverity: Record<string, number>;
    /** The product engine's raw results on its merged store vs stock's: severity, focus, path, shape, component, value, messages. */
    reportsIdentical: boolean;
    /** Which engine the product used: its compiled plan, or rdf-validate-shacl as the fallback. */
    productEngine: string;
    /** analyseModel's findings vs stock's results: severity, focus, path. */
    findingsIdentical: boolean;
    formalFindings: number;
    differences: string[];
  };
}

const gc = (globalThis as { gc?: () => void }).gc;
const collect = (): void => gc?.();
/** Peak resident set size of this process so far, in bytes. */
const peakRss = (): number => process.resourceUsage().maxRSS * 1024;

function shapesPath(): string {
  for (const relative of ["../shapes/mfr-shapes.ttl", "../../shapes/mfr-shapes.ttl"]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error("shapes/mfr-shapes.ttl not found");
}

/** The job as the session host builds it (session-host.ts, runAnalysis). */
function jobOf(size: number): { job: AnalysisJob; districts: number } {
  const sessionId = `bench-${size}`;
  const base = sessionBaseIri(sessionId);
  const model = realisticModel(size);
  return {
    districts: model.districts,
    job: {
      sessionId,
      problemDescription: "Deliver every parcel to its district's depot",
      baseIri: base,
      coordinatorGraphIri: `${base}coordinator`,
      contributions: model.contributions.map((c) => ({ agent: c.agent, graphIri: `${base}contribution/${c.agent}`, turtle: c.turtle })),
      maxTriplesPerContribution: Number.MAX_SAFE_INTEGER,
    },
  };
}

async function timed<T>(run: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

/** analyseModel rebuilt from its exported parts, each timed; plus the raw SHACL results of its engine on its merged store. */
async function productByPhase(job: AnalysisJob, shapes: Store): Promise<{ phases: ProductPhases; store: QuadQueries; report: ShaclOutcome; outcome: Awaited<ReturnType<typeof validateModel>> }> {
  const store = new ModelStore();
  const parse = await timed(() => {
    const parsed: ContributionGraph[] = [];
    job.contributions.forEach((c, index) => {
      const outcome = parseInto(store, c.turtle, { baseIri: job.baseIri, graphIri: c.graphIri, maxTriples: job.maxTriplesPerContribution, blankNodePrefix: `c${index}_`, keep: isReadByFormalModel });
      if (!outcome.ok) throw new Error(`${c.agent}: ${outcome.error.message}`);
      parsed.push({ agent: c.agent, graphIri: c.graphIri, quads: outcome.quads });
    });
    return parsed;
  });
  const problemModelIri = problemModelIriFor(job.baseIri);
  const info = { sessionId: job.sessionId, problemDescription: job.problemDescription, problemModelIri, coordinatorGraphIri: job.coordinatorGraphIri };
  const merge = await timed(() => completeMerge(store, info, parse.value));
  const formal = await timed(() => readFormalModel(parse.value.flatMap((c) => c.quads)));
  const shaclRaw = await timed(() => validateShacl(shapes, merge.value.store, [{ shape: PROBLEM_MODEL_SHAPE, node: DataFactory.namedNode(problemModelIri) }]));
  const validate = await timed(() => validateModel(merge.value, shapes));
  const turtle = await timed(() => modelForSolvers(merge.value.store, sessionPrefixes(job.baseIri)));
  const count = await timed(() => countItemsByAgent(merge.value));
  return {
    phases: { parse: parse.ms, merge: merge.ms, formal: formal.ms, shaclRaw: shaclRaw.ms, validateModel: validate.ms, turtle: turtle.ms, count: count.ms },
    store: merge.value.store,
    report: shaclRaw.value,
    outcome: validate.value,
  };
}

interface ChildOptions {
  size: number;
  reps: number;
  only?: "stock" | "product";
  /** Phases and the identical-results check (skipped with --only). */
  full: boolean;
}

async function runSize(opts: ChildOptions): Promise<SizeFigures> {
  const shapes = loadShapes(shapesPath());
  const shapeQuads: Quad[] = new Parser({ format: "text/turtle" }).parse(readFileSync(shapesPath(), "utf8"));
  const { job, districts } = jobOf(opts.size);
  const warm = jobOf(WARM_UP_TRIPLES).job;
  for (let i = 0; i < 3; i++) {
    if (opts.only !== "product") await stockPipeline(warm, shapeQuads);
    if (opts.only !== "stock") await analyseModel(warm, shapes);
  }
  collect();

  const figures: SizeFigures = { size: opts.size, districts, storeQuads: 0, stockMs: [], productMs: [], rssAfterStock: 0, rssAfterProduct: 0 };
  let stockStore: Store | undefined;
  let stockReport: Awaited<ReturnType<typeof stockPipeline>>["report"] | undefined;
  if (opts.only !== "product") {
    for (let i = 0; i < opts.reps; i++) {
      collect();
      const run = await timed(() => stockPipeline(job, shapeQuads));
      figures.stockMs.push(run.ms);
      figures.storeQuads = run.value.store.size;
      if (i === opts.reps - 1 && opts.full) ({ store: stockStore, report: stockReport } = run.value);
    }
  }
  figures.rssAfterStock = peakRss();
  let productOutcome: Awaited<ReturnType<typeof analyseModel>>["validation"] | undefined;
  if (opts.only !== "stock") {
    for (let i = 0; i < opts.reps; i++) {
      collect();
      const run = await timed(() => analyseModel(job, shapes));
      figures.productMs.push(run.ms);
      if (i === opts.reps - 1) productOutcome = run.value.validation;
    }
  }
  figures.rssAfterProduct = peakRss();
  if (!opts.full || stockStore === undefined || stockReport === undefined || productOutcome === undefined) return figures;

  // One more run of each, split by phase; then the check on what they returned.
  collect();
  figures.stockPhases = (await stockPipeline(job, shapeQuads)).phases;
  collect();
  const byPhase = await productByPhase(job, shapes);
  figures.productPhases = byPhase.phases;

  const stockResults = resultsOfReport(stockReport);
  const stockKeys = reportKeys(stockResults, stockStore, job.coordinatorGraphIri);
  const productKeys = reportKeys(byPhase.report.results, byPhase.store, job.coordinatorGraphIri);
  const stockFindings = findingKeysOfReport(stockResults, stockStore, job.coordinatorGraphIri);
  const productFindings = findingKeysOfOutcome(productOutcome);
  const phasedFindings = findingKeysOfOutcome(byPhase.outcome);
  const bySeverity: Record<string, number> = {};
  for (const key of stockKeys) {
    const severity = key.split(" | ")[0] as string;
    bySeverity[severity] = (bySeverity[severity] ?? 0) + 1;
  }
  const reportsIdentical = stockReport.conforms === byPhase.report.conforms && sameKeys(stockKeys, productKeys);
  const findingsIdentical = sameKeys(stockFindings, productFindings.keys) && sameKeys(productFindings.keys, phasedFindings.keys);
  figures.check = {
    conformsStock: stockReport.conforms,
    conformsProduct: productOutcome.conforms,
    results: stockKeys.length,
    bySeverity,
    reportsIdentical,
    productEngine: byPhase.report.engine,
    findingsIdentical,
    formalFindings: productFindings.formal,
    differences: [
      ...difference(stockKeys, productKeys).map((k) => `stock report only: ${k}`),
      ...difference(productKeys, stockKeys).map((k) => `product report only: ${k}`),
      ...difference(stockFindings, productFindings.keys).map((k) => `stock only (findings): ${k}`),
      ...difference(productFindings.keys, stockFindings).map((k) => `product findings only: ${k}`),
    ],
  };
  return figures;
}

// --- Orchestration ---------------------------------------------------------------------

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const ms = (value: number): string => `${value.toFixed(0)}`;
const label = (size: number): string => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1_000}k`);

/**
 * V8 flags that give a process the young generation of a model thread (model-worker.ts): a
 * young generation is three semi-spaces' worth (two semi-spaces and as much for large objects).
 */
const MODEL_THREAD_FLAGS = [`--max-semi-space-size=${YOUNG_GENERATION_MB / 3}`];

/** One size in a child process; `asModelThread`: with the model thread's heap settings, times only. */
function childRun(size: number, reps: number, asModelThread = false): Promise<SizeFigures> {
  return new Promise((resolve, reject) => {
    const args = ["--child", "--size", String(size), "--reps", String(reps), ...(asModelThread ? ["--times-only"] : [])];
    const child = fork(fileURLToPath(import.meta.url), args, {
      execArgv: ["--expose-gc", "--max-old-space-size=16384", ...(asModelThread ? MODEL_THREAD_FLAGS : [])],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let figures: SizeFigures | undefined;
    child.on("message", (message) => (figures = message as SizeFigures));
    child.on("error", reject);
    child.on("exit", (code) => (figures && code === 0 ? resolve(figures) : reject(new Error(`the ${label(size)} run exited with ${code}`))));
  });
}

function printTable(all: SizeFigures[]): void {
  const columns = (...cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(6) : c.padStart(i === 4 ? 22 : 12))).join(" ");
  console.log(columns("size", "quads", "stock ms", "product ms", "stock/product", "target", "identical", "peak RSS"));
  for (const f of all) {
    const stock = median(f.stockMs);
    const product = median(f.productMs);
    const ratio = stock / product;
    const inTarget = f.size <= 100_000;
    const verdict = !inTarget ? "(none at 1M)" : ratio >= STRETCH ? "met, stretch too" : ratio >= TARGET ? "met" : "missed";
    const target = inTarget ? `>= ${TARGET}x (${STRETCH}x): ${verdict}` : verdict;
    const identical = f.check ? (f.check.reportsIdentical && f.check.findingsIdentical && f.check.conformsStock === f.check.conformsProduct ? "yes" : "NO") : "-";
    console.log(
      `${columns(label(f.size), String(f.storeQuads), ms(stock), ms(product), `${ratio.toFixed(2)}x`, target, identical, `${mib(f.rssAfterStock)} / ${mib(f.rssAfterProduct)}`)}`,
    );
  }
  console.log("(the whole analyseModel, which also reads the formal model and writes the Turtle for solvers, against stock; the issue's");
  console.log(" measure, parse + merge + validate, is the like-for-like line of the split by phase below;");
  console.log(" median of 5 runs at 10k, 3 at 100k, 1 at 1M; quads = the stock store's quads, coordinator links included;");
  console.log(" peak RSS = the size's own process after the stock runs / after the product runs, high-water, so the second includes the first)");
}

function printAsRun(defaults: SizeFigures[], asRun: SizeFigures[]): void {
  console.log(`\nWith the model thread's heap settings (young generation ${YOUNG_GENERATION_MB} MiB, as the coordinator runs analyseModel), for both:`);
  for (const f of asRun) {
    const stock = median(f.stockMs);
    const product = median(f.productMs);
    const stockAtDefaults = defaults.find((d) => d.size === f.size);
    const ratio = stock / product;
    const verdict = ratio >= STRETCH ? "met, stretch too" : ratio >= TARGET ? "met" : "missed";
    const versusDefaults = stockAtDefaults ? `; against stock at node's defaults (${ms(median(stockAtDefaults.stockMs))} ms) ${(median(stockAtDefaults.stockMs) / product).toFixed(2)}x` : "";
    console.log(`  ${label(f.size)}  stock ${ms(stock)} ms, product ${ms(product)} ms: ${ratio.toFixed(2)}x (target >= ${TARGET}x: ${verdict})${versusDefaults}`);
  }
}

function printPhases(all: SizeFigures[]): void {
  console.log("\nOne more run of each, by phase (ms):");
  for (const f of all) {
    const s = f.stockPhases;
    const p = f.productPhases;
    if (!s || !p) continue;
    const productCore = p.parse + p.merge + p.validateModel;
    const stockTotal = s.parse + s.links + s.compile + s.validate;
    console.log(`  ${label(f.size)}  stock:   parse+store ${ms(s.parse)}, links ${ms(s.links)}, compile shapes ${ms(s.compile)}, validate ${ms(s.validate)}  = ${ms(stockTotal)}`);
    console.log(
      `        product: parse into the store ${ms(p.parse)}, coordinator links ${ms(p.merge)}, formal ${ms(p.formal)}, validateModel ${ms(p.validateModel)} (its SHACL engine alone, a separate run: ${ms(p.shaclRaw)}), ` +
        `Turtle and triple count ${ms(p.turtle)}, counts by agent ${ms(p.count)}  = ${ms(p.parse + p.merge + p.formal + p.validateModel + p.turtle + p.count)}`,
    );
    const ratio = stockTotal / productCore;
    const verdict = f.size > 100_000 ? "none at 1M" : `target >= ${TARGET}x: ${ratio >= STRETCH ? "met, stretch too" : ratio >= TARGET ? "met" : "missed"}`;
    console.log(`        like for like (parse + merge + validateModel): product ${ms(productCore)} vs stock ${ms(stockTotal)}: ${ratio.toFixed(2)}x (${verdict})`);
  }
}

function printChecks(all: SizeFigures[]): void {
  console.log("\nIdentical results (raw reports: severity, focus, path, source shape, component, value, messages; findings: severity, focus, path;");
  console.log(" blank nodes by the product's description of them with labels removed, e.g. `_: (mfr:hasPrecondition of <…#deliver5>)`):");
  for (const f of all) {
    const c = f.check;
    if (!c) continue;
    const severities = Object.entries(c.bySeverity).map(([s, n]) => `${n} ${s}`).join(", ");
    console.log(
      `  ${label(f.size)}  conforms stock ${c.conformsStock} / product ${c.conformsProduct}; ${c.results} results (${severities}); ` +
        `raw reports ${c.reportsIdentical ? "identical" : "DIFFER"} (product engine: ${c.productEngine}); findings ${c.findingsIdentical ? "identical" : "DIFFER"}; formal-expression findings (product only) ${c.formalFindings}`,
    );
    for (const d of c.differences) console.log(`      ${d}`);
  }
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

if (process.argv.includes("--child")) {
  const size = Number(argument("--size") ?? 100_000);
  const only = argument("--only");
  const figures = await runSize({
    size,
    reps: Number(argument("--reps") ?? REPS[size] ?? 3),
    only: only === "stock" || only === "product" ? only : undefined,
    full: only === undefined && !process.argv.includes("--times-only"),
  });
  if (process.send) process.send(figures);
  else console.log(JSON.stringify(figures));
} else {
  if (!gc) console.log("(run with node --expose-gc: the size runs get it anyway, as child processes)");
  const sizes = [10_000, 100_000, ...(process.argv.includes("--with-1m") ? [1_000_000] : [])];
  const all: SizeFigures[] = [];
  for (const size of sizes) {
    const started = performance.now();
    const figures = await childRun(size, REPS[size] ?? 1);
    all.push(figures);
    console.log(`(${label(size)}: ${((performance.now() - started) / 1000).toFixed(0)} s in all, ${figures.districts} districts)`);
  }
  // The coordinator runs analyseModel on a model thread with a larger young generation
  // (model-worker.ts): the same sizes again with those settings, given to both pipelines.
  const asRun: SizeFigures[] = [];
  for (const size of sizes.filter((s) => s <= 100_000)) asRun.push(await childRun(size, REPS[size] ?? 1, true));
  console.log("");
  printTable(all);
  printAsRun(all, asRun);
  printPhases(all);
  printChecks(all);
  if (!process.argv.includes("--with-1m")) console.log("\n(1M triples: add --with-1m)");
}
