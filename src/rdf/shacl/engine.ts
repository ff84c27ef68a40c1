/**
 * SHACL validation of a data store: with the compiled plan when the shapes allow it
 * (compile.ts, evaluate.ts), else with rdf-validate-shacl, so a shapes file using
 * constructs the compiler does not cover still validates as before.
 *
 * The plan is cached per shapes store: a worker loads its shapes once and compiles them
 * on first use. The shapes store must not change after its first validation.
 */
import SHACLValidator from "rdf-validate-shacl";
import { DataFactory, Store } from "n3";
import { SH } from "../../base/vocab.js";
import { compileShapes } from "./compile.js";
import type { CompiledShapes } from "./compile.js";
import { runPlan } from "./evaluate.js";
import type { QuadQueries } from "../quad-store.js";
import type { ExtraTarget } from "./plan.js";
import { resultsOfReport } from "./result.js";
import type { ShaclOutcome } from "./result.js";

export type { ExtraTarget } from "./plan.js";

const compiledByShapes = new WeakMap<Store, CompiledShapes>();

/** The shapes compiled once; `unsupported` says why the fallback engine is used. */
export function compiledShapes(shapes: Store): CompiledShapes {
  let compiled = compiledByShapes.get(shapes);
  if (compiled === undefined) {
    compiled = compileShapes(shapes);
    compiledByShapes.set(shapes, compiled);
  }
  return compiled;
}

/**
 * Validates `data` (the union of its graphs) against `shapes`, plus `extraTargets`, which
 * act as `shape sh:targetNode node` triples added to the shapes for this run only.
 */
export async function validateShacl(shapes: Store, data: QuadQueries, extraTargets: readonly ExtraTarget[] = []): Promise<ShaclOutcome> {
  const compiled = compiledShapes(shapes);
  if (compiled.ok) {
    const results = runPlan(compiled.plan, data, extraTargets);
    return { conforms: results.length === 0, results, engine: "compiled" };
  }
  return validateWithEngine(shapes, data, extraTargets);
}

/** rdf-validate-shacl on the same input (the fallback, and the reference in tests). */
export async function validateWithEngine(shapes: Store, data: QuadQueries, extraTargets: readonly ExtraTarget[] = []): Promise<ShaclOutcome> {
  const withTargets = new Store(shapes.getQuads(null, null, null, null));
  const targetNode = DataFactory.namedNode(`${SH}targetNode`);
  for (const { shape, node } of extraTargets) {
    withTargets.addQuad(DataFactory.namedNode(shape), targetNode, node);
  }
  // The fallback engine reads a DatasetCore: the model store's quads are copied into one.
  const dataset = data instanceof Store ? data : new Store(data.getQuads(null, null, null, null));
  const report = await new SHACLValidator(withTargets).validate(dataset);
  return { conforms: report.conforms, results: resultsOfReport(report), engine: "rdf-validate-shacl" };
}
