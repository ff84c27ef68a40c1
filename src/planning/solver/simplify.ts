/**
 * Constant folding of ground trees with what is known about atoms and fluents, keeping the
 * simulator's left-to-right, stop-early evaluation exact: a part that may fail (read a fluent
 * without value, divide by zero) is never folded away where the simulator would evaluate it,
 * since failing makes a plan invalid even under a `not`.
 */
import type { ArithmeticOperator } from "../../formal/expression.js";
import { compare } from "../../formal/state.js";
import type { Definedness, GroundCondition, GroundEffect, GroundNumeric } from "./ground.js";
import { FALSE, NO_EFFECT, TRUE } from "./ground.js";

/** What is known about one atom: its constant truth, its (renumbered) id, or "unread" (no condition reads it). */
export type AtomFact = boolean | number | "unread";

/** What is known about one fluent: a constant value, or its (renumbered) id and whether it has a value. */
export type FluentFact = { value: number } | { id: number; definedness: Definedness };

export interface Knowledge {
  atom(id: number): AtomFact;
  fluent(id: number): FluentFact;
}

interface Simplified<T> {
  node: T;
  /** Whether evaluating the node may stop the simulation (no value, division by zero). */
  fails: boolean;
}

export function simplifyCondition(cond: GroundCondition, k: Knowledge): GroundCondition {
  return condition(cond, k).node;
}

export function simplifyEffect(eff: GroundEffect, k: Knowledge): GroundEffect {
  return effect(eff, k).node;
}

/** Whether a condition may fail when evaluated (a fluent that may have no value, a division that may be by zero). */
export function conditionMayFail(cond: GroundCondition, definedness: (fluent: number) => Definedness): boolean {
  switch (cond.kind) {
    case "const":
    case "atom":
      return false;
    case "compare":
      return numericMayFail(cond.left, definedness) || numericMayFail(cond.right, definedness);
    case "and":
    case "or":
      return cond.parts.some((p) => conditionMayFail(p, definedness));
    case "not":
      return conditionMayFail(cond.part, definedness);
    case "imply":
      return conditionMayFail(cond.antecedent, definedness) || conditionMayFail(cond.consequent, definedness);
  }
}

function numericMayFail(expr: GroundNumeric, definedness: (fluent: number) => Definedness): boolean {
  switch (expr.kind) {
    case "number":
      return false;
    case "fluent":
      return definedness(expr.id) !== "always";
    case "arithmetic":
      return expr.args.some((a) => numericMayFail(a, definedness)) || (expr.op === "/" && expr.args.slice(1).some((a) => !(a.kind === "number" && a.value !== 0)));
  }
}

function constant(value: boolean): Simplified<GroundCondition> {
  return { node: value ? TRUE : FALSE, fails: false };
}

function condition(cond: GroundCondition, k: Knowledge): Simplified<GroundCondition> {
  switch (cond.kind) {
    case "const":
      return { node: cond, fails: false };
    case "atom": {
      const fact = k.atom(cond.id);
      // An unread atom cannot occur in a condition; keeping it as is would be a bug surfacing later.
      if (fact === "unread") throw new Error(`atom ${cond.id} is read by a condition but marked unread`);
      return typeof fact === "boolean" ? constant(fact) : { node: { kind: "atom", id: fact }, fails: false };
    }
    case "compare": {
      const left = numeric(cond.left, k);
      const right = numeric(cond.right, k);
      if (left.node.kind === "number" && right.node.kind === "number") return constant(compare(cond.op, left.node.value, right.node.value));
      return { node: { kind: "compare", op: cond.op, left: left.node, right: right.node }, fails: left.fails || right.fails };
    }
    case "and":
    case "or":
      return junction(cond.kind, cond.parts, k);
    case "not": {
      const part = condition(cond.part, k);
      if (part.node.kind === "const") return constant(!part.node.value);
      if (part.node.kind === "not") return { node: part.node.part, fails: part.fails };
      return { node: { kind: "not", part: part.node }, fails: part.fails };
    }
    case "imply": {
      const antecedent = condition(cond.antecedent, k);
      // The consequent is evaluated only when the antecedent holds.
      if (antecedent.node.kind === "const") return antecedent.node.value ? condition(cond.consequent, k) : constant(true);
      const consequent = condition(cond.consequent, k);
      if (consequent.node.kind === "const" && !antecedent.fails) {
        return consequent.node.value ? constant(true) : { node: { kind: "not", part: antecedent.node }, fails: false };
      }
      return { node: { kind: "imply", antecedent: antecedent.node, consequent: consequent.node }, fails: antecedent.fails || consequent.fails };
    }
  }
}

/**
 * `and` stops at its first false part, `or` at its first true one: the deciding constant ends
 * the list, and decides the whole only when nothing before it may fail.
 */
function junction(kind: "and" | "or", parts: readonly GroundCondition[], k: Knowledge): Simplified<GroundCondition> {
  const neutral = kind === "and";
  const kept: GroundCondition[] = [];
  let fails = false;
  for (const raw of parts) {
    const part = condition(raw, k);
    if (part.node.kind === "const") {
      if (part.node.value === neutral) continue;
      if (!fails) return constant(!neutral);
      kept.push(part.node);
      break;
    }
    // Nested junctions of the same kind evaluate in the same order when flattened.
    if (part.node.kind === kind) kept.push(...part.node.parts);
    else kept.push(part.node);
    fails ||= part.fails;
  }
  if (kept.length === 0) return constant(neutral);
  if (kept.length === 1) return { node: kept[0] as GroundCondition, fails };
  return { node: { kind, parts: kept }, fails };
}

function numeric(expr: GroundNumeric, k: Knowledge): Simplified<GroundNumeric> {
  switch (expr.kind) {
    case "number":
      return { node: expr, fails: false };
    case "fluent": {
      const fact = k.fluent(expr.id);
      if ("value" in fact) return { node: { kind: "number", value: fact.value }, fails: false };
      return { node: { kind: "fluent", id: fact.id }, fails: fact.definedness !== "always" };
    }
    case "arithmetic": {
      const args = expr.args.map((a) => numeric(a, k));
      const nodes = args.map((a) => a.node);
      const values = nodes.flatMap((n) => (n.kind === "number" ? [n.value] : []));
      const divisorZero = expr.op === "/" && nodes.slice(1).some((n) => n.kind !== "number" || n.value === 0);
      const folded = values.length === nodes.length && !divisorZero ? arithmetic(expr.op, values) : Number.NaN;
      // An overflow to infinity is not folded: Z3 computes such a value exactly, and the
      // simulator's check of the plan found has the last word on it.
      if (Number.isFinite(folded)) return { node: { kind: "number", value: folded }, fails: false };
      return { node: { kind: "arithmetic", op: expr.op, args: nodes }, fails: args.some((a) => a.fails) || divisorZero };
    }
  }
}

function effect(eff: GroundEffect, k: Knowledge): Simplified<GroundEffect> {
  switch (eff.kind) {
    case "add":
    case "delete": {
      const fact = k.atom(eff.atom);
      // A constant atom does not change, an unread one does not matter: the effect is dropped.
      return typeof fact === "number" ? { node: { kind: eff.kind, atom: fact }, fails: false } : { node: NO_EFFECT, fails: false };
    }
    case "numeric": {
      const fact = k.fluent(eff.fluent);
      // Known constant although updated here: reachability found this update never happens.
      if ("value" in fact) return { node: NO_EFFECT, fails: false };
      const value = numeric(eff.value, k);
      const unset = eff.op !== "assign" && fact.definedness !== "always";
      // Scaling down by what may be zero may divide by zero, as `/` may.
      const divisorZero = eff.op === "scale-down" && !(value.node.kind === "number" && value.node.value !== 0);
      return { node: { kind: "numeric", op: eff.op, fluent: fact.id, value: value.node }, fails: unset || value.fails || divisorZero };
    }
    case "and": {
      const parts: GroundEffect[] = [];
      let fails = false;
      for (const raw of eff.parts) {
        const part = effect(raw, k);
        fails ||= part.fails;
        if (part.node.kind === "and") parts.push(...part.node.parts);
        else parts.push(part.node);
      }
      return { node: parts.length === 1 ? (parts[0] as GroundEffect) : { kind: "and", parts }, fails };
    }
    case "when": {
      const cond = condition(eff.condition, k);
      if (cond.node.kind === "const" && !cond.node.value) return { node: NO_EFFECT, fails: false };
      const inner = effect(eff.effect, k);
      if (cond.node.kind === "const") return inner;
      const empty = inner.node.kind === "and" && inner.node.parts.length === 0;
      // A condition that may fail is still evaluated, even when what it guards changes nothing.
      if (empty && !cond.fails) return { node: NO_EFFECT, fails: false };
      return { node: { kind: "when", condition: cond.node, effect: inner.node }, fails: cond.fails || inner.fails };
    }
  }
}

/** The simulator's arithmetic, in floating point as it computes it. */
export function arithmetic(op: ArithmeticOperator, values: readonly number[]): number {
  const [first = 0, ...rest] = values;
  if (op === "-" && rest.length === 0) return -first;
  return rest.reduce((acc, v) => (op === "+" ? acc + v : op === "-" ? acc - v : op === "*" ? acc * v : acc / v), first);
}

