/**
 * The model in PDDL's names and types, for the PDDL export (pddl.ts): every predicate,
 * function, object, action and variable gets a valid PDDL name (pddl-names.ts; each renaming
 * listed), and the actions, conditions, effects and initial state are rewritten with them,
 * typed as pddl-types.ts planned (a type written as a predicate becomes a guard), with
 * arithmetic nested to the left and effects in PDDL's shape (pddl-effects.ts).
 */
import type { Atom, Condition, Effect, NumericExpression, Term, TypedVariable } from "../../formal/expression.js";
import type { FormalAction, FormalModel } from "../../formal/model.js";
import { conjuncts, normaliseEffects } from "./pddl-effects.js";
import { allocateNames, sanitiseName } from "./pddl-names.js";
import type { NameRequest, PddlRenaming } from "./pddl-names.js";
import { compare, OBJECT, unique } from "./pddl-print.js";
import type { InitLine } from "./pddl-print.js";
import type { TypePlan } from "./pddl-types.js";
import type { Uses } from "./pddl-uses.js";

/** One step of a proposed plan: parsed (action and arguments, as the model names them), or the text that does not parse. */
export type PlanLine = { kind: "step"; action: string; args: string[] } | { kind: "malformed"; text: string };

/** An action as written: renamed, with its type guards in front of its preconditions. */
export interface PddlAction {
  name: string;
  parameters: TypedVariable[];
  preconditions: Condition[];
  effects: Effect[];
}

/**
 * The PDDL names of one model and its plans, settled in a fixed order (types before, by
 * planTypes; then predicates and functions with the type predicates, objects, actions,
 * variables) so the same model always gets the same names, and the model rewritten in them.
 */
export class PddlRenamer {
  private readonly objectName: Map<string, string>;
  private readonly predicateName = new Map<string, string>();
  private readonly functionName = new Map<string, string>();
  private readonly actionNames: Map<string, string>;
  private readonly variableName: Map<string, string>;

  /**
   * Names everything `uses` lists, the type predicates of `types` (set in it), `model`'s
   * objects and actions, the `ghosts`, and the actions and arguments of the plans' `steps`;
   * every name that differs from the model's symbol is added to `renamed`.
   */
  constructor(
    private readonly model: FormalModel,
    uses: Uses,
    private readonly types: TypePlan,
    steps: readonly (readonly PlanLine[])[],
    ghosts: readonly string[],
    renamed: PddlRenaming[],
  ) {
    const byKey = (a: { name: string; arity: number }, b: { name: string; arity: number }): number => compare(a.name, b.name) || a.arity - b.arity;
    const predicates = [...uses.predicates.values()].sort(byKey);
    const functions = [...uses.functions.values()].sort(byKey);
    const multi = (list: { name: string; arity: number }[], name: string): boolean => list.filter((p) => p.name === name).length > 1;
    const shared: NameRequest[] = [
      ...predicates.map((p) => ({ key: `p:${p.name}/${p.arity}`, wanted: p.name, label: multi(predicates, p.name) ? `${p.name} (${p.arity} arguments)` : p.name })),
      ...functions.map((f) => ({ key: `f:${f.name}/${f.arity}`, wanted: f.name, label: multi(functions, f.name) ? `${f.name} (${f.arity} arguments)` : f.name })),
    ];
    const typePredicates = [...this.types.predicate.keys()].sort(compare);
    const symbolNames = allocateNames("predicate", [...shared, ...typePredicates.map((t) => ({ key: `t:${t}`, wanted: `is-${sanitiseName(t, "type")}`, label: "" }))], []);
    for (const r of shared) {
      const to = symbolNames.get(r.key) as string;
      if (to !== r.wanted) renamed.push({ kind: r.key.startsWith("p:") ? "predicate" : "function", from: r.label ?? r.wanted, to });
    }
    for (const p of predicates) this.predicateName.set(`${p.name}/${p.arity}`, symbolNames.get(`p:${p.name}/${p.arity}`) as string);
    for (const f of functions) this.functionName.set(`${f.name}/${f.arity}`, symbolNames.get(`f:${f.name}/${f.arity}`) as string);
    for (const t of typePredicates) this.types.predicate.set(t, symbolNames.get(`t:${t}`) as string);

    const planArgs = steps.flatMap((plan) => plan.flatMap((s) => (s.kind === "step" ? s.args : [])));
    const objects = [...this.model.objects.map((o) => o.symbol), ...ghosts, ...[...new Set(planArgs)].sort(compare)];
    this.objectName = allocateNames("object", unique(objects).map((s) => ({ key: s, wanted: s })), renamed);
    const actions = [...this.model.actions.map((a) => a.name), ...[...new Set(steps.flatMap((plan) => plan.flatMap((s) => (s.kind === "step" ? [s.action] : []))))].sort(compare)];
    this.actionNames = allocateNames("action", unique(actions).map((a) => ({ key: a, wanted: a })), renamed);
    const variables = [...uses.variables].sort(compare);
    this.variableName = new Map(
      [...allocateNames("variable", variables.map((v) => ({ key: v, wanted: v.slice(1), label: v })), renamed)].map(([k, v]) => [k, `?${v}`]),
    );
    for (const r of renamed) if (r.kind === "variable") r.to = `?${r.to}`;
  }

  /** The PDDL name of an object symbol; one no plan or model names is sanitised as it is. */
  object(symbol: string): string {
    return this.objectName.get(symbol) ?? sanitiseName(symbol, "object");
  }

  /** A term, renamed. */
  private term(t: Term): Term {
    return t.kind === "variable" ? { kind: "variable", name: this.variableName.get(t.name) ?? t.name } : { kind: "constant", name: this.object(t.name) };
  }

  /** An atom, its predicate and terms renamed. */
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

  /** A runnable action as written: renamed, its type guards first, effects normalised. */
  action(a: FormalAction): PddlAction {
    const { variables, guards } = this.variables(a.parameters);
    const preconditions = [...guards, ...a.preconditions.map((c) => this.condition(c))].flatMap(conjuncts);
    const effects = normaliseEffects(a.effects.map((e) => this.effect(e)));
    return { name: this.actionName(a.name), parameters: variables, preconditions, effects };
  }

  /** A condition, renamed; a quantifier over a type written as a predicate guarded by it. */
  condition(c: Condition): Condition {
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

  /** A numeric expression, renamed, its operators made binary (nested to the left). */
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

  /** An effect, renamed; a `forall` over a type written as a predicate takes it as a `when`. */
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
  initialState(): InitLine[] {
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

  /** The PDDL name of an action of the model or a plan. */
  actionName(name: string): string {
    return this.actionNames.get(name) as string;
  }
}

/** Where a fact of the initial state sits: its name and arguments (a fluent's value aside). */
function initKey(line: InitLine): string {
  return [line.name, ...line.args].join(" ");
}
