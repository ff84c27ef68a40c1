/**
 * One SHACL validation result, whichever engine produced it: the compiled plan
 * (evaluate.ts) or rdf-validate-shacl (the fallback for shapes the compiler does not
 * cover). Findings (validate.ts) and the benchmark's identical-results check read this
 * type only, so the two engines are compared on exactly what the product uses.
 */
import type { Term } from "@rdfjs/types";
import type SHACLValidator from "rdf-validate-shacl";
import { renderPath } from "../finding-text.js";

/** One result as SHACL's validation report states it (sh:ValidationResult), with terms, not text: validate.ts phrases it. */
export interface ShaclResult {
  /** sh:resultSeverity (an IRI; sh:Violation when the shape states none). */
  severity: string;
  focusNode: Term;
  /** sh:resultPath as findings show it (`schema:name | rdfs:label`); absent for node shapes. */
  path?: string;
  /** sh:sourceShape: an IRI, or a blank node of the shapes graph. */
  sourceShape: Term;
  /** sh:sourceConstraintComponent (an IRI). */
  sourceConstraintComponent: string;
  /** sh:value, for components that judge one value at a time. */
  value?: Term;
  /** sh:resultMessage: the shape's sh:message (every language), else the component's text. */
  messages: Term[];
}

/** A validation's results and which engine gave them (both give the same results; the differential tests compare them). */
export interface ShaclOutcome {
  /** True when there is no result at all, of any severity (SHACL's sh:conforms). */
  conforms: boolean;
  results: ShaclResult[];
  /** Which engine judged: the compiled plan, or rdf-validate-shacl as the fallback. */
  engine: "compiled" | "rdf-validate-shacl";
}

/** rdf-validate-shacl's own report, as its `validate` resolves; read only by `resultsOfReport`. */
export type EngineReport = Awaited<ReturnType<SHACLValidator["validate"]>>;

/** rdf-validate-shacl's report as engine-neutral results. */
export function resultsOfReport(report: EngineReport): ShaclResult[] {
  return report.results.map((r) => {
    const result: ShaclResult = {
      severity: r.severity?.value ?? "",
      focusNode: r.focusNode,
      sourceShape: r.sourceShape,
      sourceConstraintComponent: r.sourceConstraintComponent?.value ?? "",
      messages: r.message,
    };
    if (r.path) result.path = renderPath(r.dataset, r.path);
    if (r.value) result.value = r.value;
    return result;
  });
}
