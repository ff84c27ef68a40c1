/**
 * Metric-FF's counting of a numeric gap in the relaxed plan: a comparison false in the state
 * is supported by the relaxed action whose numeric effects, applied once in the state, move it
 * most towards truth, counted as often as the gap needs; when no single action moves it, by the
 * action that first made it possible.
 */
import { updated } from "../../../formal/state.js";
import type { NumEffect } from "./fluent-intervals.js";
import type { Cond, Num, State } from "./task.js";
import { evalNum } from "./task.js";

/** A gap is never counted as more repetitions than this. */
const MAX_REPEATS = 10_000;
const EMPTY_BITS = new Uint32Array(0);

type Compare = Extract<Cond, { k: "cmp" }>;

/** What the counting reads of the relaxed planning graph. */
export interface GapContext {
  /** A relaxed action's numeric updates. */
  nums(unit: number): readonly NumEffect[];
  /** Fluent → the relaxed actions that update it. */
  updaters: readonly (readonly number[])[];
  /** Per relaxed action, the layer where it became applicable. */
  unitLevel: Int32Array;
}

/**
 * A comparison not true in `state`: the unit that moves it most towards truth, counted as
 * often as the gap needs. Returns the repetitions beyond the first.
 */
export function countNumericGap(c: Compare, state: State, level: number, ctx: GapContext, choose: (u: number) => void): number {
  const before = difference(c, state.values);
  // Without a value now, the unit that first made it possible is all that can be said.
  if (before === undefined) return firstPossibleUnit(comparedFluents(c), level, ctx, choose);
  const direction = c.op === ">" || c.op === ">=" ? 1 : c.op === "<" || c.op === "<=" ? -1 : before < 0 ? 1 : -1;
  const strict = c.op === ">" || c.op === "<";
  const gap = -direction * before;
  if (gap < 0 || (gap === 0 && !strict && c.op !== "=")) return 0;
  if (gap === 0 && c.op === "=") return 0;
  let best = -1;
  let bestGain = 0;
  const values = Float64Array.from(state.values);
  const fluents = comparedFluents(c);
  const candidates = new Set<number>();
  for (const f of fluents) for (const u of ctx.updaters[f] as number[]) candidates.add(u);
  for (const u of candidates) {
    const unitLevel = ctx.unitLevel[u] as number;
    const nums = ctx.nums(u);
    if (nums.length === 0 || unitLevel >= level) continue;
    const after = afterOnce(nums, values, state);
    if (after === undefined) continue;
    const moved = difference(c, after);
    if (moved === undefined) continue;
    let gain = direction * (moved - before);
    if (c.op === "=" && Math.abs(moved) >= Math.abs(before)) gain = 0;
    if (gain > bestGain + 1e-12) {
      best = u;
      bestGain = gain;
    }
  }
  // No single unit closes the gap from here: the unit that first made it possible.
  if (best < 0) return firstPossibleUnit(fluents, level, ctx, choose);
  choose(best);
  if (c.op === "=") return 0;
  const times = Math.ceil((strict && gap === 0 ? Number.EPSILON : gap) / bestGain - 1e-9);
  return Math.min(MAX_REPEATS, Math.max(1, times)) - 1;
}

/** Chooses the earliest unit before `level` that updates one of `fluents`; no repetitions counted. */
function firstPossibleUnit(fluents: ReadonlySet<number>, level: number, ctx: GapContext, choose: (u: number) => void): number {
  let best = -1;
  for (const f of fluents) {
    for (const u of ctx.updaters[f] as number[]) {
      const l = ctx.unitLevel[u] as number;
      if (l < level && (best < 0 || l < (ctx.unitLevel[best] as number))) best = u;
    }
  }
  if (best >= 0) choose(best);
  return 0;
}

/** left − right in a valuation, or undefined when either side has no value there. */
function difference(c: Compare, values: Float64Array): number | undefined {
  const s = { bits: EMPTY_BITS, values };
  const l = evalNum(c.left, s);
  const r = evalNum(c.right, s);
  return Number.isNaN(l) || Number.isNaN(r) ? undefined : l - r;
}

/** The fluent values after one application of a unit's numeric effects in `state` (its precondition not checked). */
function afterOnce(nums: readonly NumEffect[], values: Float64Array, state: State): Float64Array | undefined {
  const out = Float64Array.from(values);
  for (const e of nums) {
    const v = evalNum(e.value, state);
    if (Number.isNaN(v)) return undefined;
    const before = values[e.fluent] as number;
    if (e.op !== "assign" && Number.isNaN(before)) return undefined;
    out[e.fluent] = updated(e.op, before, v);
  }
  return out;
}

/** The fluents either side of a comparison reads. */
function comparedFluents(c: Compare): Set<number> {
  const fluents = new Set<number>();
  numFluents(c.left, fluents);
  numFluents(c.right, fluents);
  return fluents;
}

function numFluents(e: Num, out: Set<number>): void {
  if (e.k === "fluent") out.add(e.id);
  else if (e.k === "arith") for (const a of e.args) numFluents(a, out);
}
