/**
 * The links of a session's model graph, read from its RDF: what each action takes as
 * parameters and which state variables its preconditions read and its effects change, what
 * each goal requires, what each constraint applies to, and what type each entity is.
 *
 * The formal part is read as the plan check reads it (src/formal/model.ts, PROTOCOL.md
 * "Formal models and verified solutions"), so the picture and the check agree. Two things
 * the formal part names are not items of their own, and are added as nodes so the links
 * have somewhere to go:
 * - a **type** (`mfr:entityType`, a parameter's `- Type`), one node per name (names compare
 *   case-insensitively, as in plans);
 * - a **predicate** or fluent an expression uses that no `mfr:StateVariable` declares (one
 *   that is declared links to that state variable instead).
 *
 * Pure. Edges join nodes that exist only, each (source, target, kind) once, and both the added
 * nodes and the edges are capped; what the caps left out is counted for the page to say.
 */
import { DataFactory, type Store, type Term } from "n3";
import { parseCondition } from "../formal/expression.js";
import { localName, readFormalModel } from "../formal/model.js";
import type { ItemKind } from "../rdf/items.js";
import { MFR, Mfr, RdfList } from "../base/vocab.js";
import { conditionMentions, effectMentions, noMentions, type Mentions } from "./model-mentions.js";

/** Nodes the formal part implies without being items: types and undeclared predicates. */
export type DerivedKind = "types" | "predicates";
export type NodeKind = ItemKind | DerivedKind;

export type EdgeKind = "typedAs" | "parameter" | "reads" | "changes" | "requires" | "appliesTo" | "link";

/** Edge kinds in the order they are kept when the edges are capped: the structure first. */
export const EDGE_KINDS: readonly EdgeKind[] = ["typedAs", "parameter", "changes", "reads", "requires", "appliesTo", "link"];

export interface ItemRef {
  id: string;
  term: Term;
  kind: ItemKind;
  label: string;
  agents: readonly string[];
}

export interface DerivedNode {
  id: string;
  label: string;
  kind: DerivedKind;
  /** The agents of the items that link to it, in the order met. */
  agents: string[];
  /** Which items link to it, by how: "read by: load, unload". */
  details: string[];
}

export interface TypedEdge {
  source: string;
  target: string;
  kind: EdgeKind;
  /** What the edge says, in words; for `link`, the property's local name. */
  label: string;
}

export interface LinkLimits {
  /** Added (type and predicate) nodes at most. */
  maxDerived: number;
  maxEdges: number;
}

export interface ModelLinks {
  derived: DerivedNode[];
  edges: TypedEdge[];
  /** Types and predicates not drawn because of `maxDerived`, and edges because of either cap. */
  leftOut: { derived: number; edges: number };
}

const EDGE_WORDS: Readonly<Record<EdgeKind, string>> = {
  typedAs: "is a",
  parameter: "takes",
  reads: "reads",
  changes: "changes",
  requires: "requires",
  appliesTo: "applies to",
  link: "link",
};

const APPLIES_TO = `${MFR}appliesTo`;
/** The PDDL root type: every object is one, so a parameter of it says nothing worth a link. */
const ROOT_TYPE = "object";
const MAX_LIST_ITEMS = 256;
const MAX_DETAIL_NAMES = 12;

/**
 * Ids of added nodes hold a space, which neither an IRI nor a blank-node key (`_:b0`) can:
 * they never collide with an item's id.
 */
export function typeNodeId(name: string): string {
  return `(type) ${name}`;
}
export function predicateNodeId(name: string): string {
  return `(predicate) ${name}`;
}

export function modelLinks(store: Store, items: ReadonlyMap<string, ItemRef>, limits: LinkLimits): ModelLinks {
  const builder = new LinkBuilder(items, limits);
  const entities = [...items.values()].filter((i) => i.kind === "entities");
  for (const entity of entities) {
    for (const type of entityTypes(store, entity.term)) builder.link(entity.id, builder.typeNode(type), "typedAs");
  }
  const formal = readFormalModel(store);
  const objects = new Map<string, string[]>(formal.objects.map((o) => [o.symbol, o.nodes.filter((n) => items.has(n))]));
  const declared = declaredPredicates(store, items);
  const targetsOf = (m: Mentions): string[] => [
    ...[...m.predicates].flatMap((p) => declared.get(p) ?? [builder.predicateNode(p)]),
    ...[...m.objects].flatMap((o) => objects.get(o) ?? []),
  ];

  for (const action of formal.actions) {
    if (!items.has(action.node)) continue;
    for (const p of action.parameters) if (p.type !== undefined && p.type !== ROOT_TYPE) builder.link(action.node, builder.typeNode(p.type), "parameter");
    const reads = noMentions();
    const changes = noMentions();
    for (const c of action.preconditions) conditionMentions(c, reads);
    for (const e of action.effects) effectMentions(e, changes, reads);
    for (const t of targetsOf(changes)) builder.link(action.node, t, "changes");
    for (const t of targetsOf(reads)) builder.link(action.node, t, "reads");
  }
  for (const goal of formal.goals) {
    if (!items.has(goal.node)) continue;
    for (const t of targetsOf(conditionMentions(goal.condition, noMentions()))) builder.link(goal.node, t, "requires");
  }
  for (const constraint of formal.constraints) {
    if (!items.has(constraint.node)) continue;
    for (const t of targetsOf(conditionMentions(constraint.condition, noMentions()))) builder.link(constraint.node, t, "appliesTo");
  }
  // What the RDF states directly: a parameter or appliesTo naming an item, any other property between two items.
  for (const item of items.values()) {
    for (const q of store.getQuads(item.term, null, null, null)) {
      const property = q.predicate.value;
      if (property === Mfr.hasParameter) {
        for (const o of listOrSelf(store, q.object as Term)) builder.link(item.id, nodeId(o), "parameter");
      } else if (property === APPLIES_TO) {
        builder.link(item.id, nodeId(q.object as Term), "appliesTo");
      } else {
        builder.link(item.id, nodeId(q.object as Term), "link", localName(property) || property);
      }
    }
  }
  return builder.finish();
}

/** Builds the added nodes and the edges, keeping to the caps; every edge joins two nodes that exist. */
class LinkBuilder {
  private readonly derived = new Map<string, DerivedNode>();
  private readonly refused = new Set<string>();
  private readonly edges = new Map<string, TypedEdge>();

  constructor(
    private readonly items: ReadonlyMap<string, ItemRef>,
    private readonly limits: LinkLimits,
  ) {}

  typeNode(name: string): string {
    return this.derive(typeNodeId(name.trim().toLowerCase()), name.trim(), "types");
  }

  predicateNode(name: string): string {
    return this.derive(predicateNodeId(name), name, "predicates");
  }

  private derive(id: string, label: string, kind: DerivedKind): string {
    if (!this.derived.has(id) && !this.refused.has(id)) {
      if (this.derived.size < this.limits.maxDerived) this.derived.set(id, { id, label, kind, agents: [], details: [] });
      else this.refused.add(id);
    }
    return id;
  }

  /** Adds the edge when both ends are nodes and it is new; an edge to a refused node is dropped. */
  link(source: string, target: string, kind: EdgeKind, label = EDGE_WORDS[kind]): void {
    if (source === target || !this.items.has(source)) return;
    if (!this.items.has(target) && !this.derived.has(target)) return;
    const key = `${source}\u0000${target}\u0000${kind}\u0000${kind === "link" ? label : ""}`;
    if (!this.edges.has(key)) this.edges.set(key, { source, target, kind, label });
  }

  finish(): ModelLinks {
    const rank = (k: EdgeKind): number => EDGE_KINDS.indexOf(k);
    const all = [...this.edges.values()].sort((a, b) => rank(a.kind) - rank(b.kind));
    const edges = all.slice(0, this.limits.maxEdges);
    const labels = (ids: readonly string[]): string => {
      const names = ids.map((id) => this.items.get(id)?.label ?? id);
      return names.length > MAX_DETAIL_NAMES ? `${names.slice(0, MAX_DETAIL_NAMES).join(", ")}, … (${names.length})` : names.join(", ");
    };
    const linked = new Set(edges.map((e) => e.target));
    // A type or predicate is added only to be linked to: one whose links the cap dropped goes too.
    const derived = [...this.derived.values()].filter((n) => linked.has(n.id));
    for (const node of derived) {
      const incoming = edges.filter((e) => e.target === node.id);
      for (const e of incoming) for (const a of this.items.get(e.source)?.agents ?? []) if (!node.agents.includes(a)) node.agents.push(a);
      for (const kind of EDGE_KINDS) {
        const by = incoming.filter((e) => e.kind === kind).map((e) => e.source);
        if (by.length > 0) node.details.push(`${DETAIL_WORDS[kind]}: ${labels(by)}`);
      }
    }
    return { derived, edges, leftOut: { derived: this.refused.size + this.derived.size - derived.length, edges: all.length - edges.length } };
  }
}

/** How a derived node names the items that link to it, per kind of link. */
const DETAIL_WORDS: Readonly<Record<EdgeKind, string>> = {
  typedAs: "objects",
  parameter: "taken by",
  reads: "read by",
  changes: "changed by",
  requires: "required by",
  appliesTo: "constrained by",
  link: "linked from",
};

/** An entity's `mfr:entityType` values (a literal, or an IRI's local name), as the plan check reads them. */
function entityTypes(store: Store, entity: Term): string[] {
  return store
    .getObjects(entity, DataFactory.namedNode(Mfr.entityType), null)
    .map((o) => (o.termType === "Literal" ? o.value : localName(o.value)).trim())
    .filter((t) => t !== "");
}

/**
 * Predicate or fluent name → the state variables that declare it: the first name in a state
 * variable's `mfr:expression` (`(load truck1)` declares `load`), else its `mfr:symbol`.
 */
function declaredPredicates(store: Store, items: ReadonlyMap<string, ItemRef>): Map<string, string[]> {
  const declared = new Map<string, string[]>();
  for (const item of items.values()) {
    if (item.kind !== "stateVariables") continue;
    const name = declaredName(store, item.term);
    if (name === undefined) continue;
    declared.set(name, [...(declared.get(name) ?? []), item.id]);
  }
  return declared;
}

function declaredName(store: Store, term: Term): string | undefined {
  for (const o of store.getObjects(term, DataFactory.namedNode(Mfr.expression), null)) {
    if (o.termType !== "Literal") continue;
    const parsed = parseCondition(o.value);
    if (parsed.kind !== "formal") continue;
    const [first] = conditionMentions(parsed.value, noMentions()).predicates;
    if (first !== undefined) return first;
  }
  const [symbol] = store.getObjects(term, DataFactory.namedNode(Mfr.symbol), null);
  return symbol?.termType === "Literal" && symbol.value.trim() !== "" ? symbol.value.trim().toLowerCase() : undefined;
}

/** The items of an RDF list (bounded, cycles stopped), or the term itself when it is not a list. */
function listOrSelf(store: Store, head: Term): Term[] {
  const first = DataFactory.namedNode(RdfList.first);
  const rest = DataFactory.namedNode(RdfList.rest);
  if (store.getObjects(head, first, null).length === 0) return [head];
  const found: Term[] = [];
  const seen = new Set<string>();
  for (let node: Term | undefined = head; node && node.value !== RdfList.nil && found.length < MAX_LIST_ITEMS; node = store.getObjects(node, rest, null)[0]) {
    if (seen.has(node.value)) break;
    seen.add(node.value);
    found.push(...store.getObjects(node, first, null));
  }
  return found;
}

function nodeId(term: Term): string {
  return term.termType === "BlankNode" ? `_:${term.value}` : term.value;
}
