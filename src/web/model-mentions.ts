/**
 * What a formal expression speaks of: the predicates and fluents (state variables) it names and
 * the objects it names by symbol. An action's preconditions read what they mention; its
 * effects change the atoms and fluents they set, and read what their conditions and values
 * mention. Variables are left out: they stand for the action's parameters, drawn as such.
 */
import type { Condition, Effect, NumericExpression, Term } from "../formal/expression.js";

export interface Mentions {
  /** Predicate and fluent names, lower-cased, in the order first met. */
  predicates: Set<string>;
  /** Object symbols (constants), lower-cased, in the order first met. */
  objects: Set<string>;
}

export function noMentions(): Mentions {
  return { predicates: new Set(), objects: new Set() };
}

function terms(args: readonly Term[], into: Mentions): void {
  for (const t of args) if (t.kind === "constant") into.objects.add(t.name);
}

function numeric(expr: NumericExpression, into: Mentions): void {
  if (expr.kind === "fluent") {
    into.predicates.add(expr.name);
    terms(expr.args, into);
  } else if (expr.kind === "arithmetic") {
    for (const a of expr.args) numeric(a, into);
  }
}

/** Adds what `cond` mentions to `into`. */
export function conditionMentions(cond: Condition, into: Mentions): Mentions {
  switch (cond.kind) {
    case "atom":
      into.predicates.add(cond.predicate);
      terms(cond.args, into);
      break;
    case "equal":
      terms([cond.left, cond.right], into);
      break;
    case "compare":
      numeric(cond.left, into);
      numeric(cond.right, into);
      break;
    case "and":
    case "or":
      for (const p of cond.parts) conditionMentions(p, into);
      break;
    case "not":
      conditionMentions(cond.part, into);
      break;
    case "imply":
      conditionMentions(cond.antecedent, into);
      conditionMentions(cond.consequent, into);
      break;
    case "forall":
    case "exists":
      conditionMentions(cond.body, into);
      break;
  }
  return into;
}

/**
 * Adds what `eff` sets to `changes`, and what it only looks at (a `when` condition, the value a
 * fluent is increased by) to `reads`.
 */
export function effectMentions(eff: Effect, changes: Mentions, reads: Mentions): void {
  switch (eff.kind) {
    case "add":
    case "delete":
      changes.predicates.add(eff.atom.predicate);
      terms(eff.atom.args, changes);
      return;
    case "and":
      for (const p of eff.parts) effectMentions(p, changes, reads);
      return;
    case "forall":
      return effectMentions(eff.body, changes, reads);
    case "when":
      conditionMentions(eff.condition, reads);
      return effectMentions(eff.effect, changes, reads);
    case "numeric":
      numeric(eff.fluent, changes);
      numeric(eff.value, reads);
      return;
  }
}
