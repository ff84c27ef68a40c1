/**
 * A session's model as a graph for the session page: one node per model item (entity, state
 * variable, action, constraint, goal), plus the types and undeclared predicates its formal
 * part names; typed edges from each action to what it takes, reads and changes, from each goal
 * to what it requires, from each constraint to what it applies to and from each entity to its
 * type (./model-links.ts); each node attributed to the agents whose contributions type it, and
 * marked with the latest validation's findings on it.
 *
 * Preconditions and effects are not nodes: they belong to one action and have no identity of
 * their own (blank nodes); their expressions are listed with the action. Pure; the
 * contributions are parsed again here (bounded by the session's own triple limit) because
 * the session keeps each agent's Turtle, not the merged store.
 */
import { DataFactory, Store, type Quad, type Term } from "n3";
import type { ContributionGraph } from "../rdf/merge.js";
import { ITEM_KINDS, instancesOf } from "../rdf/items.js";
import { Mfr, RDFS, SCHEMA_HTTP, SCHEMA_HTTPS } from "../base/vocab.js";
import type { Session, Severity, ValidationFinding } from "../session/types.js";
import { contributionGraphs } from "../store/model-trig.js";
import { EDGE_STYLES, type EdgeStyle } from "./graph-legend.js";
import { modelLinks, type EdgeKind, type ItemRef, type NodeKind } from "./model-links.js";

export interface GraphFinding {
  severity: Severity;
  message: string;
  path?: string;
}

export interface GraphNode {
  /** The item's IRI, or `_:label` for a blank node (as validation findings name it). */
  id: string;
  label: string;
  kind: NodeKind;
  /** Agents whose contributions type this item, earliest contributor first. */
  agents: string[];
  /** Preconditions, effects and expressions, one line each. */
  details: string[];
  findings: GraphFinding[];
}

export interface GraphEdge {
  source: string;
  target: string;
  kind: EdgeKind;
  /** What the edge says in words ("reads"); for a `link`, the property's local name. */
  label: string;
}

export interface ModelGraph {
  /** Every contributor, earliest first, with the colour its nodes are drawn in. */
  agents: Array<{ name: string; colour: string }>;
  /** How each kind of edge is drawn (the legend's table). */
  edgeStyles: readonly EdgeStyle[];
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Set when the model is too large to draw (or did not parse): why there is no drawing. */
  note?: string;
  /** Latest findings on no drawn node (the coordinator's own node, a literal, …). */
  unplaced: ValidationFinding[];
}

/** Past this many items the page shows the tables and a note instead of a drawing. */
export const MAX_DRAWN_ITEMS = 400;
/** Edges drawn at most; the rest are counted in the note. Nodes (items, types, predicates) are capped at MAX_DRAWN_ITEMS. */
export const MAX_DRAWN_EDGES = 2_000;

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
    return { agents, edgeStyles: EDGE_STYLES, nodes: [], edges: [], unplaced: findings, note: `The model has ${triples} triples: too large to draw here; the tables and the export have it all.` };
  }
  const drawn = itemGraph(contributionGraphs(session).graphs);
  const unplaced: ValidationFinding[] = [];
  const byId = new Map(drawn.nodes.map((n) => [n.id, n]));
  for (const f of findings) {
    const node = byId.get(nodeKey(f.focusNode));
    if (node) node.findings.push({ severity: f.severity, message: f.message, ...(f.path ? { path: f.path } : {}) });
    else unplaced.push(f);
  }
  return { agents, edgeStyles: EDGE_STYLES, nodes: drawn.nodes, edges: drawn.edges, unplaced, ...(drawn.note ? { note: drawn.note } : {}) };
}

export interface ItemGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  note?: string;
}

export interface GraphLimits {
  maxNodes: number;
  maxEdges: number;
}

/**
 * The nodes and typed edges of a model, from its contributions' quads: the items first (in
 * the order the contributions and ITEM_KINDS give), then the types and predicates the links
 * added. Past `maxNodes` items there is no drawing, only a note; types, predicates and edges
 * past the caps are left out, and the note says how many.
 */
export function itemGraph(graphs: readonly ContributionGraph[], limits: GraphLimits = { maxNodes: MAX_DRAWN_ITEMS, maxEdges: MAX_DRAWN_EDGES }): ItemGraph {
  const store = new Store();
  for (const g of graphs) store.addQuads(g.quads as Quad[]);

  const items = new Map<string, GraphNode & ItemRef>();
  for (const g of graphs) {
    const graph = DataFactory.namedNode(g.graphIri);
    for (const { kind, classIri } of ITEM_KINDS) {
      for (const term of instancesOf(store, classIri, graph)) {
        const id = nodeKey(term);
        const node = items.get(id) ?? { id, term, label: labelOf(store, term), kind, agents: [], details: detailsOf(store, term), findings: [] };
        if (!node.agents.includes(g.agent)) node.agents.push(g.agent);
        items.set(id, node);
      }
    }
  }
  if (items.size > limits.maxNodes) {
    return { nodes: [], edges: [], note: `The model has ${items.size} items, more than the ${limits.maxNodes} drawn here; the tables and the export have them all.` };
  }
  const links = modelLinks(store, items, { maxDerived: limits.maxNodes - items.size, maxEdges: limits.maxEdges });
  const nodes: GraphNode[] = [
    ...[...items.values()].map(({ id, label, kind, agents, details, findings }) => ({ id, label, kind, agents, details, findings })),
    ...links.derived.map((d) => ({ ...d, findings: [] })),
  ];
  const left: string[] = [];
  if (links.leftOut.derived > 0) left.push(`${links.leftOut.derived} types and predicates`);
  if (links.leftOut.edges > 0) left.push(`${links.leftOut.edges} links`);
  const note = left.length > 0 ? `Not drawn: ${left.join(" and ")} (the graph shows at most ${limits.maxNodes} nodes and ${limits.maxEdges} links).` : undefined;
  return { nodes, edges: links.edges, ...(note ? { note } : {}) };
}
