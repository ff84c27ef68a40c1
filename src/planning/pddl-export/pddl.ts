/**
 * The formal part of a model as PDDL: a domain, a problem and one plan file per plan, for
 * an operator to check with a standard validator (VAL: `Validate -v domain.pddl
 * problem.pddl plan`) or to hand to a planner. VAL is not run here (nor installed with the
 * coordinator); test/formal/pddl-roundtrip.test.ts reads the files back into a FormalModel
 * and checks that the simulator gives every plan the same verdict at the same step on both.
 * Pure: text in, text out.
 *
 * What is written, and the choices that keep PDDL's meaning and the simulator's the same:
 * - **Actions** the simulator runs become `(:action …)`, their parameters, preconditions (in
 *   written order, under one `and`) and effects. An action it cannot run (free text, a
 *   broken part, an ambiguous name) is left out, with a comment `; action NAME is left out:
 *   "why"`; a plan step naming it is one the coordinator calls unverifiable, and VAL, not
 *   knowing the action, rejects.
 * - **Types.** An entity may have no `mfr:entityType` or several; a PDDL object has one type.
 *   The types are taken in name order; each one whose objects nest with, or are disjoint
 *   from, those of every type taken before becomes a PDDL type, under the smallest taken type
 *   that contains it (types with the same objects are chained, in name order), so an object
 *   declared with its most specific type belongs, through the hierarchy, to exactly the types
 *   it has in the model. A type that would overlap another (some objects shared, not all) is
 *   written as a unary predicate `(is-TYPE o)` instead, true in the initial state for its
 *   objects: a parameter of that type becomes untyped with `(is-TYPE ?p)` as its first
 *   precondition, `(forall (?x - TYPE) φ)` becomes `(forall (?x) (imply (is-TYPE ?x) φ))`,
 *   `exists` takes `(and (is-TYPE ?x) φ)` and a `forall` effect a `when`. A type no entity
 *   has is declared all the same (nothing matches it). `object` is PDDL's root, as in the
 *   simulator, where it matches every entity.
 * - **Objects** are the entities. A symbol that the initial state or an expression names but
 *   no entity defines is a value to the simulator, not an object: quantifiers do not range
 *   over it and a plan may not pass it. Such symbols are declared with type `object` only,
 *   and then every entity type sits under a root type `entity`, every untyped parameter or
 *   quantified variable becomes `- entity`, and both PDDL and the simulator keep them out.
 *   Objects named in an action are domain `:constants`; the rest are problem `:objects`.
 * - **Predicates and functions** are declared from their uses: arity, and per argument the
 *   most specific type every use fits (`object` when nothing narrower is known). A predicate
 *   used with two arities is two facts to the simulator; the second arity gets its own name.
 * - **Initial state:** atoms once each, then each fluent with its last value, then the type
 *   predicates. A negative initial value is written `-5`, which PDDL 2.1 readers may refuse.
 * - **Goal:** `(:goal (and …))` of every formal goal, in order.
 * - **Constraints** (true in every state, the initial one included) are PDDL3 state-trajectory
 *   constraints: `(:constraints (and (always φ) …))` in the problem.
 * - **Arithmetic** with more than two operands is nested to the left, as the simulator
 *   computes it; a negative number in an expression is `(- 5)`.
 * - **Effects** are flattened into the shape PDDL (and VAL) reads: `(when c e)` holds only
 *   simple effects or a `forall`, a `when` inside a `when` joins the conditions with `and`;
 *   numeric updates (`scale-up`, `scale-down` too) keep their order, as the simulator's.
 * - **Names** follow pddl-names.ts; every model text that reaches a comment is JSON-quoted
 *   with everything but printable ASCII escaped, so nothing breaks a line or the file.
 * - **Plans:** one `(action arg …)` per line, lower-cased and renamed like the model. A step
 *   that does not parse becomes `; step N does not parse: "…"` (VAL skips it, the coordinator
 *   calls the plan invalid there; the header says so).
 *
 * Where PDDL and the simulator can still differ: the simulator counts quantifier instances
 * against a bound, and a type predicate widens the range it counts; quantified instances
 * may be visited in another order (renamed objects sort differently), which matters only
 * when a quantified formula reads a fluent that has no value for some instance; empty
 * `(and)`/`(or)` inside a formula, two updates of one fluent in one step, and a negative
 * initial value are the simulator's, and not every PDDL reader takes them.
 */
import type { Atom, Condition, Effect, NumericExpression, Term, TypedVariable } from "../../formal/expression.js";
import type { FormalAction, FormalModel } from "../../formal/model.js";
import { allocateNames, sanitiseName, isPddlName } from "./pddl-names.js";
import type { NameRequest, PddlRenaming } from "./pddl-names.js";
import { parsePlanStep } from "../../formal/plan-step.js";
import type { Verification } from "../../formal/simulate.js";

export type { PddlRenaming } from "./pddl-names.js";

export interface PddlPlan {
  /** Who proposed it (shown in the plan file's header). */
  label: string;
  /** The plan's steps as the proposal gave them. */
  steps: readonly unknown[];
  /** The coordinator's verdict on it, shown in the header when known. */
  verification?: Verification | undefined;
}

export interface PddlOptions {
  /** The domain's name (a session id); made a valid PDDL name. */
  name: string;
  plans?: readonly PddlPlan[];
}

export interface PddlFiles {
  domain: string;
  problem: string;
  /** One text per plan of the options, in their order. */
  plans: string[];
  /** Every symbol written under another name. */
  renamed: PddlRenaming[];
}

/** The PDDL root type. */
const OBJECT = "object";
/** The key of the synthetic `entity` type among the model's types (no model type has it). */
const ROOT_KEY = "\u0000root";

const VALIDATE_HINT = "Validate -v DOMAIN.pddl PROBLEM.pddl PLAN";

/** Writes the domain, the problem and the plans of a formal model. */
export function toPddl(model: FormalModel, options: PddlOptions): PddlFiles {
  return new PddlWriter(model, options).write();
}

type Requirement =
  | ":strips"
  | ":typing"
  | ":negative-preconditions"
  | ":disjunctive-preconditions"
  | ":equality"
  | ":quantified-preconditions"
  | ":conditional-effects"
  | ":numeric-fluents"
  | ":constraints";

const REQUIREMENT_ORDER: readonly Requirement[] = [
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

/** An action as written: renamed, with its type guards in front of its preconditions. */
interface PddlAction {
  name: string;
  parameters: TypedVariable[];
  preconditions: Condition[];
  effects: Effect[];
}

/** What the model uses, gathered before anything is named. */
class Uses {
  readonly domainConstants = new Set<string>();
  readonly problemConstants = new Set<string>();
  readonly variables = new Set<string>();
  readonly variableTypes = new Set<string>();
  /** `name/arity` → name, arity. */
  readonly predicates = new Map<string, { name: string; arity: number }>();
  readonly functions = new Map<string, { name: string; arity: number }>();

  term(t: Term, inDomain: boolean): void {
    if (t.kind === "variable") this.variables.add(t.name);
    else (inDomain ? this.domainConstants : this.problemConstants).add(t.name);
  }

  variableList(vars: readonly TypedVariable[]): void {
    for (const v of vars) {
      this.variables.add(v.name);
      if (v.type !== undefined) this.variableTypes.add(v.type);
    }
  }

  predicate(name: string, arity: number): void {
    this.predicates.set(`${name}/${arity}`, { name, arity });
  }

  fluent(name: string, arity: number): void {
    this.functions.set(`${name}/${arity}`, { name, arity });
  }

  condition(c: Condition, inDomain: boolean): void {
    switch (c.kind) {
      case "atom":
        this.predicate(c.predicate, c.args.length);
        for (const a of c.args) this.term(a, inDomain);
        return;
      case "equal":
        this.term(c.left, inDomain);
        this.term(c.right, inDomain);
        return;
      case "compare":
        this.numeric(c.left, inDomain);
        this.numeric(c.right, inDomain);
        return;
      case "and":
      case "or":
        for (const p of c.parts) this.condition(p, inDomain);
        return;
      case "not":
        this.condition(c.part, inDomain);
        return;
      case "imply":
        this.condition(c.antecedent, inDomain);
        this.condition(c.consequent, inDomain);
        return;
      case "forall":
      case "exists":
        this.variableList(c.variables);
        this.condition(c.body, inDomain);
        return;
    }
  }

  numeric(e: NumericExpression, inDomain: boolean): void {
    if (e.kind === "fluent") {
      this.fluent(e.name, e.args.length);
      for (const a of e.args) this.term(a, inDomain);
    } else if (e.kind === "arithmetic") for (const a of e.args) this.numeric(a, inDomain);
  }

  effect(e: Effect, inDomain: boolean): void {
    switch (e.kind) {
      case "add":
      case "delete":
        this.condition(e.atom, inDomain);
        return;
      case "and":
        for (const p of e.parts) this.effect(p, inDomain);
        return;
      case "forall":
        this.variableList(e.variables);
        this.effect(e.body, inDomain);
        return;
      case "when":
        this.condition(e.condition, inDomain);
        this.effect(e.effect, inDomain);
        return;
      case "numeric":
        this.numeric(e.fluent, inDomain);
        this.numeric(e.value, inDomain);
        return;
    }
  }
}

/** How the model's types are written: PDDL types where they nest, predicates where they overlap. */
interface TypePlan {
  /** Model type → PDDL type name, for types written as PDDL types. */
  pddl: Map<string, string>;
  /** Model type → the predicate standing for it, for types that overlap others. */
  predicate: Map<string, string>;
  /** PDDL type → its parent PDDL type. */
  parent: Map<string, string>;
  /** The type of an untyped variable: `entity` when undeclared symbols exist, else undefined (object). */
  root: string | undefined;
  /** Object symbol (model) → its PDDL type. */
  objectType: Map<string, string>;
}

class PddlWriter {
  private readonly renamed: PddlRenaming[] = [];
  private readonly runnable: FormalAction[];
  private readonly leftOut: FormalAction[];
  private readonly uses = new Uses();
  private readonly steps: Array<Array<{ kind: "step"; action: string; args: string[] } | { kind: "malformed"; text: string }>>;
  private objectName = new Map<string, string>();
  private typeName = new Map<string, string>();
  private predicateName = new Map<string, string>();
  private functionName = new Map<string, string>();
  private actionName = new Map<string, string>();
  private variableName = new Map<string, string>();
  private types!: TypePlan;
  /** Real objects (entities), by model symbol. */
  private readonly real: Set<string>;
  /** Symbols named by the model but defined by no entity. */
  private ghosts: string[] = [];
  private readonly requirements = new Set<Requirement>([":strips"]);

  constructor(
    private readonly model: FormalModel,
    private readonly options: PddlOptions,
  ) {
    this.runnable = model.actions.filter((a) => a.informal.length === 0);
    this.leftOut = model.actions.filter((a) => a.informal.length > 0);
    this.real = new Set(model.objects.map((o) => o.symbol));
    this.steps = (options.plans ?? []).map((plan) =>
      plan.steps.map((s: unknown) => {
        const text = typeof s === "string" ? s : String(JSON.stringify(s));
        const step = parsePlanStep(text);
        return step === undefined ? { kind: "malformed" as const, text } : { kind: "step" as const, ...step };
      }),
    );
  }

  write(): PddlFiles {
    this.gather();
    this.types = this.planTypes();
    this.name();
    const actions = this.runnable.map((a) => this.action(a));
    const constraints = this.model.constraints.map((c) => this.condition(c.condition));
    const goals = this.model.goals.map((g) => this.condition(g.condition));
    const init = this.initialState();
    const signatures = this.signatures(actions, constraints, goals, init);
    this.requirementsOf(actions, constraints, goals, init);
    const domain = this.domainText(actions, signatures);
    const problem = this.problemText(init, goals, constraints);
    const plans = this.steps.map((steps, i) => this.planText(steps, (this.options.plans ?? [])[i] as PddlPlan));
    return { domain, problem, plans, renamed: this.renamed };
  }

  // ---- gathering and naming -------------------------------------------------------------

  private gather(): void {
    const u = this.uses;
    for (const a of this.runnable) {
      u.variableList(a.parameters);
      for (const c of a.preconditions) u.condition(c, true);
      for (const e of a.effects) u.effect(e, true);
    }
    for (const s of [...this.model.constraints, ...this.model.goals]) u.condition(s.condition, false);
    for (const f of this.model.initialState) {
      if (f.kind === "atom") u.predicate(f.predicate, f.args.length);
      else u.fluent(f.name, f.args.length);
      for (const a of f.args) u.problemConstants.add(a);
    }
    const named = new Set([...u.domainConstants, ...u.problemConstants]);
    this.ghosts = [...named].filter((s) => !this.real.has(s)).sort(compare);
  }

  private planTypes(): TypePlan {
    const members = new Map<string, Set<string>>();
    for (const o of this.model.objects) {
      for (const t of o.types) {
        if (t === OBJECT) continue;
        const set = members.get(t) ?? new Set<string>();
        set.add(o.symbol);
        members.set(t, set);
      }
    }
    for (const t of this.uses.variableTypes) if (t !== OBJECT && !members.has(t)) members.set(t, new Set());
    const names = [...members.keys()].sort(compare);
    const accepted: string[] = [];
    const overlapping: string[] = [];
    for (const t of names) {
      const set = members.get(t) as Set<string>;
      if (set.size === 0 || accepted.every((u) => nestedOrDisjoint(set, members.get(u) as Set<string>))) accepted.push(t);
      else overlapping.push(t);
    }
    // Deeper first: (size ascending, then name descending) orders a chain of equal sets too.
    const deeper = (a: string, b: string): number => (members.get(a) as Set<string>).size - (members.get(b) as Set<string>).size || compare(b, a);
    const containsAll = (outer: string, inner: string): boolean => {
      const o = members.get(outer) as Set<string>;
      return [...(members.get(inner) as Set<string>)].every((s) => o.has(s));
    };
    const modelParent = new Map<string, string | undefined>();
    for (const t of accepted) {
      if ((members.get(t) as Set<string>).size === 0) {
        modelParent.set(t, undefined);
        continue;
      }
      const above = accepted.filter((u) => u !== t && (members.get(u) as Set<string>).size > 0 && containsAll(u, t) && deeper(t, u) < 0).sort(deeper);
      modelParent.set(t, above[0]);
    }
    const objectModelType = new Map<string, string | undefined>();
    for (const o of this.model.objects) {
      const own = accepted.filter((t) => (members.get(t) as Set<string>).has(o.symbol)).sort(deeper);
      objectModelType.set(o.symbol, own[0]);
    }

    // Names: the model's types first, then the synthetic root and type predicates.
    const typeRequests: NameRequest[] = accepted.map((t) => ({ key: t, wanted: t }));
    const needRoot = this.ghosts.length > 0;
    // The root is the writer's own type: it takes what name is left, and is no renaming.
    if (needRoot) typeRequests.push({ key: ROOT_KEY, wanted: "entity", label: ROOT_KEY });
    const typeRenames: PddlRenaming[] = [];
    this.typeName = allocateNames("type", typeRequests, typeRenames);
    this.renamed.push(...typeRenames.filter((r) => r.from !== ROOT_KEY));
    const root = needRoot ? (this.typeName.get(ROOT_KEY) as string) : undefined;
    const pddl = new Map(accepted.map((t) => [t, this.typeName.get(t) as string]));
    const parent = new Map<string, string>();
    if (root !== undefined) parent.set(root, OBJECT);
    for (const t of accepted) {
      const p = modelParent.get(t);
      parent.set(pddl.get(t) as string, p === undefined ? (root ?? OBJECT) : (pddl.get(p) as string));
    }
    const objectType = new Map<string, string>();
    for (const o of this.model.objects) {
      const t = objectModelType.get(o.symbol);
      objectType.set(o.symbol, t === undefined ? (root ?? OBJECT) : (pddl.get(t) as string));
    }
    // The type predicates' names are settled with the predicates (name()).
    const predicate = new Map<string, string>(overlapping.map((t) => [t, ""]));
    return { pddl, predicate, parent, root, objectType };
  }

  private name(): void {
    const u = this.uses;
    const byKey = (a: { name: string; arity: number }, b: { name: string; arity: number }): number => compare(a.name, b.name) || a.arity - b.arity;
    const predicates = [...u.predicates.values()].sort(byKey);
    const functions = [...u.functions.values()].sort(byKey);
    const multi = (list: { name: string; arity: number }[], name: string): boolean => list.filter((p) => p.name === name).length > 1;
    const shared: NameRequest[] = [
      ...predicates.map((p) => ({ key: `p:${p.name}/${p.arity}`, wanted: p.name, label: multi(predicates, p.name) ? `${p.name} (${p.arity} arguments)` : p.name })),
      ...functions.map((f) => ({ key: `f:${f.name}/${f.arity}`, wanted: f.name, label: multi(functions, f.name) ? `${f.name} (${f.arity} arguments)` : f.name })),
    ];
    const typePredicates = [...this.types.predicate.keys()].sort(compare);
    const symbolNames = allocateNames("predicate", [...shared, ...typePredicates.map((t) => ({ key: `t:${t}`, wanted: `is-${sanitiseName(t, "type")}`, label: "" }))], []);
    for (const r of shared) {
      const to = symbolNames.get(r.key) as string;
      if (to !== r.wanted) this.renamed.push({ kind: r.key.startsWith("p:") ? "predicate" : "function", from: r.label ?? r.wanted, to });
    }
    for (const p of predicates) this.predicateName.set(`${p.name}/${p.arity}`, symbolNames.get(`p:${p.name}/${p.arity}`) as string);
    for (const f of functions) this.functionName.set(`${f.name}/${f.arity}`, symbolNames.get(`f:${f.name}/${f.arity}`) as string);
    for (const t of typePredicates) this.types.predicate.set(t, symbolNames.get(`t:${t}`) as string);

    const planArgs = this.steps.flatMap((steps) => steps.flatMap((s) => (s.kind === "step" ? s.args : [])));
    const objects = [...this.model.objects.map((o) => o.symbol), ...this.ghosts, ...[...new Set(planArgs)].sort(compare)];
    this.objectName = allocateNames("object", unique(objects).map((s) => ({ key: s, wanted: s })), this.renamed);
    const actions = [...this.model.actions.map((a) => a.name), ...[...new Set(this.steps.flatMap((steps) => steps.flatMap((s) => (s.kind === "step" ? [s.action] : []))))].sort(compare)];
    this.actionName = allocateNames("action", unique(actions).map((a) => ({ key: a, wanted: a })), this.renamed);
    const variables = [...u.variables].sort(compare);
    this.variableName = new Map(
      [...allocateNames("variable", variables.map((v) => ({ key: v, wanted: v.slice(1), label: v })), this.renamed)].map(([k, v]) => [k, `?${v}`]),
    );
    for (const r of this.renamed) if (r.kind === "variable") r.to = `?${r.to}`;
  }

  // ---- the model, renamed and typed -----------------------------------------------------

  private object(symbol: string): string {
    return this.objectName.get(symbol) ?? sanitiseName(symbol, "object");
  }

  private term(t: Term): Term {
    return t.kind === "variable" ? { kind: "variable", name: this.variableName.get(t.name) ?? t.name } : { kind: "constant", name: this.object(t.name) };
  }

  private atom(a: Atom): Atom {
    return { kind: "atom", predicate: this.predicateName.get(`${a.predicate}/${a.args.length}`) as string, args: a.args.map((t) => this.term(t)) };
  }

  /** Variables with their PDDL types, and the type-predicate atoms that must hold of them. */
  private variables(vars: readonly TypedVariable[]): { variables: TypedVariable[]; guards: Condition[] } {
    const variables: TypedVariable[] = [];
    const guards: Condition[] = [];
    for (const v of vars) {
      const name = this.variableName.get(v.name) ?? v.name;
      const predicate = v.type === undefined ? undefined : this.types.predicate.get(v.type);
      const type = v.type === undefined || v.type === OBJECT || predicate !== undefined ? this.types.root : this.types.pddl.get(v.type);
      variables.push(type === undefined ? { name } : { name, type });
      if (predicate !== undefined) guards.push({ kind: "atom", predicate, args: [{ kind: "variable", name }] });
    }
    return { variables, guards };
  }

  private action(a: FormalAction): PddlAction {
    const { variables, guards } = this.variables(a.parameters);
    const preconditions = [...guards, ...a.preconditions.map((c) => this.condition(c))].flatMap(conjuncts);
    const effects = normaliseEffects(a.effects.map((e) => this.effect(e)));
    return { name: this.actionName.get(a.name) as string, parameters: variables, preconditions, effects };
  }

  private condition(c: Condition): Condition {
    switch (c.kind) {
      case "atom":
        return this.atom(c);
      case "equal":
        return { kind: "equal", left: this.term(c.left), right: this.term(c.right) };
      case "compare":
        return { kind: "compare", op: c.op, left: this.numeric(c.left), right: this.numeric(c.right) };
      case "and":
      case "or":
        return { kind: c.kind, parts: c.parts.map((p) => this.condition(p)) };
      case "not":
        return { kind: "not", part: this.condition(c.part) };
      case "imply":
        return { kind: "imply", antecedent: this.condition(c.antecedent), consequent: this.condition(c.consequent) };
      case "forall":
      case "exists": {
        const body = this.condition(c.body);
        if (c.variables.length === 0) return body;
        const { variables, guards } = this.variables(c.variables);
        if (guards.length === 0) return { kind: c.kind, variables, body };
        const guard = guards.length === 1 ? (guards[0] as Condition) : { kind: "and" as const, parts: guards };
        return c.kind === "forall"
          ? { kind: "forall", variables, body: { kind: "imply", antecedent: guard, consequent: body } }
          : { kind: "exists", variables, body: { kind: "and", parts: [...guards, body] } };
      }
    }
  }

  private numeric(e: NumericExpression): NumericExpression {
    switch (e.kind) {
      case "number":
        return e;
      case "fluent":
        return { kind: "fluent", name: this.functionName.get(`${e.name}/${e.args.length}`) as string, args: e.args.map((t) => this.term(t)) };
      case "arithmetic": {
        const args = e.args.map((a) => this.numeric(a));
        if (args.length <= 2) return { kind: "arithmetic", op: e.op, args };
        // PDDL's operators are binary: (+ a b c) is ((a + b) + c), as the simulator folds it.
        return args.slice(1).reduce<NumericExpression>((acc, next) => ({ kind: "arithmetic", op: e.op, args: [acc, next] }), args[0] as NumericExpression);
      }
    }
  }

  private effect(e: Effect): Effect {
    switch (e.kind) {
      case "add":
      case "delete":
        return { kind: e.kind, atom: this.atom(e.atom) };
      case "and":
        return { kind: "and", parts: e.parts.map((p) => this.effect(p)) };
      case "forall": {
        const body = this.effect(e.body);
        if (e.variables.length === 0) return body;
        const { variables, guards } = this.variables(e.variables);
        if (guards.length === 0) return { kind: "forall", variables, body };
        const guard = guards.length === 1 ? (guards[0] as Condition) : { kind: "and" as const, parts: guards };
        return { kind: "forall", variables, body: { kind: "when", condition: guard, effect: body } };
      }
      case "when":
        return { kind: "when", condition: this.condition(e.condition), effect: this.effect(e.effect) };
      case "numeric":
        return { kind: "numeric", op: e.op, fluent: this.numeric(e.fluent) as Extract<NumericExpression, { kind: "fluent" }>, value: this.numeric(e.value) };
    }
  }

  /** Atoms once each (in order), each fluent with its last value, then the type predicates. */
  private initialState(): InitLine[] {
    const atoms = new Map<string, InitLine>();
    const fluents = new Map<string, InitLine>();
    for (const f of this.model.initialState) {
      const args = f.args.map((a) => this.object(a));
      if (f.kind === "atom") {
        const line: InitLine = { kind: "atom", name: this.predicateName.get(`${f.predicate}/${f.args.length}`) as string, args };
        atoms.set(initKey(line), line);
      } else {
        const line: InitLine = { kind: "fluent", name: this.functionName.get(`${f.name}/${f.args.length}`) as string, args, value: f.value };
        // The simulator keeps the last value given; the position stays that of the first.
        fluents.set(initKey(line), line);
      }
    }
    const typeFacts: InitLine[] = [];
    for (const [type, predicate] of [...this.types.predicate].sort(([a], [b]) => compare(a, b))) {
      for (const o of this.model.objects) if (o.types.includes(type)) typeFacts.push({ kind: "atom", name: predicate, args: [this.object(o.symbol)] });
    }
    return [...atoms.values(), ...fluents.values(), ...typeFacts];
  }

  // ---- declarations -----------------------------------------------------------------------

  /** The PDDL type of each object name. */
  private objectTypes(): Map<string, string> {
    const types = new Map<string, string>();
    for (const o of this.model.objects) types.set(this.object(o.symbol), this.types.objectType.get(o.symbol) as string);
    for (const g of this.ghosts) types.set(this.object(g), OBJECT);
    return types;
  }

  private signatures(actions: PddlAction[], constraints: Condition[], goals: Condition[], init: InitLine[]): { predicates: Map<string, string[]>; functions: Map<string, string[]> } {
    const objectTypes = this.objectTypes();
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
        out.set(name, Array.from({ length: arity }, (_, i) => this.commonType(lists.map((l) => l[i] as string))));
      }
      return out;
    };
    return { predicates: declare(uses.predicates), functions: declare(uses.functions) };
  }

  /** The most specific type every one of `types` belongs to. */
  private commonType(types: string[]): string {
    const chain = (t: string): string[] => {
      const out = [t];
      for (let p = this.types.parent.get(t); p !== undefined && !out.includes(p); p = this.types.parent.get(p)) out.push(p);
      if (!out.includes(OBJECT)) out.push(OBJECT);
      return out;
    };
    const [first, ...rest] = types;
    if (first === undefined) return OBJECT;
    const chains = rest.map(chain);
    return chain(first).find((t) => chains.every((c) => c.includes(t))) ?? OBJECT;
  }

  private requirementsOf(actions: PddlAction[], constraints: Condition[], goals: Condition[], init: InitLine[]): void {
    const need = (r: Requirement): void => void this.requirements.add(r);
    if (this.types.parent.size > 0) need(":typing");
    const sink = { condition: (c: Condition) => conditionRequirements(c, need), numeric: () => need(":numeric-fluents") };
    for (const a of actions) {
      for (const c of a.preconditions) sink.condition(c);
      for (const e of a.effects) effectRequirements(e, need, sink.condition);
    }
    for (const c of [...constraints, ...goals]) sink.condition(c);
    if (init.some((l) => l.kind === "fluent")) need(":numeric-fluents");
    if (constraints.length > 0) need(":constraints");
  }

  // ---- text ---------------------------------------------------------------------------------

  private domainName(): string {
    const wanted = `mfr-${this.options.name.toLowerCase()}`;
    return isPddlName(wanted) ? wanted : sanitiseName(wanted, "domain");
  }

  private header(kind: string): string[] {
    return [
      `; PDDL ${kind} written by mfr-coordinator from the formal part of a session's model (${quote(this.options.name)}).`,
      `; Check a plan with VAL: ${VALIDATE_HINT}`,
    ];
  }

  private renamings(filter: (r: PddlRenaming) => boolean): string[] {
    const list = this.renamed.filter(filter);
    if (list.length === 0) return [];
    return ["; Renamed to valid PDDL names (model symbol -> PDDL name):", ...list.map((r) => `;   ${r.kind} ${quote(r.from)} -> ${r.to}`)];
  }

  private domainText(actions: PddlAction[], signatures: { predicates: Map<string, string[]>; functions: Map<string, string[]> }): string {
    const lines = [...this.header("domain"), ...this.typeNotes(), ...this.renamings((r) => r.kind !== "object" || this.uses.domainConstants.has(r.from))];
    lines.push(`(define (domain ${this.domainName()})`);
    lines.push(`  (:requirements ${REQUIREMENT_ORDER.filter((r) => this.requirements.has(r)).join(" ")})`);
    const typed = this.requirements.has(":typing");
    if (typed) {
      const byParent = new Map<string, string[]>();
      for (const [t, p] of this.types.parent) byParent.set(p, [...(byParent.get(p) ?? []), t]);
      // Parents before their children: object's children first, then theirs, and so on.
      const depth = (t: string): number => (t === OBJECT ? 0 : 1 + depth(this.types.parent.get(t) ?? OBJECT));
      const typeLines = [...byParent]
        .sort(([a], [b]) => depth(a) - depth(b) || compare(a, b))
        .map(([p, ts]) => `    ${ts.sort(compare).join(" ")} - ${p}`);
      lines.push("  (:types", ...typeLines.slice(0, -1), `${typeLines.at(-1) ?? ""})`);
    }
    const objectTypes = this.objectTypes();
    const constants = unique([...this.uses.domainConstants].map((s) => this.object(s))).sort(compare);
    if (constants.length > 0) lines.push(`  (:constants ${typedNames(constants, objectTypes, typed)})`);
    const declarations = (map: Map<string, string[]>): string[] =>
      [...map].map(([name, types]) => `    (${[name, ...types.map((t, i) => (typed ? `?a${i + 1} - ${t}` : `?a${i + 1}`))].join(" ")})`);
    const predicates = declarations(signatures.predicates);
    if (predicates.length > 0) lines.push("  (:predicates", ...predicates.slice(0, -1), `${predicates.at(-1) ?? ""})`);
    const functions = declarations(signatures.functions);
    if (functions.length > 0) lines.push("  (:functions", ...functions.slice(0, -1), `${functions.at(-1) ?? ""})`);
    for (const a of this.leftOut) {
      lines.push("", `  ; action ${this.actionName.get(a.name) as string} is left out: ${quote(a.informal.join("; "))}`);
    }
    for (const a of actions) {
      lines.push("", `  (:action ${a.name}`, `    :parameters (${formatVariables(a.parameters)})`);
      if (a.preconditions.length > 0) lines.push(`    :precondition ${formatCondition(conjunction(a.preconditions))}`);
      lines.push(`    :effect ${formatEffect(a.effects.length === 1 ? (a.effects[0] as Effect) : { kind: "and", parts: a.effects })})`);
    }
    lines.push(")");
    return `${lines.join("\n")}\n`;
  }

  private typeNotes(): string[] {
    const notes: string[] = [];
    if (this.types.root !== undefined) {
      notes.push(
        `; Symbols the model names but no entity defines (${this.ghosts.map(quote).join(", ")}) are of type object;`,
        `; entities are of type ${this.types.root}, and untyped variables range over ${this.types.root} only, as the coordinator's check does.`,
      );
    }
    for (const [type, predicate] of [...this.types.predicate].sort(([a], [b]) => compare(a, b))) {
      notes.push(`; Type ${quote(type)} overlaps other types, so it is the predicate (${predicate} ?x) instead of a PDDL type.`);
    }
    return notes;
  }

  private problemText(init: InitLine[], goals: Condition[], constraints: Condition[]): string {
    const domain = this.domainName();
    const lines = [...this.header("problem"), ...this.renamings((r) => r.kind === "object" && !this.uses.domainConstants.has(r.from))];
    lines.push(`(define (problem ${domain}-problem)`, `  (:domain ${domain})`);
    const typed = this.requirements.has(":typing");
    const constants = new Set([...this.uses.domainConstants].map((s) => this.object(s)));
    const objects = unique([...this.model.objects.map((o) => o.symbol), ...this.ghosts].map((s) => this.object(s)))
      .filter((o) => !constants.has(o))
      .sort(compare);
    const objectTypes = this.objectTypes();
    if (objects.length > 0) {
      const byType = new Map<string, string[]>();
      for (const o of objects) {
        const t = typed ? (objectTypes.get(o) ?? OBJECT) : "";
        byType.set(t, [...(byType.get(t) ?? []), o]);
      }
      const objectLines = [...byType].sort(([a], [b]) => compare(a, b)).map(([t, os]) => `    ${os.join(" ")}${t === "" ? "" : ` - ${t}`}`);
      lines.push("  (:objects", ...objectLines.slice(0, -1), `${objectLines.at(-1) ?? ""})`);
    }
    const initLines = init.map((l) => `    ${formatInit(l)}`);
    if (initLines.length === 0) lines.push("  (:init)");
    else lines.push("  (:init", ...initLines.slice(0, -1), `${initLines.at(-1) ?? ""})`);
    const goalParts = goals.flatMap(conjuncts).map((g) => `      ${formatCondition(g)}`);
    if (goalParts.length === 0) lines.push("  (:goal (and))");
    else lines.push("  (:goal (and", ...goalParts.slice(0, -1), `${goalParts.at(-1) ?? ""}))`);
    if (constraints.length > 0) {
      const parts = constraints.map((c) => `      (always ${formatCondition(c)})`);
      lines.push("  (:constraints (and", ...parts.slice(0, -1), `${parts.at(-1) ?? ""}))`);
    }
    lines.push(")");
    return `${lines.join("\n")}\n`;
  }

  private planText(steps: PddlWriter["steps"][number], plan: PddlPlan): string {
    const lines = [`; Plan proposed by ${quote(plan.label)} in ${quote(this.options.name)}: ${steps.length} step${steps.length === 1 ? "" : "s"}.`];
    const v = plan.verification;
    if (v !== undefined) {
      lines.push(`; The coordinator's verdict: ${v.verdict}${v.step === undefined ? "" : ` at step ${v.step}`}: ${quote(v.reason)}`);
    }
    lines.push(`; Check with VAL: ${VALIDATE_HINT}`);
    const malformed = steps.findIndex((s) => s.kind === "malformed");
    if (malformed >= 0) {
      lines.push(`; Step ${malformed + 1} does not parse, which makes the plan invalid for the coordinator; VAL sees only the steps written below.`);
    }
    const leftOut = new Set(this.leftOut.map((a) => a.name));
    steps.forEach((s, i) => {
      if (s.kind === "malformed") {
        lines.push(`; step ${i + 1} does not parse: ${quote(s.text)}`);
        return;
      }
      if (leftOut.has(s.action)) lines.push(`; step ${i + 1} uses an action the domain leaves out: the coordinator cannot check it`);
      const action = this.actionName.get(s.action) as string;
      lines.push(`(${[action, ...s.args.map((a) => this.object(a))].join(" ")})`);
    });
    return `${lines.join("\n")}\n`;
  }
}

// ---- helpers ------------------------------------------------------------------------------

type InitLine = { kind: "atom"; name: string; args: string[] } | { kind: "fluent"; name: string; args: string[]; value: number };

function initKey(line: InitLine): string {
  return [line.name, ...line.args].join(" ");
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

function nestedOrDisjoint(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  let shared = 0;
  for (const x of a) if (b.has(x)) shared += 1;
  return shared === 0 || shared === a.size || shared === b.size;
}

/** The parts of a top-level `and`, recursively; anything else as itself. */
function conjuncts(c: Condition): Condition[] {
  return c.kind === "and" ? c.parts.flatMap(conjuncts) : [c];
}

function conjunction(parts: Condition[]): Condition {
  return parts.length === 1 ? (parts[0] as Condition) : { kind: "and", parts };
}

/**
 * Effects in the shape PDDL reads: a flat list of simple effects, `forall`s (whose bodies are
 * normalised in turn) and `when`s holding simple effects or one `forall`. Order is kept.
 */
function normaliseEffects(effects: readonly Effect[]): Effect[] {
  const out: Effect[] = [];
  for (const e of effects) flatten(e, out);
  return out;
}

function flatten(e: Effect, out: Effect[]): void {
  switch (e.kind) {
    case "and":
      for (const p of e.parts) flatten(p, out);
      return;
    case "forall": {
      const body = normaliseEffects([e.body]);
      out.push({ kind: "forall", variables: e.variables, body: body.length === 1 ? (body[0] as Effect) : { kind: "and", parts: body } });
      return;
    }
    case "when":
      conditional(e.condition, normaliseEffects([e.effect]), out);
      return;
    default:
      out.push(e);
  }
}

/** `(when c …)` over normalised effects: runs of simple effects share one `when`; inner `when`s join conditions. */
function conditional(condition: Condition, body: Effect[], out: Effect[]): void {
  // An empty body stays: the simulator still evaluates the condition (which may fail on a fluent without a value).
  if (body.length === 0) out.push({ kind: "when", condition, effect: { kind: "and", parts: [] } });
  let run: Effect[] = [];
  const close = (): void => {
    if (run.length > 0) out.push({ kind: "when", condition, effect: run.length === 1 ? (run[0] as Effect) : { kind: "and", parts: run } });
    run = [];
  };
  for (const e of body) {
    if (e.kind === "when") {
      close();
      out.push({ kind: "when", condition: { kind: "and", parts: [...conjuncts(condition), ...conjuncts(e.condition)] }, effect: e.effect });
    } else if (e.kind === "forall") {
      close();
      out.push({ kind: "when", condition, effect: e });
    } else run.push(e);
  }
  close();
}

function withVariables(scope: ReadonlyMap<string, string>, vars: readonly TypedVariable[]): Map<string, string> {
  const inner = new Map(scope);
  for (const v of vars) inner.set(v.name, v.type ?? OBJECT);
  return inner;
}

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

// ---- printing -----------------------------------------------------------------------------

/**
 * A number as PDDL reads it: plain decimal digits, never an exponent (`1e-7` is
 * `0.0000001`), the same double when read back. Infinity (only a literal of over 300 digits
 * gives it) is written as such a literal.
 */
export function plainNumber(n: number): string {
  if (Number.isNaN(n)) return "0";
  const sign = n < 0 ? "-" : "";
  if (!Number.isFinite(n)) return `${sign}1${"0".repeat(309)}`;
  const text = String(Math.abs(n));
  const e = text.indexOf("e");
  if (e < 0) return `${sign}${text}`;
  const mantissa = text.slice(0, e);
  const exponent = Number(text.slice(e + 1));
  const [whole = "", fraction = ""] = mantissa.split(".");
  const digits = `${whole}${fraction}`;
  const point = whole.length + exponent;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

function list(head: string, args: readonly string[]): string {
  return args.length === 0 ? `(${head})` : `(${head} ${args.join(" ")})`;
}

function formatTerm(t: Term): string {
  return t.name;
}

function formatNumeric(e: NumericExpression): string {
  switch (e.kind) {
    case "number":
      // In an expression a negative number is (- n): PDDL 2.1 has no signed literals there.
      return e.value < 0 ? `(- ${plainNumber(-e.value)})` : plainNumber(e.value);
    case "fluent":
      return list(e.name, e.args.map(formatTerm));
    case "arithmetic":
      return list(e.op, e.args.map(formatNumeric));
  }
}

/**
 * A typed list. In PDDL an untyped name takes the type written after it (`?a ?b - t` types
 * both), so once any variable of the list has a type, the untyped ones say `- object`.
 */
function formatVariables(vars: readonly TypedVariable[]): string {
  const typed = vars.some((v) => v.type !== undefined);
  return vars.map((v) => (v.type === undefined ? (typed ? `${v.name} - ${OBJECT}` : v.name) : `${v.name} - ${v.type}`)).join(" ");
}

function formatCondition(c: Condition): string {
  switch (c.kind) {
    case "atom":
      return list(c.predicate, c.args.map(formatTerm));
    case "equal":
      return list("=", [formatTerm(c.left), formatTerm(c.right)]);
    case "compare":
      return list(c.op, [formatNumeric(c.left), formatNumeric(c.right)]);
    case "and":
    case "or":
      return list(c.kind, c.parts.map(formatCondition));
    case "not":
      return list("not", [formatCondition(c.part)]);
    case "imply":
      return list("imply", [formatCondition(c.antecedent), formatCondition(c.consequent)]);
    case "forall":
    case "exists":
      return list(c.kind, [`(${formatVariables(c.variables)})`, formatCondition(c.body)]);
  }
}

function formatEffect(e: Effect): string {
  switch (e.kind) {
    case "add":
      return formatCondition(e.atom);
    case "delete":
      return list("not", [formatCondition(e.atom)]);
    case "and":
      return list("and", e.parts.map(formatEffect));
    case "forall":
      return list("forall", [`(${formatVariables(e.variables)})`, formatEffect(e.body)]);
    case "when":
      return list("when", [formatCondition(e.condition), formatEffect(e.effect)]);
    case "numeric":
      return list(e.op, [formatNumeric(e.fluent), formatNumeric(e.value)]);
  }
}

function formatInit(line: InitLine): string {
  return line.kind === "atom" ? list(line.name, line.args) : `(= ${list(line.name, line.args)} ${plainNumber(line.value)})`;
}

function typedNames(names: readonly string[], types: ReadonlyMap<string, string>, typed: boolean): string {
  if (!typed) return names.join(" ");
  const byType = new Map<string, string[]>();
  for (const n of names) {
    const t = types.get(n) ?? OBJECT;
    byType.set(t, [...(byType.get(t) ?? []), n]);
  }
  return [...byType].sort(([a], [b]) => compare(a, b)).map(([t, ns]) => `${ns.join(" ")} - ${t}`).join(" ");
}

/**
 * Model text for a comment: JSON-quoted, and every character outside printable ASCII escaped
 * as `\uXXXX`, so no line break or odd byte reaches the file. `JSON.parse` gives it back.
 */
export function quote(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
