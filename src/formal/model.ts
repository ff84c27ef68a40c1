/**
 * The formal model read from the quads of a validated merged model, following docs/protocol.md
 * ("Formal models and verified solutions"): objects, actions, initial state, constraints and
 * goals. Literals that do not parse become findings (with the graph that holds them, so the
 * caller can attribute them to an agent); free-text literals are listed as not
 * machine-checkable and never guessed at.
 *
 * Where docs/protocol.md is silent, this reader decides:
 * - An entity that is a blank node without `mfr:symbol` has no name a plan could use: skipped.
 *   Two entity nodes with one symbol are one object, with the union of their types.
 * - Types come from `mfr:entityType` only (not rdf:type); `object` matches every entity.
 * - Actions are the nodes with an `mfr:actionName`. One name on several nodes is ambiguous:
 *   no step naming it is simulated. An action with any free-text or broken precondition,
 *   effect or parameter, or with none at all, is kept out of simulation (its `informal`
 *   reasons say why) rather than simulated on its formal half.
 * - A variable that is neither a parameter nor quantified is a finding, positioned at its
 *   first occurrence; so is a free variable in a constraint or goal.
 * - Constraints are found by `mfr:constraintExpression` whatever their type; goals are
 *   `mfr:Goal` nodes' `mfr:expression`; a StateVariable's `mfr:expression` is checked for
 *   syntax only. Precondition/Effect nodes no action links to are not read.
 * - An initial-state `(not …)` adds nothing (closed world); several forms in one literal are
 *   all read. The same triple in two contributions counts once.
 */
import type { QuadQueries } from "../rdf/quad-store.js";
import type { Quad, Term } from "@rdfjs/types";
import { Mfr, RDF_TYPE, RdfList } from "../base/vocab.js";
import { parseCondition, parseEffect, parseInitialState, parseParameters } from "./expression.js";
import type { Condition, Effect, InitialFact, ParseResult, TypedVariable } from "./expression.js";
import { conditionVariables, effectVariables } from "./variables.js";


/** An RDF list longer than this is not read further (a parameter list is short). */
const MAX_LIST_LENGTH = 256;

/** One object of the planning problem: an entity, by its symbol. */
export interface FormalObject {
  /** Lower-cased: symbols compare case-insensitively. */
  symbol: string;
  /** Lower-cased `mfr:entityType` values; empty when the entity has none. */
  types: string[];
  /** The entity nodes that carry this symbol (IRIs or `_:` blank-node labels). */
  nodes: string[];
}

/** An action a plan step may name. */
export interface FormalAction {
  /** Lower-cased `mfr:actionName`. */
  name: string;
  node: string;
  parameters: TypedVariable[];
  preconditions: Condition[];
  effects: Effect[];
  /** Why a plan step naming this action cannot be simulated; empty when it can. */
  informal: string[];
}

/** A formal constraint or goal. */
export interface FormalStatement {
  node: string;
  text: string;
  condition: Condition;
}

/** A literal that looks formal but does not parse (or uses a variable nothing binds). */
export interface ExpressionFinding {
  node: string;
  predicate: string;
  /** The named graph holding the literal: one contribution, hence one agent. */
  graph: string;
  text: string;
  message: string;
  line: number;
  column: number;
}

/** A free-text part: allowed, but nothing the coordinator can check. */
export interface InformalPart {
  node: string;
  predicate: string;
  graph: string;
  text: string;
}

export interface FormalModel {
  /** Sorted by symbol. */
  objects: FormalObject[];
  /** Every node with an `mfr:actionName`, sorted by name then node. */
  actions: FormalAction[];
  initialState: InitialFact[];
  constraints: FormalStatement[];
  goals: FormalStatement[];
  findings: ExpressionFinding[];
  notMachineCheckable: InformalPart[];
}

/** The quads of a model, in the order they were written when the caller has that order. */
export type ModelQuads = readonly Quad[] | QuadQueries;

/**
 * Reads the formal model out of a validated merged model. Pass the contributions' quads as
 * parsed (an array) when repeated `mfr:hasParameter` literals must keep their text order;
 * a store orders them by when each term was first seen, which usually agrees.
 */
export function readFormalModel(input: ModelQuads): FormalModel {
  const reader = new Reader(new QuadIndex("getQuads" in input ? input.getQuads(null, null, null, null) : input));
  const { graph } = reader;
  const closed = (c: Condition): string[] => conditionVariables(c, new Set());
  const statements = (nodes: Term[], predicate: string): FormalStatement[] =>
    nodes.flatMap((node) =>
      reader.formalValues(node, predicate, parseCondition, closed).map(({ value, text }) => ({ node: nodeName(node), text, condition: value })),
    );

  const objects = readObjects(graph);
  const initialState = graph
    .subjectsWith(Mfr.initialState)
    .flatMap((node) => reader.formalValues(node, Mfr.initialState, parseInitialState).flatMap((v) => v.value));
  // Constraints are found by their predicate, whatever their rdf:type: docs/protocol.md keys them on it.
  const constraints = statements(graph.subjectsWith(Mfr.constraintExpression), Mfr.constraintExpression);
  const goals = statements(graph.instances(Mfr.Goal), Mfr.expression);
  // A state variable's expression declares a predicate or fluent: checked for syntax only.
  for (const node of graph.instances(Mfr.StateVariable)) reader.formalValues(node, Mfr.expression, parseCondition);
  const actions = readActions(reader);
  return { objects, actions, initialState, constraints, goals, findings: reader.findings, notMachineCheckable: reader.informal };
}

/** Walks the literals of the model, sorting each into a value, a finding or a free-text part. */
class Reader {
  readonly findings: ExpressionFinding[] = [];
  readonly informal: InformalPart[] = [];
  constructor(readonly graph: QuadIndex) {}

  /** Parses every literal of `predicate` on `node`; `unbound` lists variables nothing binds. */
  formalValues<T>(node: Term, predicate: string, parse: (text: string) => ParseResult<T>, unbound?: (value: T) => string[]): { value: T; text: string }[] {
    const values: { value: T; text: string }[] = [];
    for (const q of this.graph.objects(node, predicate)) {
      if (q.object.termType !== "Literal") continue;
      const text = q.object.value;
      const where = { node: nodeName(node), predicate, graph: q.graph.value, text };
      const outcome = parse(text);
      if (outcome.kind === "free-text") {
        this.informal.push(where);
        continue;
      }
      if (outcome.kind === "error") {
        this.findings.push({ ...where, ...outcome.error });
        continue;
      }
      const free = unbound?.(outcome.value) ?? [];
      if (free.length > 0) this.findings.push({ ...where, ...unboundFinding(text, free) });
      else values.push({ value: outcome.value, text });
    }
    return values;
  }
}

function readObjects(graph: QuadIndex): FormalObject[] {
  const bySymbol = new Map<string, FormalObject>();
  for (const node of graph.instances(Mfr.Entity)) {
    // An entity with neither mfr:symbol nor an IRI (a blank node) has no name a plan could use.
    const symbol = (graph.literals(node, Mfr.symbol)[0] ?? (node.termType === "NamedNode" ? localName(node.value) : "")).trim().toLowerCase();
    if (symbol === "") continue;
    const types = graph
      .objects(node, Mfr.entityType)
      .map((q) => (q.object.termType === "Literal" ? q.object.value : localName(q.object.value)).trim().toLowerCase())
      .filter((t) => t !== "");
    // Two entity nodes with one symbol are one object to a plan: their types add up.
    const known = bySymbol.get(symbol) ?? { symbol, types: [], nodes: [] };
    for (const t of types) if (!known.types.includes(t)) known.types.push(t);
    known.nodes.push(nodeName(node));
    bySymbol.set(symbol, known);
  }
  return [...bySymbol.values()].sort((a, b) => compare(a.symbol, b.symbol));
}

function readActions(reader: Reader): FormalAction[] {
  const { graph } = reader;
  const actions: FormalAction[] = [];
  for (const node of graph.subjectsWith(Mfr.actionName)) {
    const name = (graph.literals(node, Mfr.actionName)[0] ?? "").trim().toLowerCase();
    if (name === "") continue;
    const reasons: string[] = [];
    const parameters = readParameters(reader, node, reasons);
    const bound = new Set(parameters.map((p) => p.name));
    const parts = <T>(predicate: string, parse: (text: string) => ParseResult<T>, unbound: (value: T) => string[]): { values: T[]; all: number } => {
      const linked = graph.objects(node, predicate);
      // The usual shape is a Precondition/Effect node holding mfr:expression; a literal given
      // directly is read too, since it can only mean the expression itself.
      const values = reader.formalValues(node, predicate, parse, unbound).map((v) => v.value);
      let all = linked.filter((q) => q.object.termType === "Literal").length;
      for (const q of linked) {
        if (q.object.termType === "Literal") continue;
        all += graph.literals(q.object, Mfr.expression).length;
        values.push(...reader.formalValues(q.object, Mfr.expression, parse, unbound).map((v) => v.value));
      }
      return { values, all };
    };
    const pre = parts(Mfr.hasPrecondition, parseCondition, (c) => conditionVariables(c, bound));
    const eff = parts(Mfr.hasEffect, parseEffect, (e) => effectVariables(e, bound));
    const formal = pre.values.length + eff.values.length;
    const all = pre.all + eff.all;
    // A free-text part may be what makes a later step applicable: simulating without it
    // could call a good plan invalid, so such an action is not simulated at all.
    if (formal < all) reasons.push(`${all - formal} of its ${all} preconditions and effects are free text or do not parse`);
    // An action that states nothing would let any plan through.
    if (all === 0) reasons.push("it states no precondition or effect");
    actions.push({ name, node: nodeName(node), parameters, preconditions: pre.values, effects: eff.values, informal: reasons });
  }
  actions.sort((a, b) => compare(a.name, b.name) || compare(a.node, b.node));
  // One name on several action nodes leaves a plan step ambiguous: none of them is guessed.
  // Grouped once: comparing every action with every other was quadratic (35 s for 27k actions).
  const byName = new Map<string, FormalAction[]>();
  for (const a of actions) {
    const group = byName.get(a.name);
    if (group) group.push(a);
    else byName.set(a.name, [a]);
  }
  for (const same of byName.values()) {
    if (same.length < 2) continue;
    const shown = same.slice(0, 10).map((b) => b.node).join(", ");
    for (const a of same) a.informal.push(`the name "${a.name}" is defined by ${same.length} actions (${shown}${same.length > 10 ? ", …" : ""})`);
  }
  return actions;
}

function readParameters(reader: Reader, node: Term, reasons: string[]): TypedVariable[] {
  const { graph } = reader;
  const parameters: TypedVariable[] = [];
  for (const q of graph.objects(node, Mfr.hasParameter)) {
    const items = q.object.termType === "Literal" ? [q] : graph.listItems(q.object);
    for (const item of items ?? [q]) {
      const where = { node: nodeName(node), predicate: Mfr.hasParameter, graph: item.graph.value, text: item.object.value };
      const parsed = item.object.termType === "Literal" ? parseParameters(item.object.value) : ({ kind: "free-text" } as const);
      if (parsed.kind === "formal") {
        parameters.push(...parsed.value);
        continue;
      }
      // An entity IRI or a plain word (as existing peers write them) names no variable.
      if (parsed.kind === "error") reader.findings.push({ ...where, ...parsed.error });
      else reader.informal.push(where);
      reasons.push(`its parameter ${JSON.stringify(item.object.value)} is not a ?variable`);
    }
  }
  const seen = new Set<string>();
  for (const p of parameters) {
    if (seen.has(p.name)) reasons.push(`its parameter ${p.name} appears twice`);
    seen.add(p.name);
  }
  return parameters;
}

function unboundFinding(text: string, unbound: string[]): { message: string; line: number; column: number } {
  const first = unbound[0] as string;
  const at = text.toLowerCase().indexOf(first);
  const before = text.slice(0, Math.max(0, at));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  const list = unbound.join(", ");
  const verb = unbound.length === 1 ? "is neither a parameter" : "are neither parameters";
  return { message: `${list} ${verb} nor bound by forall/exists`, line, column };
}

/** The local name of an IRI: what follows its last `/` or `#`. */
export function localName(iri: string): string {
  const cut = Math.max(iri.lastIndexOf("/"), iri.lastIndexOf("#"));
  return iri.slice(cut + 1);
}

function nodeName(term: Term): string {
  return term.termType === "BlankNode" ? `_:${term.value}` : term.value;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every predicate the reader looks up; keep in step with the look-ups above. */
const READ_PREDICATES: ReadonlySet<string> = new Set([
  RDF_TYPE,
  Mfr.symbol,
  Mfr.entityType,
  Mfr.actionName,
  Mfr.hasParameter,
  Mfr.hasPrecondition,
  Mfr.hasEffect,
  Mfr.expression,
  Mfr.constraintExpression,
  Mfr.initialState,
  RdfList.first,
  RdfList.rest,
]);
/** The classes the reader asks for instances of. */
const READ_CLASSES: ReadonlySet<string> = new Set([Mfr.Entity, Mfr.Goal, Mfr.StateVariable]);

/**
 * Whether `readFormalModel` looks at this quad at all. Most of a model (names, labels,
 * comments) it does not, so a caller that keeps quads only for it can keep just these.
 */
export function isReadByFormalModel(q: Quad): boolean {
  if (!READ_PREDICATES.has(q.predicate.value)) return false;
  return q.predicate.value !== RDF_TYPE || READ_CLASSES.has(q.object.value);
}

/**
 * Statements a subject may have, for one predicate, before they are deduplicated by key
 * rather than by comparing each new one with those before: real models have a handful, and
 * a scan of a handful is cheaper than a key per quad; the keys keep a subject with a hundred
 * thousand values linear.
 */
const SCAN_AT_MOST = 16;

/** One subject's statements for one predicate, in order, each triple once. */
class Statements {
  readonly quads: Quad[] = [];
  private keys: Set<string> | undefined;

  /** Adds `q` unless the same object is already there (stated by another graph). */
  add(q: Quad): void {
    if (this.keys === undefined && this.quads.length < SCAN_AT_MOST) {
      if (this.quads.some((seen) => seen.object.equals(q.object))) return;
      this.quads.push(q);
      return;
    }
    this.keys ??= new Set(this.quads.map((seen) => termKey(seen.object)));
    const key = termKey(q.object);
    if (this.keys.has(key)) return;
    this.keys.add(key);
    this.quads.push(q);
  }
}

/** One subject of the index: its term (the first seen), when it first appeared, its statements by predicate. */
interface Subject {
  term: Term;
  at: number;
  predicates: Map<string, Statements>;
}

/** The few look-ups the reader needs, over quads kept in their given order and deduplicated across graphs. */
class QuadIndex {
  /** Subjects by term type, then value (no key string is built per look-up). */
  private readonly subjects = new Map<string, Map<string, Subject>>();
  /** Predicate → the subjects that have it. */
  private readonly subjectsByPredicate = new Map<string, Subject[]>();
  /** Class → the subjects typed with it. */
  private readonly instancesByClass = new Map<string, Subject[]>();
  private subjectCount = 0;

  constructor(quads: readonly Quad[]) {
    for (const q of quads) {
      // Names, labels, comments and the coordinator's links are most of a model and nothing
      // the reader looks at: left out before any key is built (a third of the time at 1M).
      if (!isReadByFormalModel(q)) continue;
      const subject = this.subjectOf(q.subject);
      const predicate = q.predicate.value;
      let statements = subject.predicates.get(predicate);
      if (statements === undefined) {
        statements = new Statements();
        subject.predicates.set(predicate, statements);
        push(this.subjectsByPredicate, predicate, subject);
      }
      const before = statements.quads.length;
      // The same triple in two contributions is one fact; the first graph keeps it.
      statements.add(q);
      if (predicate === RDF_TYPE && statements.quads.length > before) push(this.instancesByClass, q.object.value, subject);
    }
  }

  objects(subject: Term, predicate: string): Quad[] {
    return this.subjects.get(subject.termType)?.get(subject.value)?.predicates.get(predicate)?.quads ?? [];
  }

  literals(subject: Term, predicate: string): string[] {
    return this.objects(subject, predicate).flatMap((q) => (q.object.termType === "Literal" ? [q.object.value] : []));
  }

  /** Subjects with `predicate`, in the order they first appeared (as the reader always listed them). */
  subjectsWith(predicate: string): Term[] {
    return inOrderSeen(this.subjectsByPredicate.get(predicate) ?? []);
  }

  instances(classIri: string): Term[] {
    return inOrderSeen(this.instancesByClass.get(classIri) ?? []);
  }

  private subjectOf(term: Term): Subject {
    let ofType = this.subjects.get(term.termType);
    if (ofType === undefined) {
      ofType = new Map();
      this.subjects.set(term.termType, ofType);
    }
    let subject = ofType.get(term.value);
    if (subject === undefined) {
      subject = { term, at: this.subjectCount++, predicates: new Map() };
      ofType.set(term.value, subject);
    }
    return subject;
  }

  /** The items of an RDF list, or undefined when `head` is not one. */
  listItems(head: Term): Quad[] | undefined {
    if (head.termType === "NamedNode" && head.value === RdfList.nil) return [];
    const items: Quad[] = [];
    const visited = new Set<string>();
    let node: Term | undefined = head;
    while (node !== undefined && !(node.termType === "NamedNode" && node.value === RdfList.nil)) {
      if (visited.has(termKey(node)) || items.length >= MAX_LIST_LENGTH) break;
      visited.add(termKey(node));
      const first = this.objects(node, RdfList.first)[0];
      if (first === undefined) return items.length === 0 ? undefined : items;
      items.push(first);
      node = this.objects(node, RdfList.rest)[0]?.object;
    }
    return items;
  }
}

function push(map: Map<string, Subject[]>, key: string, subject: Subject): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [subject]);
  else list.push(subject);
}

/** A subject may gain a predicate late: sorted back into the order subjects first appeared. */
function inOrderSeen(subjects: readonly Subject[]): Term[] {
  return [...subjects].sort((a, b) => a.at - b.at).map((s) => s.term);
}

function termKey(term: Term): string {
  return term.termType === "Literal" ? `"${term.value}"@${term.language}^^${term.datatype.value}` : `${term.termType}:${term.value}`;
}
