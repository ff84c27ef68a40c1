/**
 * Writes expressions back as PDDL text, with variables replaced by the objects they are
 * bound to, so that a verdict can say `(free s0900)` rather than `(free ?s)`.
 */
import type { Condition, Effect, NumericExpression, Term, TypedVariable } from "./expression.js";

/** Variable name (with its `?`) → the object symbol bound to it. */
export type Bindings = ReadonlyMap<string, string>;

const NO_BINDINGS: Bindings = new Map();

/** A term as text, its variable replaced when bound. */
export function formatTerm(term: Term, bindings: Bindings = NO_BINDINGS): string {
  return term.kind === "variable" ? (bindings.get(term.name) ?? term.name) : term.name;
}

/** A numeric expression as PDDL text. */
export function formatNumeric(expr: NumericExpression, bindings: Bindings = NO_BINDINGS): string {
  switch (expr.kind) {
    case "number":
      return String(expr.value);
    case "fluent":
      return list(expr.name, expr.args.map((a) => formatTerm(a, bindings)));
    case "arithmetic":
      return list(expr.op, expr.args.map((a) => formatNumeric(a, bindings)));
  }
}

/** A condition as PDDL text; quantified variables stay as written. */
export function formatCondition(cond: Condition, bindings: Bindings = NO_BINDINGS): string {
  switch (cond.kind) {
    case "atom":
      return list(cond.predicate, cond.args.map((a) => formatTerm(a, bindings)));
    case "equal":
      return list("=", [formatTerm(cond.left, bindings), formatTerm(cond.right, bindings)]);
    case "compare":
      return list(cond.op, [formatNumeric(cond.left, bindings), formatNumeric(cond.right, bindings)]);
    case "and":
    case "or":
      return list(cond.kind, cond.parts.map((p) => formatCondition(p, bindings)));
    case "not":
      return list("not", [formatCondition(cond.part, bindings)]);
    case "imply":
      return list("imply", [formatCondition(cond.antecedent, bindings), formatCondition(cond.consequent, bindings)]);
    case "forall":
    case "exists": {
      const inner = without(bindings, cond.variables);
      return list(cond.kind, [`(${formatVariables(cond.variables)})`, formatCondition(cond.body, inner)]);
    }
  }
}

/** An effect as PDDL text. */
export function formatEffect(eff: Effect, bindings: Bindings = NO_BINDINGS): string {
  switch (eff.kind) {
    case "add":
      return formatCondition(eff.atom, bindings);
    case "delete":
      return list("not", [formatCondition(eff.atom, bindings)]);
    case "and":
      return list("and", eff.parts.map((p) => formatEffect(p, bindings)));
    case "forall":
      return list("forall", [`(${formatVariables(eff.variables)})`, formatEffect(eff.body, without(bindings, eff.variables))]);
    case "when":
      return list("when", [formatCondition(eff.condition, bindings), formatEffect(eff.effect, bindings)]);
    case "numeric":
      return list(eff.op, [formatNumeric(eff.fluent, bindings), formatNumeric(eff.value, bindings)]);
  }
}

/** `?s - slot ?p` */
export function formatVariables(variables: readonly TypedVariable[]): string {
  return variables.map((v) => (v.type === undefined ? v.name : `${v.name} - ${v.type}`)).join(" ");
}

function list(head: string, args: readonly string[]): string {
  return args.length === 0 ? `(${head})` : `(${head} ${args.join(" ")})`;
}

/** Quantified variables shadow outer bindings of the same name. */
function without(bindings: Bindings, variables: readonly TypedVariable[]): Bindings {
  if (!variables.some((v) => bindings.has(v.name))) return bindings;
  const inner = new Map(bindings);
  for (const v of variables) inner.delete(v.name);
  return inner;
}
