/**
 * A world state of the simulation (closed world: the facts that hold, the fluents that have
 * a value) and the evaluation of conditions and effects in it. Evaluation reports the
 * smallest false sub-expression, with its variables filled in, because that is what an agent
 * repairing its plan needs to read.
 */
import type { Atom, Condition, Effect, InitialFact, NumericEffectOperator, NumericExpression, Term, TypedVariable } from "./expression.js";
import { formatCondition, formatEffect, formatNumeric, formatTerm } from "./format.js";
import type { Bindings } from "./format.js";
import type { FormalObject } from "./model.js";

export interface WorldState {
  /** Ground atoms, as `pred a b`. */
  facts: ReadonlySet<string>;
  /** Ground fluents, as `name a b`, and their values. */
  fluents: ReadonlyMap<string, number>;
}

/**
 * Something that stops a simulation other than a false condition: a fluent without a value,
 * a division by zero, or a bound hit. Thrown inside the simulator only, always caught there.
 */
export class SimulationStop extends Error {
  constructor(
    readonly kind: "invalid" | "bound",
    readonly failed: string,
    message: string,
  ) {
    super(message);
  }
}

/** What evaluating against a state needs besides the state. */
export interface Evaluation {
  state: WorldState;
  objects: readonly FormalObject[];
  /** Quantifier instances left before the simulation stops at its bound. */
  budget: { left: number };
}

export type Outcome = { holds: true } | { holds: false; failed: string; detail?: string };

const HOLDS: Outcome = { holds: true };

/** The closed-world state an initial-state fact list describes. */
export function initialWorld(facts: readonly InitialFact[]): WorldState {
  const atoms = new Set<string>();
  const fluents = new Map<string, number>();
  for (const f of facts) {
    if (f.kind === "atom") atoms.add(key(f.predicate, f.args));
    else fluents.set(key(f.name, f.args), f.value);
  }
  return { facts: atoms, fluents };
}

/** Whether `cond` holds, and if not, the smallest false part of it. */
export function evaluate(cond: Condition, bindings: Bindings, ev: Evaluation): Outcome {
  switch (cond.kind) {
    case "atom":
      return ev.state.facts.has(groundKey(cond, bindings)) ? HOLDS : { holds: false, failed: formatCondition(cond, bindings) };
    case "equal":
      return resolve(cond.left, bindings) === resolve(cond.right, bindings) ? HOLDS : { holds: false, failed: formatCondition(cond, bindings) };
    case "compare": {
      const left = numeric(cond.left, bindings, ev.state);
      const right = numeric(cond.right, bindings, ev.state);
      if (compare(cond.op, left, right)) return HOLDS;
      const values = [cond.left, cond.right]
        .filter((e) => e.kind !== "number")
        .map((e) => `${formatNumeric(e, bindings)} is ${numeric(e, bindings, ev.state)}`);
      return { holds: false, failed: formatCondition(cond, bindings), ...(values.length > 0 ? { detail: values.join(" and ") } : {}) };
    }
    case "and":
      for (const part of cond.parts) {
        const outcome = evaluate(part, bindings, ev);
        if (!outcome.holds) return outcome;
      }
      return HOLDS;
    case "or":
      // No single disjunct is to blame: the whole disjunction is the smallest false part.
      return cond.parts.some((p) => evaluate(p, bindings, ev).holds) ? HOLDS : { holds: false, failed: formatCondition(cond, bindings) };
    case "not":
      return evaluate(cond.part, bindings, ev).holds ? { holds: false, failed: formatCondition(cond, bindings) } : HOLDS;
    case "imply": {
      if (!evaluate(cond.antecedent, bindings, ev).holds) return HOLDS;
      const outcome = evaluate(cond.consequent, bindings, ev);
      if (outcome.holds) return outcome;
      // The consequent is the smallest false part; the antecedent's instance says why it had to
      // hold ("(at farmer left) is false, while (and (at wolf left) (at goat left)) holds").
      const because = `while ${formatCondition(cond.antecedent, bindings)} holds`;
      return { ...outcome, detail: outcome.detail ? `${outcome.detail}, ${because}` : because };
    }
    case "forall": {
      let found: Outcome = HOLDS;
      instances(cond.variables, bindings, ev, (inner) => {
        const outcome = evaluate(cond.body, inner, ev);
        if (!outcome.holds) found = outcome;
        return outcome.holds;
      });
      return found;
    }
    case "exists": {
      let witness = false;
      instances(cond.variables, bindings, ev, (inner) => {
        witness = evaluate(cond.body, inner, ev).holds;
        return !witness;
      });
      return witness ? HOLDS : { holds: false, failed: formatCondition(cond, bindings) };
    }
  }
}

/** The changes one step makes, all computed in the state before it. */
export interface Changes {
  adds: Set<string>;
  deletes: Set<string>;
  updates: { key: string; op: NumericEffectOperator; value: number; text: string }[];
}

/** Collects what `eff` changes, `when` conditions and numeric values read in the state before the step. */
export function collectChanges(eff: Effect, bindings: Bindings, ev: Evaluation, changes: Changes): void {
  switch (eff.kind) {
    case "add":
      changes.adds.add(groundKey(eff.atom, bindings));
      return;
    case "delete":
      changes.deletes.add(groundKey(eff.atom, bindings));
      return;
    case "and":
      for (const part of eff.parts) collectChanges(part, bindings, ev, changes);
      return;
    case "forall":
      instances(eff.variables, bindings, ev, (inner) => {
        collectChanges(eff.body, inner, ev, changes);
        return true;
      });
      return;
    case "when":
      if (evaluate(eff.condition, bindings, ev).holds) collectChanges(eff.effect, bindings, ev, changes);
      return;
    case "numeric": {
      const k = key(eff.fluent.name, eff.fluent.args.map((a) => resolve(a, bindings)));
      const text = formatNumeric(eff.fluent, bindings);
      if (eff.op !== "assign" && !ev.state.fluents.has(k)) {
        throw new SimulationStop("invalid", text, `${text} has no value to ${eff.op}`);
      }
      const value = numeric(eff.value, bindings, ev.state);
      // Scaling down by zero is a division by zero, invalid as `/` by zero is.
      if (eff.op === "scale-down" && value === 0) {
        const whole = formatEffect(eff, bindings);
        throw new SimulationStop("invalid", whole, `${whole} divides by zero`);
      }
      changes.updates.push({ key: k, op: eff.op, value, text });
      return;
    }
  }
}

/** The state after `changes`: deletes before adds (so an action may delete and re-add), then numeric updates in written order. */
export function applyChanges(state: WorldState, changes: Changes): WorldState {
  const facts = new Set(state.facts);
  for (const d of changes.deletes) facts.delete(d);
  for (const a of changes.adds) facts.add(a);
  const fluents = new Map(state.fluents);
  for (const u of changes.updates) {
    fluents.set(u.key, updated(u.op, fluents.get(u.key) ?? 0, u.value));
  }
  return { facts, fluents };
}

/** A fluent's value after one numeric effect, in floating point as the simulator computes it. */
export function updated(op: NumericEffectOperator, before: number, value: number): number {
  switch (op) {
    case "assign":
      return value;
    case "increase":
      return before + value;
    case "decrease":
      return before - value;
    case "scale-up":
      return before * value;
    case "scale-down":
      return before / value;
  }
}

/** Whether `object` may stand for a variable of `type`: always when untyped or `object` (PDDL's root type). */
export function hasType(object: FormalObject, type: string | undefined): boolean {
  return type === undefined || type === "object" || object.types.includes(type);
}

/** Objects a typed variable ranges over. */
export function objectsOfType(objects: readonly FormalObject[], type: string | undefined): readonly FormalObject[] {
  return type === undefined || type === "object" ? objects : objects.filter((o) => hasType(o, type));
}

/**
 * Calls `visit` with every binding of `variables` (each over its type), until `visit`
 * returns false. Each binding spends one unit of the budget.
 */
function instances(variables: readonly TypedVariable[], bindings: Bindings, ev: Evaluation, visit: (inner: Bindings) => boolean): void {
  const go = (i: number, current: Map<string, string>): boolean => {
    const v = variables[i];
    if (v === undefined) {
      ev.budget.left -= 1;
      if (ev.budget.left < 0) throw new SimulationStop("bound", "", "quantifiers expanded to more instances than the bound allows");
      return visit(current);
    }
    for (const o of objectsOfType(ev.objects, v.type)) {
      const next = new Map(current);
      next.set(v.name, o.symbol);
      if (!go(i + 1, next)) return false;
    }
    return true;
  };
  go(0, new Map(bindings));
}

function numeric(expr: NumericExpression, bindings: Bindings, state: WorldState): number {
  switch (expr.kind) {
    case "number":
      return expr.value;
    case "fluent": {
      const value = state.fluents.get(key(expr.name, expr.args.map((a) => resolve(a, bindings))));
      if (value === undefined) {
        const text = formatNumeric(expr, bindings);
        throw new SimulationStop("invalid", text, `${text} has no value`);
      }
      return value;
    }
    case "arithmetic": {
      const values = expr.args.map((a) => numeric(a, bindings, state));
      const [first = 0, ...rest] = values;
      if (expr.op === "-" && rest.length === 0) return -first;
      return rest.reduce((acc, v) => {
        if (expr.op === "/" && v === 0) {
          const text = formatNumeric(expr, bindings);
          throw new SimulationStop("invalid", text, `${text} divides by zero`);
        }
        return expr.op === "+" ? acc + v : expr.op === "-" ? acc - v : expr.op === "*" ? acc * v : acc / v;
      }, first);
    }
  }
}

/** A numeric comparison as plans are checked; the planner folds constants with the same function. */
export function compare(op: string, a: number, b: number): boolean {
  switch (op) {
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">=":
      return a >= b;
    case ">":
      return a > b;
    default:
      return a === b;
  }
}

function resolve(term: Term, bindings: Bindings): string {
  return formatTerm(term, bindings);
}

function groundKey(atom: Atom, bindings: Bindings): string {
  return key(atom.predicate, atom.args.map((a) => resolve(a, bindings)));
}

/** The key of a ground atom or fluent in a state. */
export function key(name: string, args: readonly string[]): string {
  return [name, ...args].join(" ");
}
