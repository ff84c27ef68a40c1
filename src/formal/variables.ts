/** Which variables an expression uses without binding them: a model check, not a parse error. */
import type { Condition, Effect, NumericExpression, Term, TypedVariable } from "./expression.js";

/** The variables of `cond` bound neither by `bound` nor by a quantifier inside it, in order. */
export function conditionVariables(cond: Condition, bound: ReadonlySet<string>): string[] {
  const free = new Set<string>();
  visitCondition(cond, bound, free);
  return [...free];
}

/** The variables of `eff` bound neither by `bound` nor by a `forall` inside it, in order. */
export function effectVariables(eff: Effect, bound: ReadonlySet<string>): string[] {
  const free = new Set<string>();
  visitEffect(eff, bound, free);
  return [...free];
}

function terms(args: readonly Term[], bound: ReadonlySet<string>, free: Set<string>): void {
  for (const t of args) if (t.kind === "variable" && !bound.has(t.name)) free.add(t.name);
}

function numeric(expr: NumericExpression, bound: ReadonlySet<string>, free: Set<string>): void {
  if (expr.kind === "fluent") terms(expr.args, bound, free);
  else if (expr.kind === "arithmetic") for (const a of expr.args) numeric(a, bound, free);
}

function widen(bound: ReadonlySet<string>, variables: readonly TypedVariable[]): ReadonlySet<string> {
  return new Set([...bound, ...variables.map((v) => v.name)]);
}

function visitCondition(cond: Condition, bound: ReadonlySet<string>, free: Set<string>): void {
  switch (cond.kind) {
    case "atom":
      return terms(cond.args, bound, free);
    case "equal":
      return terms([cond.left, cond.right], bound, free);
    case "compare":
      numeric(cond.left, bound, free);
      return numeric(cond.right, bound, free);
    case "and":
    case "or":
      for (const p of cond.parts) visitCondition(p, bound, free);
      return;
    case "not":
      return visitCondition(cond.part, bound, free);
    case "imply":
      visitCondition(cond.antecedent, bound, free);
      return visitCondition(cond.consequent, bound, free);
    case "forall":
    case "exists":
      return visitCondition(cond.body, widen(bound, cond.variables), free);
  }
}

function visitEffect(eff: Effect, bound: ReadonlySet<string>, free: Set<string>): void {
  switch (eff.kind) {
    case "add":
    case "delete":
      return terms(eff.atom.args, bound, free);
    case "and":
      for (const p of eff.parts) visitEffect(p, bound, free);
      return;
    case "forall":
      return visitEffect(eff.body, widen(bound, eff.variables), free);
    case "when":
      visitCondition(eff.condition, bound, free);
      return visitEffect(eff.effect, bound, free);
    case "numeric":
      numeric(eff.fluent, bound, free);
      return numeric(eff.value, bound, free);
  }
}
