/**
 * Validates the merged model against the MFR shapes and turns the SHACL results into
 * findings a person can act on: the shape's own sh:message, a readable focus node and path,
 * and the agents whose contributions the finding is about.
 *
 * The merge is validated as a whole (per-contribution validation would report false
 * sh:class errors when another agent declares the class), as the union of all named
 * graphs; a triple stated in several graphs counts once. The shapes run as a plan compiled
 * once per shapes store (src/rdf/shacl/), or through rdf-validate-shacl when they use
 * something the compiler does not cover; both give the same results.
 */
import { DataFactory } from "n3";
import type { BlankNode, NamedNode, Store } from "n3";
import type { Term } from "@rdfjs/types";
import { SH } from "../base/vocab.js";
import { fallbackMessage, renderNode } from "./finding-text.js";
import type { MergedModel } from "./merge.js";
import { validateShacl } from "./shacl/engine.js";
import type { ShaclResult } from "./shacl/result.js";
import { PROBLEM_MODEL_SHAPE } from "./shapes.js";

/** A SHACL result's severity by its local name; only `Violation` makes a model not conform. */
export type Severity = "Violation" | "Warning" | "Info";

/** One SHACL result, phrased for people and attributed to agents; the session core and its reports read these. */
export interface ValidationFinding {
  severity: Severity;
  /** IRIs as they are; blank nodes as `_:id "name"`. */
  focusNode: string;
  /** The property path, in prefixed notation (`schema:name | rdfs:label`). */
  path?: string;
  message: string;
  /** The agents whose contributions hold the focus node; empty for the coordinator's own node. */
  agents: string[];
}

/** A model's validation: its findings, Violations first, the counts, and the summary people read. */
export interface ValidationOutcome {
  /** True when there is no Violation; warnings never block. */
  conforms: boolean;
  violations: number;
  warnings: number;
  results: ValidationFinding[];
  /** One or two lines for humans. */
  summary: string;
}

const SH_MESSAGE = DataFactory.namedNode(`${SH}message`);

const SEVERITY_ORDER: Record<Severity, number> = { Violation: 0, Warning: 1, Info: 2 };

/**
 * Validates a merged model against `shapes` (see the header), the whole-model shape aimed at
 * this session's ProblemModel node only. Same model and shapes, same findings in the same
 * order; a stable sort keeps the engine's order within a severity.
 */
export async function validateModel(model: MergedModel, shapes: Store): Promise<ValidationOutcome> {
  // The whole-model shape judges only this session's ProblemModel node (see shapes.ts).
  const report = await validateShacl(shapes, model.store, [
    { shape: PROBLEM_MODEL_SHAPE, node: DataFactory.namedNode(model.problemModelIri) },
  ]);
  const results = report.results
    .map((result) => toFinding(model, shapes, result))
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  const violations = results.filter((r) => r.severity === "Violation").length;
  const warnings = results.filter((r) => r.severity === "Warning").length;
  return { conforms: violations === 0, violations, warnings, results, summary: summarise(results, violations, warnings) };
}

function toFinding(model: MergedModel, shapes: Store, result: ShaclResult): ValidationFinding {
  const focus = result.focusNode;
  const path = result.path;
  const message = messageFor(shapes, result, path);
  const finding: ValidationFinding = {
    severity: severityOf(result.severity),
    focusNode: focus ? renderNode(model.store, focus, model.coordinatorGraphIri) : "(unknown node)",
    message,
    agents: focus ? agentsHolding(model, focus) : [],
  };
  if (path !== undefined) finding.path = path;
  return finding;
}

/**
 * The shape's own sh:message when it has one. Otherwise rdf-validate-shacl falls back to
 * terse component texts ("Less than 1 values") or nothing at all (sh:or, sh:class), so we
 * phrase the finding ourselves and keep the engine's text only as a detail.
 */
function messageFor(shapes: Store, result: ShaclResult, path: string | undefined): string {
  const engineMessage = chooseMessage(result.messages);
  const shape = result.sourceShape;
  const shapeHasMessage = shapes.countQuads(termIn(shape), SH_MESSAGE, null, null) > 0;
  if (shapeHasMessage && engineMessage !== null) return engineMessage;
  const phrased = fallbackMessage(result.sourceConstraintComponent, path);
  return engineMessage === null ? phrased : `${phrased} (${engineMessage})`;
}

/** The shapes store is an n3 store; the report's terms come from another factory. */
function termIn(term: Term): NamedNode | BlankNode {
  return term.termType === "BlankNode" ? DataFactory.blankNode(term.value) : DataFactory.namedNode(term.value);
}

/** sh:message may come in several languages: prefer English, then untagged, then any. */
function chooseMessage(messages: Term[]): string | null {
  const usable = messages.filter((m) => m.value.trim() !== "");
  const language = (m: Term): string => (m.termType === "Literal" ? m.language.toLowerCase() : "");
  const best =
    usable.find((m) => language(m).startsWith("en")) ?? usable.find((m) => language(m) === "") ?? usable[0];
  return best?.value ?? null;
}

function severityOf(severity: string): Severity {
  if (severity === `${SH}Warning`) return "Warning";
  if (severity === `${SH}Info`) return "Info";
  // sh:Violation, and any custom severity: be strict with what we do not know.
  return "Violation";
}

/**
 * The agents whose graphs state something about the node: as subject first (they described
 * it); failing that, as object (they referred to it). The coordinator's graph is nobody's.
 */
function agentsHolding(model: MergedModel, node: Term): string[] {
  if (node.termType !== "NamedNode" && node.termType !== "BlankNode") return [];
  const owners = (graphs: Term[]): string[] =>
    graphs.map((g) => model.agentByGraph.get(g.value)).filter((agent): agent is string => agent !== undefined);
  let agents = owners(model.store.getGraphs(node, null, null));
  if (agents.length === 0) agents = owners(model.store.getGraphs(null, null, node));
  return [...new Set(agents)].sort();
}

/** The outcome with more findings (e.g. formal expressions that do not parse): counts and summary follow. */
export function withFindings(outcome: ValidationOutcome, extra: readonly ValidationFinding[]): ValidationOutcome {
  if (extra.length === 0) return outcome;
  const results = [...outcome.results, ...extra].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  const violations = results.filter((r) => r.severity === "Violation").length;
  const warnings = results.filter((r) => r.severity === "Warning").length;
  return { conforms: violations === 0, violations, warnings, results, summary: summarise(results, violations, warnings) };
}

function summarise(results: ValidationFinding[], violations: number, warnings: number): string {
  const warningText = warnings === 0 ? "no warnings" : plural(warnings, "warning");
  if (violations === 0) {
    return warnings === 0
      ? "The model conforms to the MFR shapes: no violations, no warnings."
      : `The model conforms to the MFR shapes, with ${warningText} (warnings do not block).`;
  }
  const perAgent = new Map<string, number>();
  for (const r of results) {
    if (r.severity !== "Violation") continue;
    for (const agent of r.agents.length > 0 ? r.agents : ["the model as a whole"]) {
      perAgent.set(agent, (perAgent.get(agent) ?? 0) + 1);
    }
  }
  const who = [...perAgent].map(([agent, n]) => `${agent}: ${n}`).join(", ");
  return `The model does not conform: ${plural(violations, "violation")} and ${warningText}.\nViolations by contributor: ${who}.`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** One short line per finding, e.g. `Violation on <…#alice> (schema:name): Every Entity needs a name — from bob`. */
export function describeFindings(outcome: ValidationOutcome): string[] {
  return outcome.results.map((f) => {
    const focus = /^(_:|")/.test(f.focusNode) ? f.focusNode : `<${f.focusNode}>`;
    const path = f.path === undefined ? "" : ` (${f.path})`;
    const from = f.agents.length === 0 ? "" : ` — from ${f.agents.join(", ")}`;
    return `${f.severity} on ${focus}${path}: ${f.message}${from}`;
  });
}
