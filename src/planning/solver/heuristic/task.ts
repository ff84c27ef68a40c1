/**
 * The ground task the heuristic search works on, and its exact semantics: conditions, numeric
 * expressions and effects evaluated as the plan check (src/formal/simulate.ts) evaluates them,
 * so a plan the search finds is one the check accepts.
 *
 * What "exact" takes here:
 * - `and`, `or` and `not` read their parts left to right and stop early, as the simulator
 *   does; reading a fluent without value or dividing by zero *fails*, and a failure inside a
 *   precondition, a `when` condition, a numeric value, a constraint or the goal makes the step
 *   (or the state) unusable, which is what the simulator's "invalid" means for a plan.
 * - A step's effects are all computed in the state before it; deletes go before adds, and
 *   numeric updates are applied in written order.
 * - Atoms are numbered; a state is a bit set of the atoms that hold and an array of fluent
 *   values (NaN: no value yet). What never changes was folded into constants when grounding.
 */
import type { NumericEffectOperator } from "../../../formal/expression.js";
import { compare, updated } from "../../../formal/state.js";

/** A ground numeric expression. */
export type Num =
  | { k: "const"; value: number }
  | { k: "fluent"; id: number }
  /** A fluent that never has a value: reading it fails. */
  | { k: "missing" }
  | { k: "arith"; op: "+" | "-" | "*" | "/"; args: Num[] };

/** A numeric comparison. */
export type CompareOp = "<" | "<=" | "=" | ">=" | ">";

/** A ground condition; parts keep the order in which the simulator reads them. */
export type Cond =
  | { k: "const"; value: boolean }
  | { k: "atom"; id: number }
  | { k: "not"; part: Cond }
  | { k: "and" | "or"; parts: Cond[] }
  | { k: "cmp"; op: CompareOp; left: Num; right: Num };

/** A numeric update: the formal model's own operators. */
export type NumericOp = NumericEffectOperator;

/** One effect of a ground action, in written order. */
export type EffectItem =
  | { k: "add" | "del"; atom: number }
  | { k: "num"; op: NumericOp; fluent: number; value: Num }
  | { k: "when"; cond: Cond; items: EffectItem[] };

/** A ground action. */
export interface GroundOp {
  /** The plan step: `(name a b)`. */
  step: string;
  pre: Cond;
  /** Not readonly: grounding drops updates nothing reads (ground-task.ts). */
  effects: EffectItem[];
}

/** The ground planning task. */
export interface Task {
  /** `pred a b` per atom id. */
  atoms: string[];
  /** `name a b` per fluent id. */
  fluents: string[];
  initial: State;
  ops: GroundOp[];
  goal: Cond;
  /** True in every state of a plan, the initial one included. */
  constraints: Cond;
}

/** A state of the search. */
export interface State {
  /** Bit i of word i >>> 5: atom i holds. */
  bits: Uint32Array;
  /** Per fluent; NaN when it has no value. */
  values: Float64Array;
}

export const TRUE: Cond = Object.freeze({ k: "const", value: true }) as Cond;
export const FALSE: Cond = Object.freeze({ k: "const", value: false }) as Cond;

/** Whether atom `atom` holds in the bit set. */
export function holds(bits: Uint32Array, atom: number): boolean {
  return ((bits[atom >>> 5] as number) & (1 << (atom & 31))) !== 0;
}

/** Makes atom `atom` hold. */
export function setBit(bits: Uint32Array, atom: number): void {
  bits[atom >>> 5] = (bits[atom >>> 5] as number) | (1 << (atom & 31));
}

/** Makes atom `atom` false. */
export function clearBit(bits: Uint32Array, atom: number): void {
  bits[atom >>> 5] = (bits[atom >>> 5] as number) & ~(1 << (atom & 31));
}

/** Three outcomes of a condition: it holds, it is false, or evaluating it failed. */
export const YES = 1;
export const NO = 0;
export const FAIL = -1;
/** One of YES, NO and FAIL. */
export type Truth = typeof YES | typeof NO | typeof FAIL;

/** A numeric value; NaN when the evaluation failed (no value, division by zero). */
export function evalNum(e: Num, s: State): number {
  switch (e.k) {
    case "const":
      return e.value;
    case "fluent":
      return s.values[e.id] as number;
    case "missing":
      return Number.NaN;
    case "arith": {
      // All operands first, as the simulator computes them: a failure anywhere fails the whole.
      const values: number[] = [];
      for (const a of e.args) {
        const v = evalNum(a, s);
        if (Number.isNaN(v)) return Number.NaN;
        values.push(v);
      }
      return arithmetic(e.op, values);
    }
  }
}

/** The simulator's arithmetic on computed operands; NaN for a division by zero. */
export function arithmetic(op: "+" | "-" | "*" | "/", values: readonly number[]): number {
  const first = values[0] ?? 0;
  if (op === "-" && values.length === 1) return -first;
  let acc = first;
  for (let i = 1; i < values.length; i += 1) {
    const v = values[i] as number;
    if (op === "/" && v === 0) return Number.NaN;
    acc = op === "+" ? acc + v : op === "-" ? acc - v : op === "*" ? acc * v : acc / v;
  }
  return acc;
}

/** A comparison of two computed values: the simulator's own. */
export const compareValues: (op: CompareOp, a: number, b: number) => boolean = compare;

/** Evaluates a condition in a state, left to right and stopping early, as the simulator does. */
export function evalCond(c: Cond, s: State): Truth {
  switch (c.k) {
    case "const":
      return c.value ? YES : NO;
    case "atom":
      return holds(s.bits, c.id) ? YES : NO;
    case "not": {
      const t = evalCond(c.part, s);
      return t === FAIL ? FAIL : t === YES ? NO : YES;
    }
    case "and":
      for (const p of c.parts) {
        const t = evalCond(p, s);
        if (t !== YES) return t;
      }
      return YES;
    case "or":
      for (const p of c.parts) {
        const t = evalCond(p, s);
        if (t !== NO) return t;
      }
      return NO;
    case "cmp": {
      const a = evalNum(c.left, s);
      if (Number.isNaN(a)) return FAIL;
      const b = evalNum(c.right, s);
      if (Number.isNaN(b)) return FAIL;
      return compareValues(c.op, a, b) ? YES : NO;
    }
  }
}

interface Update {
  op: NumericOp;
  fluent: number;
  value: number;
}

/** Gathers the changes of `items` in `s`; false when the step fails (the simulator's "invalid"). */
function collect(items: readonly EffectItem[], s: State, adds: number[], dels: number[], updates: Update[]): boolean {
  for (const item of items) {
    switch (item.k) {
      case "add":
        adds.push(item.atom);
        break;
      case "del":
        dels.push(item.atom);
        break;
      case "when": {
        const t = evalCond(item.cond, s);
        if (t === FAIL) return false;
        if (t === YES && !collect(item.items, s, adds, dels, updates)) return false;
        break;
      }
      case "num": {
        // Only `assign` may give a fluent its first value.
        if (item.op !== "assign" && Number.isNaN(s.values[item.fluent] as number)) return false;
        const value = evalNum(item.value, s);
        if (Number.isNaN(value)) return false;
        if (item.op === "scale-down" && value === 0) return false;
        updates.push({ op: item.op, fluent: item.fluent, value });
        break;
      }
    }
  }
  return true;
}

/** The state after `op` in `s`, or undefined when a part of its effect fails there. The precondition is not checked. */
export function applyOp(op: GroundOp, s: State): State | undefined {
  const adds: number[] = [];
  const dels: number[] = [];
  const updates: Update[] = [];
  if (!collect(op.effects, s, adds, dels, updates)) return undefined;
  const bits = s.bits.slice();
  for (const d of dels) clearBit(bits, d);
  for (const a of adds) setBit(bits, a);
  let values = s.values;
  if (updates.length > 0) {
    values = s.values.slice();
    for (const u of updates) {
      const before = Number.isNaN(values[u.fluent] as number) ? 0 : (values[u.fluent] as number);
      values[u.fluent] = updated(u.op, before, u.value);
    }
  }
  return { bits, values };
}

/** Whether `op` may be taken in `s`: its precondition holds (a failure counts as false). */
export function applicable(op: GroundOp, s: State): boolean {
  return evalCond(op.pre, s) === YES;
}
