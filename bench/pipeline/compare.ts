/**
 * Are two validations the same? Results are compared as multisets of keys.
 *
 * Blank nodes: the two pipelines label them differently (the product `c2a_17`, a stock
 * N3.Parser `b3_…`), so a blank node is described the product's way (renderNode: its name,
 * else "mfr:hasPrecondition of <…#deliver5>", else its type) and every `_:label` in that
 * description is then replaced by `_:`. Two blank nodes with the same description become
 * the same key; the multiset still counts both.
 */
import type { QuadQueries } from "../../src/rdf/quad-store.js";
import type { Term } from "@rdfjs/types";
import { renderNode } from "../../src/rdf/finding-text.js";
import type { ShaclResult } from "../../src/rdf/shacl/result.js";
import type { ValidationOutcome } from "../../src/rdf/validate.js";

const SH = "http://www.w3.org/ns/shacl#";
/** How analysis.ts words the findings it adds for formal expressions (not SHACL results). */
const FORMAL_FINDING = "Formal expression does not parse";

export function unlabel(text: string): string {
  return text.replace(/_:[^\s)"]+/g, "_:");
}

function localName(iri: string): string {
  return iri.startsWith(SH) ? iri.slice(SH.length) : iri;
}

function node(store: QuadQueries, term: Term | null | undefined, coordinatorGraphIri: string): string {
  if (!term) return "-";
  if (term.termType === "Literal") return JSON.stringify([term.value, term.language, term.datatype.value]);
  return unlabel(renderNode(store, term, coordinatorGraphIri));
}

/**
 * Full keys from raw SHACL results (either engine's, see src/rdf/shacl/result.ts):
 * severity, focus node, path, source shape, component, value, messages.
 */
export function reportKeys(results: readonly ShaclResult[], store: QuadQueries, coordinatorGraphIri: string): string[] {
  return results
    .map((r) =>
      [
        localName(r.severity),
        node(store, r.focusNode, coordinatorGraphIri),
        r.path ?? "-",
        r.sourceShape.termType === "BlankNode" ? "_:" : localName(r.sourceShape.value),
        localName(r.sourceConstraintComponent).replace(/ConstraintComponent$/, ""),
        node(store, r.value, coordinatorGraphIri),
        r.messages.map((m) => m.value).sort().join(" / "),
      ].join(" | "),
    )
    .sort();
}

/** What the product's findings keep of a result: severity, focus node and path. */
export function findingKeysOfReport(results: readonly ShaclResult[], store: QuadQueries, coordinatorGraphIri: string): string[] {
  return results.map((r) => [severityWord(r.severity), node(store, r.focusNode, coordinatorGraphIri), r.path ?? "-"].join(" | ")).sort();
}

export function findingKeysOfOutcome(outcome: ValidationOutcome): { keys: string[]; formal: number } {
  const shacl = outcome.results.filter((f) => !f.message.startsWith(FORMAL_FINDING));
  return {
    keys: shacl.map((f) => [f.severity, unlabel(f.focusNode), f.path ?? "-"].join(" | ")).sort(),
    formal: outcome.results.length - shacl.length,
  };
}

function severityWord(severity: string): string {
  const word = localName(severity);
  return word === "Warning" || word === "Info" ? word : "Violation";
}

export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

/** The first few keys found on one side only, for a failing check. */
export function difference(a: readonly string[], b: readonly string[], limit = 5): string[] {
  const count = new Map<string, number>();
  for (const key of b) count.set(key, (count.get(key) ?? 0) + 1);
  const onlyA: string[] = [];
  for (const key of a) {
    const n = count.get(key) ?? 0;
    if (n > 0) count.set(key, n - 1);
    else onlyA.push(key);
  }
  return onlyA.slice(0, limit);
}
