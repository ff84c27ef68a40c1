/**
 * What the PDDL domain declares besides its types and actions: the signature of every
 * predicate and function (arity, and per argument the most specific type every use fits,
 * `object` when nothing narrower is known), and the `:requirements` the written domain and
 * problem use. Read from the model as the PDDL export (pddl.ts) writes it: renamed and typed.
 */
import type { Atom, Condition, Effect, NumericExpression, Term, TypedVariable } from "../../formal/expression.js";
import { compare, OBJECT } from "./pddl-print.js";
import type { InitLine } from "./pddl-print.js";
import type { PddlAction } from "./pddl-rename.js";
import { commonType } from "./pddl-types.js";

/** Predicate and function name → the type of each argument, in name order. */
export interface Signatures {
  predicates: Map<string, string[]>;
  functions: Map<string, string[]>;
}

/** A PDDL requirement flag the domain declares. */
export type Requirement =
  | ":strips"
  | ":typing"
  | ":negative-preconditions"
  | ":disjunctive-preconditions"
  | ":equality"
  | ":quantified-preconditions"
  | ":conditional-effects"
  | ":numeric-fluents"
  | ":constraints";

/** The order the requirements are listed in. */
export const REQUIREMENT_ORDER: readonly Requirement[] = [
  ":strips",
  ":typing",
  ":negative-preconditions",
  ":disjunctive-preconditions",
  ":equality",
  ":quantified-preconditions",
  ":conditional-effects",
  ":numeric-fluents",
  ":constraints",
];

/**
 * The predicates and functions to declare, in name order, each with a type per argument:
 * the most specific type every use fits, from the actions, constraints, goals and initial
 * state as written (`objectTypes`: each object name's PDDL type; `parent`: the type hierarchy).
 */
export function signaturesOf(
  actions: readonly PddlAction[],
  constraints: readonly Condition[],
  goals: readonly Condition[],
  init: readonly InitLine[],
  objectTypes: ReadonlyMap<string, string>,
  parent: ReadonlyMap<string, string>,
): Signatures {
  const uses = { predicates: new Map<string, string[][]>(), functions: new Map<string, string[][]>() };
  const add = (into: Map<string, string[][]>, name: string, types: string[]): void => {
    const list = into.get(name) ?? [];
    list.push(types);
    into.set(name, list);
  };
  const typeOf = (t: Term, scope: ReadonlyMap<string, string>): string => (t.kind === "variable" ? (scope.get(t.name) ?? OBJECT) : (objectTypes.get(t.name) ?? OBJECT));
  const sink = {
    atom: (a: Atom, scope: ReadonlyMap<string, string>) => add(uses.predicates, a.predicate, a.args.map((t) => typeOf(t, scope))),
    fluent: (f: Extract<NumericExpression, { kind: "fluent" }>, scope: ReadonlyMap<string, string>) => add(uses.functions, f.name, f.args.map((t) => typeOf(t, scope))),
  };
  for (const a of actions) {
    const scope = withVariables(new Map(), a.parameters);
    for (const c of a.preconditions) visitCondition(c, scope, sink);
    for (const e of a.effects) visitEffect(e, scope, sink);
  }
  for (const c of [...constraints, ...goals]) visitCondition(c, new Map(), sink);
  for (const line of init) add(line.kind === "atom" ? uses.predicates : uses.functions, line.name, line.args.map((o) => objectTypes.get(o) ?? OBJECT));
  const declare = (all: Map<string, string[][]>): Map<string, string[]> => {
    const out = new Map<string, string[]>();
    for (const [name, lists] of [...all].sort(([a], [b]) => compare(a, b))) {
      const arity = (lists[0] as string[]).length;
      out.set(name, Array.from({ length: arity }, (_, i) => commonType(parent, lists.map((l) => l[i] as string))));
    }
    return out;
  };
  return { predicates: declare(uses.predicates), functions: declare(uses.functions) };
}

/** The requirements the files need (`:strips` always); `typed` when the domain declares types. */
export function requirementsOf(actions: readonly PddlAction[], constraints: readonly Condition[], goals: readonly Condition[], init: readonly InitLine[], typed: boolean): Set<Requirement> {
  const requirements = new Set<Requirement>([":strips"]);
  const need = (r: Requirement): void => void requirements.add(r);
  if (typed) need(":typing");
  const sink = { condition: (c: Condition) => conditionRequirements(c, need), numeric: () => need(":numeric-fluents") };
  for (const a of actions) {
    for (const c of a.preconditions) sink.condition(c);
    for (const e of a.effects) effectRequirements(e, need, sink.condition);
  }
  for (const c of [...constraints, ...goals]) sink.condition(c);
  if (init.some((l) => l.kind === "fluent")) need(":numeric-fluents");
  if (constraints.length > 0) need(":constraints");
  return requirements;
}

/** `scope` with the variables declared, each with its type (`object` when untyped). */
function withVariables(scope: ReadonlyMap<string, string>, vars: readonly TypedVariable[]): Map<string, string> {
  const inner = new Map(scope);
  for (const v of vars) inner.set(v.name, v.type ?? OBJECT);
  return inner;
}

/** What the signature walk reports: each atom and fluent used, with the variables in scope and their types. */
interface SignatureSink {
  atom(a: Atom, scope: ReadonlyMap<string, string>): void;
  fluent(f: Extract<NumericExpression, { kind: "fluent" }>, scope: ReadonlyMap<string, string>): void;
}

function visitNumeric(e: NumericExpression, scope: ReadonlyMap<string, string>, sink: SignatureSink): void {
  if (e.kind === "fluent") sink.fluent(e, scope);
  else if (e.kind === "arithmetic") for (const a of e.args) visitNumeric(a, scope, sink);
}

function visitCondition(c: Condition, scope: ReadonlyMap<string, string>, sink: SignatureSink): void {
  switch (c.kind) {
    case "atom":
      return sink.atom(c, scope);
    case "equal":
      return;
    case "compare":
      visitNumeric(c.left, scope, sink);
      return visitNumeric(c.right, scope, sink);
    case "and":
    case "or":
      for (const p of c.parts) visitCondition(p, scope, sink);
      return;
    case "not":
      return visitCondition(c.part, scope, sink);
    case "imply":
      visitCondition(c.antecedent, scope, sink);
      return visitCondition(c.consequent, scope, sink);
    case "forall":
    case "exists":
      return visitCondition(c.body, withVariables(scope, c.variables), sink);
  }
}

function visitEffect(e: Effect, scope: ReadonlyMap<string, string>, sink: SignatureSink): void {
  switch (e.kind) {
    case "add":
    case "delete":
      return sink.atom(e.atom, scope);
    case "and":
      for (const p of e.parts) visitEffect(p, scope, sink);
      return;
    case "forall":
      return visitEffect(e.body, withVariables(scope, e.variables), sink);
    case "when":
      visitCondition(e.condition, scope, sink);
      return visitEffect(e.effect, scope, sink);
    case "numeric":
      sink.fluent(e.fluent, scope);
      return visitNumeric(e.value, scope, sink);
  }
}

/** The requirements a condition needs, each reported to `need`. */
function conditionRequirements(c: Condition, need: (r: Requirement) => void): void {
  switch (c.kind) {
    case "atom":
      return;
    case "equal":
      return need(":equality");
    case "compare":
      return need(":numeric-fluents");
    case "and":
      for (const p of c.parts) conditionRequirements(p, need);
      return;
    case "or":
      need(":disjunctive-preconditions");
      for (const p of c.parts) conditionRequirements(p, need);
      return;
    case "not":
      if (c.part.kind === "atom") need(":negative-preconditions");
      else if (c.part.kind !== "equal") {
        need(":negative-preconditions");
        need(":disjunctive-preconditions");
      }
      return conditionRequirements(c.part, need);
    case "imply":
      need(":disjunctive-preconditions");
      conditionRequirements(c.antecedent, need);
      return conditionRequirements(c.consequent, need);
    case "forall":
    case "exists":
      need(":quantified-preconditions");
      return conditionRequirements(c.body, need);
  }
}

/** The requirements an effect needs, each reported to `need`; its `when` conditions are passed to `condition`. */
function effectRequirements(e: Effect, need: (r: Requirement) => void, condition: (c: Condition) => void): void {
  switch (e.kind) {
    case "add":
    case "delete":
      return;
    case "and":
      for (const p of e.parts) effectRequirements(p, need, condition);
      return;
    case "forall":
      need(":conditional-effects");
      return effectRequirements(e.body, need, condition);
    case "when":
      need(":conditional-effects");
      condition(e.condition);
      return effectRequirements(e.effect, need, condition);
    case "numeric":
      need(":numeric-fluents");
      return;
  }
}
