/**
 * The kinds of typed item a contribution adds to a problem model, and how to find them.
 * Merging (ProblemModel links) and per-agent counts both read this one table.
 */
import { DataFactory } from "n3";
import type { Term } from "n3";
import type { QuadQueries } from "./quad-store.js";
import { Mfr, RDF_TYPE, RDFS } from "../base/vocab.js";

/** The five kinds of typed item, named as ItemCounts' fields (session/types.ts). */
export type ItemKind = "entities" | "stateVariables" | "actions" | "constraints" | "goals";

/** One row of ITEM_KINDS: how an item of a kind is recognised (its class) and linked from the ProblemModel. */
export interface ItemKindInfo {
  kind: ItemKind;
  /** The rdf:type that marks an item of this kind. */
  classIri: string;
  /** The property that links the coordinator's ProblemModel node to such an item. */
  linkIri: string;
}

export const ITEM_KINDS: readonly ItemKindInfo[] = [
  { kind: "entities", classIri: Mfr.Entity, linkIri: Mfr.hasEntity },
  { kind: "stateVariables", classIri: Mfr.StateVariable, linkIri: Mfr.hasStateVariable },
  { kind: "actions", classIri: Mfr.Action, linkIri: Mfr.hasAction },
  { kind: "constraints", classIri: Mfr.Constraint, linkIri: Mfr.hasConstraint },
  { kind: "goals", classIri: Mfr.Goal, linkIri: Mfr.hasGoal },
];

const rdfType = DataFactory.namedNode(RDF_TYPE);
const subClassOf = DataFactory.namedNode(`${RDFS}subClassOf`);

/**
 * The instances of `classIri` typed in `graph` (any graph when omitted), counting instances
 * of its subclasses too: an agent may declare `ex:Truck rdfs:subClassOf mfr:Entity`, and
 * SHACL's sh:targetClass sees those instances, so the model must link them as well.
 * Subclass axioms are read from every graph, since another agent may have declared them.
 */
export function instancesOf(store: QuadQueries, classIri: string, graph?: Term): Term[] {
  const found = new Map<string, Term>();
  for (const cls of classWithSubclasses(store, classIri)) {
    for (const subject of store.getSubjects(rdfType, cls, graph ?? null)) found.set(keyOf(subject), subject);
  }
  return [...found.values()];
}

function classWithSubclasses(store: QuadQueries, classIri: string): Term[] {
  const seen = new Map<string, Term>();
  const pending: Term[] = [DataFactory.namedNode(classIri)];
  for (let cls = pending.pop(); cls !== undefined; cls = pending.pop()) {
    const key = keyOf(cls);
    if (seen.has(key)) continue;
    seen.set(key, cls);
    pending.push(...store.getSubjects(subClassOf, cls, null));
  }
  return [...seen.values()];
}

function keyOf(term: Term): string {
  return `${term.termType}:${term.value}`;
}
