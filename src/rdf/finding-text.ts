/**
 * Words for SHACL results: how a focus node, a property path and a message without an
 * sh:message read for a person (an agent author fixing a contribution, or a human in the room).
 */
import { DataFactory } from "n3";
import type { BlankNode } from "n3";
import type { QuadQueries } from "./quad-store.js";
import type { DatasetCore, Term } from "@rdfjs/types";
import { MFR, PREFIXES, RDF, RDFS, SCHEMA_HTTP, SCHEMA_HTTPS, SH } from "../base/vocab.js";

const { namedNode } = DataFactory;

/** Properties that name a node, best first; used to make a blank node recognisable. */
const NAME_PROPERTIES = [`${SCHEMA_HTTP}name`, `${SCHEMA_HTTPS}name`, `${RDFS}label`, `${MFR}actionName`];

/**
 * IRIs stay as they are. A blank node shows its id plus what lets a person find it: its name,
 * else what an agent's contribution hangs it on (`mfr:hasEffect of <…#drive>`), else its type.
 * Links in `coordinatorGraphIri` (ProblemModel → item) say nothing the agent wrote.
 */
export function renderNode(store: QuadQueries, term: Term, coordinatorGraphIri: string): string {
  switch (term.termType) {
    case "NamedNode":
      return term.value;
    case "BlankNode": {
      const id = `_:${term.value}`;
      const node = DataFactory.blankNode(term.value);
      const name = nameOf(store, node);
      if (name !== null) return `${id} ${JSON.stringify(name)}`;
      const referrer = store.getQuads(null, null, node, null).find((q) => q.graph.value !== coordinatorGraphIri);
      if (referrer !== undefined) return `${id} (${compactIri(referrer.predicate.value)} of ${shallow(referrer.subject)})`;
      const [type] = store.getObjects(node, namedNode(`${RDF}type`), null);
      return type === undefined ? id : `${id} (a ${compactIri(type.value)})`;
    }
    case "Literal":
      return JSON.stringify(term.value);
    default:
      return term.value;
  }
}

function nameOf(store: QuadQueries, node: BlankNode): string | null {
  for (const property of NAME_PROPERTIES) {
    const [name] = store.getObjects(node, namedNode(property), null);
    if (name !== undefined) return name.value;
  }
  return null;
}

function shallow(term: Term): string {
  return term.termType === "BlankNode" ? `_:${term.value}` : `<${term.value}>`;
}

/** A prefixed name where one of our prefixes fits; both schema.org namespaces read `schema:`. */
export function compactIri(iri: string): string {
  const namespaces: [string, string][] = [...Object.entries(PREFIXES), ["schema", SCHEMA_HTTPS]];
  for (const [prefix, namespace] of namespaces) {
    const local = iri.startsWith(namespace) ? iri.slice(namespace.length) : null;
    if (local !== null && /^[A-Za-z_][\w-]*$/.test(local)) return `${prefix}:${local}`;
  }
  return `<${iri}>`;
}

/**
 * A SHACL property path in SPARQL-like notation (`schema:name | rdfs:label`, `^mfr:hasEntity`).
 * Complex paths are blank nodes whose structure the report copies from the shapes.
 */
export function renderPath(dataset: DatasetCore, path: Term): string {
  if (path.termType === "NamedNode") return compactIri(path.value);
  const one = (predicate: string): Term | undefined => objectOf(dataset, path, predicate);
  const alternatives = one(`${SH}alternativePath`);
  if (alternatives) return unique(listItems(dataset, alternatives).map((p) => renderPath(dataset, p))).join(" | ");
  const inverse = one(`${SH}inversePath`);
  if (inverse) return `^${renderPath(dataset, inverse)}`;
  for (const [predicate, suffix] of [["zeroOrMorePath", "*"], ["oneOrMorePath", "+"], ["zeroOrOnePath", "?"]] as const) {
    const inner = one(`${SH}${predicate}`);
    if (inner) return `${renderPath(dataset, inner)}${suffix}`;
  }
  if (one(`${RDF}first`)) return listItems(dataset, path).map((p) => renderPath(dataset, p)).join("/");
  return "(a complex path)";
}

function objectOf(dataset: DatasetCore, subject: Term, predicate: string): Term | undefined {
  for (const quad of dataset.match(subject, namedNode(predicate), null)) return quad.object;
  return undefined;
}

function listItems(dataset: DatasetCore, head: Term): Term[] {
  const items: Term[] = [];
  const seen = new Set<string>();
  for (let node: Term | undefined = head; node && node.value !== `${RDF}nil` && !seen.has(node.value); ) {
    seen.add(node.value);
    const first = objectOf(dataset, node, `${RDF}first`);
    if (first) items.push(first);
    node = objectOf(dataset, node, `${RDF}rest`);
  }
  return items;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/**
 * Our shapes all carry sh:message; this is for results without one (a shape someone adds
 * later), so that a result never reaches a person as an empty line.
 */
export function fallbackMessage(component: string, path: string | undefined): string {
  const about = path ?? "this node";
  const name = component.startsWith(SH) ? component.slice(SH.length) : component;
  switch (name) {
    case "MinCountConstraintComponent":
      return `${about} is missing`;
    case "MaxCountConstraintComponent":
      return `${about} has too many values`;
    case "DatatypeConstraintComponent":
      return `${about} has a value of the wrong datatype`;
    case "ClassConstraintComponent":
      return `${about} points to something that is not of the required class`;
    case "NodeKindConstraintComponent":
      return `${about} has a value of the wrong kind (IRI, blank node or literal)`;
    case "OrConstraintComponent":
      return `${about} matches none of the accepted alternatives`;
    case "PatternConstraintComponent":
    case "MinLengthConstraintComponent":
      return `${about} has a value of the wrong form`;
    case "QualifiedMinCountConstraintComponent":
      return `${about} has no acceptable value`;
    default:
      return `${about} fails ${name.replace(/ConstraintComponent$/, "")}`;
  }
}
