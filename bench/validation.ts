/**
 * How long the model pipeline (parse + merge + validate + serialise + count) takes for
 * generated models of about 1k, 10k and 50k triples, split over three agents.
 * Prints figures only; not a test. Run: npm run build && node dist/bench/validation.js
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { analyseModel } from "../src/analysis/analysis.js";
import type { AnalysisJob } from "../src/analysis/analysis.js";
import { loadShapes } from "../src/rdf/shapes.js";
import { syntheticContribution } from "../src/rdf/synthetic.js";

const SIZES = [1_000, 10_000, 50_000];
const AGENTS = ["alice", "bob", "carol"];
const BASE_IRI = "https://mfr.example/sessions/bench/";

/** shapes/ is one level up from bench/ (source) and two from dist/bench/ (compiled). */
function shapesPath(): string {
  for (const relative of ["../shapes/mfr-shapes.ttl", "../../shapes/mfr-shapes.ttl"]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error("shapes/mfr-shapes.ttl not found");
}

function jobOf(totalTriples: number): AnalysisJob {
  return {
    sessionId: "bench",
    problemDescription: "Generated logistics model",
    baseIri: BASE_IRI,
    coordinatorGraphIri: `${BASE_IRI}graph/coordinator`,
    contributions: AGENTS.map((agent) => ({
      agent,
      graphIri: `${BASE_IRI}graph/${agent}`,
      turtle: syntheticContribution(agent, totalTriples / AGENTS.length),
    })),
    maxTriplesPerContribution: Number.MAX_SAFE_INTEGER,
  };
}

const shapes = loadShapes(shapesPath());
// One small run first, so the figures do not include JIT warm-up.
await analyseModel(jobOf(300), shapes);

const columns = (...cells: (string | number)[]): string => cells.map((c) => String(c).padStart(14)).join("");
console.log(columns("contributed", "merged", "analyseModel", "violations", "warnings"));
for (const size of SIZES) {
  const job = jobOf(size);
  const started = performance.now();
  const analysis = await analyseModel(job, shapes);
  const ms = performance.now() - started;
  const contributed = Object.values(analysis.countsByAgent).reduce((sum, counts) => sum + counts.triples, 0);
  const { violations, warnings } = analysis.validation;
  console.log(columns(contributed, analysis.tripleCount, `${ms.toFixed(0)} ms`, violations, warnings));
}
console.log("(merged = contributed + the coordinator's ProblemModel links; 3 agents; one run each)");
