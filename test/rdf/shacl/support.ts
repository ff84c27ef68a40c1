/** Shared by the compiled-validator tests: building a merged model, and comparing engines on it. */
import { DataFactory, termToId } from "n3";
import type { Store, Term } from "n3";
import { mergeContributions, problemModelIriFor } from "../../../src/rdf/merge.js";
import type { ContributionGraph, MergedModel } from "../../../src/rdf/merge.js";
import { parseContribution } from "../../../src/rdf/parse.js";
import { validateShacl, validateWithEngine } from "../../../src/rdf/shacl/engine.js";
import type { ShaclOutcome, ShaclResult } from "../../../src/rdf/shacl/result.js";
import { PROBLEM_MODEL_SHAPE } from "../../../src/rdf/shapes.js";
import { BASE_IRI, COORDINATOR_GRAPH, graphOf } from "../helpers.js";

/** The merge analyseModel builds from these contributions (unparseable ones left out, as there). */
export function mergedModel(contributions: readonly (readonly [agent: string, turtle: string])[]): MergedModel {
  const parsed: ContributionGraph[] = [];
  contributions.forEach(([agent, turtle], index) => {
    const outcome = parseContribution(turtle, { baseIri: BASE_IRI, graphIri: graphOf(agent), maxTriples: 1_000_000, blankNodePrefix: `c${index}_` });
    if (outcome.ok) parsed.push({ agent, graphIri: graphOf(agent), quads: outcome.quads });
  });
  const info = { sessionId: "s-test", problemDescription: "p", problemModelIri: problemModelIriFor(BASE_IRI), coordinatorGraphIri: COORDINATOR_GRAPH };
  return mergeContributions(info, parsed);
}

/** Everything a result says, as one comparable line; terms by their n3 id (both engines see the same store). */
export function resultKey(r: ShaclResult): string {
  const id = (t: Term | undefined): string => (t === undefined ? "-" : termToId(t));
  const messages = r.messages.map((m) => `${m.value}@${m.termType === "Literal" ? m.language : ""}`).sort();
  return [r.severity, id(r.focusNode as Term), r.path ?? "-", id(r.sourceShape as Term), r.sourceConstraintComponent, id(r.value as Term | undefined), messages.join(" / ")].join(" | ");
}

export interface EngineComparison {
  compiled: ShaclOutcome;
  reference: ShaclOutcome;
  compiledKeys: string[];
  referenceKeys: string[];
}

/** Both engines on one model, with the session's ProblemModel target as validateModel passes it. */
export async function compareEngines(shapes: Store, model: MergedModel): Promise<EngineComparison> {
  const targets = [{ shape: PROBLEM_MODEL_SHAPE, node: DataFactory.namedNode(model.problemModelIri) }];
  const compiled = await validateShacl(shapes, model.store, targets);
  const reference = await validateWithEngine(shapes, model.store, targets);
  return {
    compiled,
    reference,
    compiledKeys: compiled.results.map(resultKey).sort(),
    referenceKeys: reference.results.map(resultKey).sort(),
  };
}
