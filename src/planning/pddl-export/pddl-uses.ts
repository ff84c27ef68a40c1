/**
 * What a formal model uses, gathered before the PDDL export (pddl.ts) names anything:
 * which constants the domain's actions and the problem name, which variables and variable
 * types appear, and every predicate and function with the arities it is used with. The
 * names (pddl-rename.ts), types (pddl-types.ts) and declarations are settled from it.
 */
import type { Condition, Effect, NumericExpression, Term, TypedVariable } from "../../formal/expression.js";
import type { FormalAction, FormalModel } from "../../formal/model.js";

/** What the model's runnable actions (`runnable`), goals, constraints and initial state use. */
export function gatherUses(model: FormalModel, runnable: readonly FormalAction[]): Uses {
  const u = new Uses();
  for (const a of runnable) {
    u.variableList(a.parameters);
    for (const c of a.preconditions) u.condition(c, true);
    for (const e of a.effects) u.effect(e, true);
  }
  for (const s of [...model.constraints, ...model.goals]) u.condition(s.condition, false);
  for (const f of model.initialState) {
    if (f.kind === "atom") u.predicate(f.predicate, f.args.length);
    else u.fluent(f.name, f.args.length);
    for (const a of f.args) u.problemConstants.add(a);
  }
  return u;
}

/** What the model uses, gathered before anything is named. */
export class Uses {
  /** Constants an action names: written as the domain's `:constants`. */
  readonly domainConstants = new Set<string>();
  /** Constants the goals, constraints and initial state name. */
  readonly problemConstants = new Set<string>();
  /** Variables of actions and quantifiers, and the types they are declared with. */
  readonly variables = new Set<string>();
  readonly variableTypes = new Set<string>();
  /** `name/arity` → name, arity. */
  readonly predicates = new Map<string, { name: string; arity: number }>();
  readonly functions = new Map<string, { name: string; arity: number }>();

  /** A term: a variable, or a constant of the domain (`inDomain`, named by an action) or of the problem. */
  term(t: Term, inDomain: boolean): void {
    if (t.kind === "variable") this.variables.add(t.name);
    else (inDomain ? this.domainConstants : this.problemConstants).add(t.name);
  }

  /** Variables a parameter list or quantifier declares, and their types. */
  variableList(vars: readonly TypedVariable[]): void {
    for (const v of vars) {
      this.variables.add(v.name);
      if (v.type !== undefined) this.variableTypes.add(v.type);
    }
  }

  /** A predicate used with `arity` arguments. */
  predicate(name: string, arity: number): void {
    this.predicates.set(`${name}/${arity}`, { name, arity });
  }

  /** A function (fluent) used with `arity` arguments. */
  fluent(name: string, arity: number): void {
    this.functions.set(`${name}/${arity}`, { name, arity });
  }

  /** Everything a condition uses. */
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

  /** Everything a numeric expression uses. */
  numeric(e: NumericExpression, inDomain: boolean): void {
    if (e.kind === "fluent") {
      this.fluent(e.name, e.args.length);
      for (const a of e.args) this.term(a, inDomain);
    } else if (e.kind === "arithmetic") for (const a of e.args) this.numeric(a, inDomain);
  }

  /** Everything an effect uses. */
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
