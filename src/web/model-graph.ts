/**
 * A session's model as a graph for the session page: one node per model item (entity, state
 * variable, action, constraint, goal), an edge wherever an item's statement points at another
 * item (an action's parameter, a constraint's subject, …), each node attributed to the agents
 * whose contributions type it, and marked with the latest validation's findings on it.
 *
 * Preconditions and effects are not nodes: they belong to one action and have no identity of
 * their own (blank nodes); their expressions are listed with the action. Pure; the
 * contributions are parsed again here (bounded by the session's own triple limit) because
 * the session keeps each agent's Turtle, not the merged store.
 */
import { DataFactory, Store, type Quad, type Term } from "n3";
import { ITEM_KINDS, instancesOf, type ItemKind } from "../model/items.js";
import { Mfr, RDFS, SCHEMA_HTTP, SCHEMA_HTTPS } from "../protocol/vocab.js";
import type { Session, Severity, ValidationFinding } from "../session/types.js";
import { contributionGraphs } from "../store/model-trig.js";

export interface GraphFinding {
  severity: Severity;
  message: string;
  path?: string;
}

export interface GraphNode {
  /** The item's IRI, or `_:label` for a blank node (as validation findings name it). */
  id: string;
  label: string;
  kind: ItemKind;
  /** Agents whose contributions type this item, earliest contributor first. */
  agents: string[];
  /** Preconditions, effects and expressions, one line each. */
  details: string[];
  findings: GraphFinding[];
}

export interface GraphEdge {
  source: string;
  target: string;
  /** The property, by its local name. */
  label: string;
}

export interface ModelGraph {
  /** Every contributor, earliest first, with the colour its nodes are drawn in. */
  agents: Array<{ name: string; colour: string }>;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Set when the model is too large to draw (or did not parse): why there is no drawing. */
  note?: string;
  /** Latest findings on no drawn node (the coordinator's own node, a literal, …). */
  unplaced: ValidationFinding[];
}

/** Past this many items the page shows the tables and a note instead of a drawing. */
export const MAX_DRAWN_ITEMS = 400;
const MAX_EDGES = 2_000;

/** Colours that stay apart for the common kinds of colour blindness (Okabe–Ito), then greys. */
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

export function colourOf(index: number): string {
  return PALETTE[index % PALETTE.length] ?? "#777777";
}

const NAME_PROPERTIES = [`${SCHEMA_HTTP}name`, `${SCHEMA_HTTPS}name`, `${RDFS}label`, Mfr.actionName, Mfr.symbol];
const DETAIL_LINKS: ReadonlyArray<[string, string]> = [
  [Mfr.hasPrecondition, "pre"],
  [Mfr.hasEffect, "effect"],
];
const DETAIL_VALUES: ReadonlyArray<[string, string]> = [
  [Mfr.expression, "expression"],
  [Mfr.constraintExpression, "constraint"],
  [Mfr.initialState, "initial"],
];

/** How findings and nodes name an item: the IRI, or `_:label` without the description validation adds. */
export function nodeKey(term: Term | string): string {
  if (typeof term === "string") return term.startsWith("_:") ? (term.split(" ")[0] ?? term) : term;
  return term.termType === "BlankNode" ? `_:${term.value}` : term.value;
}

function localName(iri: string): string {
  return iri.replace(/^.*[#/]/, "") || iri;
}

function labelOf(store: Store, term: Term): string {
  for (const p of NAME_PROPERTIES) {
    const [name] = store.getObjects(term, DataFactory.namedNode(p), null);
    if (name?.termType === "Literal" && name.value.trim() !== "") return name.value;
  }
  return term.termType === "BlankNode" ? `_:${term.value}` : localName(term.value);
}

function detailsOf(store: Store, term: Term): string[] {
  const lines: string[] = [];
  for (const [property, word] of DETAIL_VALUES) {
    for (const o of store.getObjects(term, DataFactory.namedNode(property), null)) if (o.termType === "Literal") lines.push(`${word}: ${o.value}`);
  }
  for (const [link, word] of DETAIL_LINKS) {
    for (const part of store.getObjects(term, DataFactory.namedNode(link), null)) {
      for (const o of store.getObjects(part, DataFactory.namedNode(Mfr.expression), null)) lines.push(`${word}: ${o.value}`);
    }
  }
  return lines;
}

/** The findings of the latest validation that ran to the end, if any. */
export function latestFindings(session: Session): ValidationFinding[] {
  for (let i = session.validations.length - 1; i >= 0; i--) {
    const outcome = session.validations[i]?.outcome;
    if (outcome?.ok) return outcome.analysis.findings;
  }
  return [];
}

export function modelGraph(session: Session): ModelGraph {
  const contributions = Object.values(session.contributions).sort((a, b) => a.receivedAt - b.receivedAt);
  const agents = contributions.map((c, i) => ({ name: c.agent, colour: colourOf(i) }));
  const findings = latestFindings(session);
  const triples = contributions.reduce((n, c) => n + c.tripleCount, 0);
  if (triples > MAX_DRAWN_ITEMS * 20) {
    return { agents, nodes: [], edges: [], unplaced: findings, note: `The model has ${triples} triples: too large to draw here; the tables and the export have it all.` };
  }
  const { graphs } = contributionGraphs(session);
  const store = new Store();
  for (const g of graphs) store.addQuads(g.quads as Quad[]);

  const nodes = new Map<string, GraphNode & { term: Term }>();
  for (const g of graphs) {
    const graph = DataFactory.namedNode(g.graphIri);
    for (const { kind, classIri } of ITEM_KINDS) {
      for (const term of instancesOf(store, classIri, graph)) {
        const id = nodeKey(term);
        const node = nodes.get(id) ?? { id, term, label: labelOf(store, term), kind, agents: [], details: detailsOf(store, term), findings: [] };
        if (!node.agents.includes(g.agent)) node.agents.push(g.agent);
        nodes.set(id, node);
      }
    }
  }
  if (nodes.size > MAX_DRAWN_ITEMS) {
    return { agents, nodes: [], edges: [], unplaced: findings, note: `The model has ${nodes.size} items, more than the ${MAX_DRAWN_ITEMS} drawn here; the tables and the export have them all.` };
  }

  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  for (const node of nodes.values()) {
    for (const q of store.getQuads(node.term, null, null, null)) {
      const target = nodes.get(nodeKey(q.object as Term));
      const key = `${node.id}\u0000${q.predicate.value}\u0000${target?.id ?? ""}`;
      if (!target || target.id === node.id || seen.has(key) || edges.length >= MAX_EDGES) continue;
      seen.add(key);
      edges.push({ source: node.id, target: target.id, label: localName(q.predicate.value) });
    }
  }

  const unplaced: ValidationFinding[] = [];
  for (const f of findings) {
    const node = nodes.get(nodeKey(f.focusNode));
    if (node) node.findings.push({ severity: f.severity, message: f.message, ...(f.path ? { path: f.path } : {}) });
    else unplaced.push(f);
  }
  return { agents, nodes: [...nodes.values()].map(({ term: _term, ...node }) => node), edges, unplaced };
}
