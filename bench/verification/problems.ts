/**
 * The verification benchmark's problems (bench/problems/*.ttl) and their labelled plans
 * (bench/problems/<name>.plans.json), read and analysed the way the coordinator analyses a
 * session's model: parsed as one contribution, merged, validated with the MFR shapes, and
 * its formal part read.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { analyseModel } from "../../src/analysis/analysis.js";
import type { ModelAnalysis } from "../../src/analysis/analysis.js";
import { loadShapes } from "../../src/rdf/shapes.js";
import type { Store } from "n3";

/** The kinds of hand-labelled invalid plan. */
export const INVALID_KINDS = ["dropped", "swapped", "duplicated", "wrong-argument", "invariant", "goal"] as const;
export type InvalidKind = (typeof INVALID_KINDS)[number];

/** A plan known to be invalid, with the 1-based step where it first fails (plan length + 1: the goal). */
export interface LabelledInvalidPlan {
  plan: string[];
  step: number;
  kind: InvalidKind;
  why: string;
}

export interface PlanSet {
  valid: string[][];
  invalid: LabelledInvalidPlan[];
}

export const PROBLEM_NAMES = [
  "blocksworld-4",
  "blocksworld-5",
  "blocksworld-6",
  "blocksworld-7",
  "blocksworld-8",
  "logistics",
  "clinic",
  "river-crossing",
] as const;

const BASE_IRI = "https://mfr.example/sessions/bench-verification/";

/**
 * A directory of the repository from this module: bench/verification/ when run from source,
 * dist/bench/verification/ when compiled.
 */
function repositoryPath(relative: string): string {
  for (const up of ["../../", "../../../"]) {
    const path = fileURLToPath(new URL(`${up}${relative}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(`${relative} not found`);
}

export function problemsDirectory(): string {
  return repositoryPath("bench/problems/");
}

export function loadBenchShapes(): Store {
  return loadShapes(repositoryPath("shapes/mfr-shapes.ttl"));
}

export function readProblemText(name: string): string {
  return readFileSync(`${problemsDirectory()}${name}.ttl`, "utf8");
}

export function readPlans(name: string): PlanSet {
  const parsed = JSON.parse(readFileSync(`${problemsDirectory()}${name}.plans.json`, "utf8")) as PlanSet;
  for (const p of parsed.invalid) {
    if (!INVALID_KINDS.includes(p.kind)) throw new Error(`${name}: unknown kind ${String(p.kind)}`);
  }
  return parsed;
}

/** The model pipeline of a session on one problem, as one contribution. */
export function analyseProblem(name: string, turtle: string, shapes: Store): Promise<ModelAnalysis> {
  return analyseModel(
    {
      sessionId: `bench-${name}`,
      problemDescription: `Verification benchmark problem ${name}`,
      baseIri: BASE_IRI,
      coordinatorGraphIri: `${BASE_IRI}graph/coordinator`,
      contributions: [{ agent: "bench", graphIri: `${BASE_IRI}graph/bench`, turtle }],
      maxTriplesPerContribution: 100_000,
    },
    shapes,
  );
}
