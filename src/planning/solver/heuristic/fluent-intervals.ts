/**
 * The numeric half of the relaxed planning graph: one interval per fluent that only widens,
 * layer by layer, kept per layer so the first layer where a comparison became possible can be
 * looked up. Constant `increase`, `decrease` and `assign` of the active relaxed actions are
 * summed up per fluent; the others are evaluated on every layer. An idle layer may widen
 * "without bound", which gives what unbounded repetition reaches and is still an
 * over-approximation.
 */
import type { Cond, Num, NumericOp } from "./task.js";

/** One numeric update of a relaxed action. */
export interface NumEffect {
  op: NumericOp;
  fluent: number;
  value: Num;
}

type Compare = Extract<Cond, { k: "cmp" }>;

/** The intervals of one relaxed planning graph: reset per state, widened per layer. */
export class FluentIntervals {
  private lo: Float64Array;
  private hi: Float64Array;
  /** Interval snapshots per layer (shared while unchanged). */
  private layersLo: Float64Array[] = [];
  private layersHi: Float64Array[] = [];
  /** Per fluent, over the active units: the largest constant step up and down, the range assigned. */
  private readonly up: Float64Array;
  private readonly down: Float64Array;
  private readonly assignLo: Float64Array;
  private readonly assignHi: Float64Array;
  private readonly touched: Uint8Array;
  /** Updates that are not constant steps, evaluated on every layer. */
  private dynamic: NumEffect[] = [];

  constructor(private readonly fluentCount: number) {
    this.lo = new Float64Array(fluentCount);
    this.hi = new Float64Array(fluentCount);
    this.up = new Float64Array(fluentCount);
    this.down = new Float64Array(fluentCount);
    this.assignLo = new Float64Array(fluentCount);
    this.assignHi = new Float64Array(fluentCount);
    this.touched = new Uint8Array(fluentCount);
  }

  /** Layer 0: each fluent's value in the state (an empty interval when it has none), nothing active. */
  reset(values: Float64Array): void {
    this.lo = new Float64Array(this.fluentCount);
    this.hi = new Float64Array(this.fluentCount);
    for (let f = 0; f < this.fluentCount; f += 1) {
      const v = values[f] as number;
      this.lo[f] = Number.isNaN(v) ? Number.POSITIVE_INFINITY : v;
      this.hi[f] = Number.isNaN(v) ? Number.NEGATIVE_INFINITY : v;
    }
    this.layersLo = [this.lo];
    this.layersHi = [this.hi];
    this.up.fill(0);
    this.down.fill(0);
    this.assignLo.fill(Number.POSITIVE_INFINITY);
    this.assignHi.fill(Number.NEGATIVE_INFINITY);
    this.touched.fill(0);
    this.dynamic = [];
  }

  /**
   * Makes a newly applicable unit's updates part of every later layer. Constant `increase`,
   * `decrease` and `assign` (nearly all of them) are summed up per fluent: the largest step
   * up, the largest step down, the range assigned; the rest are kept to be evaluated per layer.
   */
  activate(nums: readonly NumEffect[]): void {
    for (const e of nums) {
      const f = e.fluent;
      if (e.value.k !== "const" || e.op === "scale-up" || e.op === "scale-down") {
        this.dynamic.push(e);
        continue;
      }
      const v = e.value.value;
      if (e.op === "assign") {
        this.assignLo[f] = Math.min(this.assignLo[f] as number, v);
        this.assignHi[f] = Math.max(this.assignHi[f] as number, v);
      } else {
        const change = e.op === "increase" ? v : -v;
        if (change > 0) this.up[f] = Math.max(this.up[f] as number, change);
        else if (change < 0) this.down[f] = Math.max(this.down[f] as number, -change);
      }
      this.touched[f] = 1;
    }
  }

  /** Applies every active update once more (without bound when `times` is infinite); true when an interval changed. */
  widen(times: number): boolean {
    // Without fluents there is nothing to widen, and no layer's intervals are ever looked up.
    if (this.fluentCount === 0) return false;
    const lo = this.lo.slice();
    const hi = this.hi.slice();
    for (let f = 0; f < this.fluentCount; f += 1) {
      if (this.touched[f] !== 1) continue;
      const flo = this.lo[f] as number;
      const fhi = this.hi[f] as number;
      if (flo <= fhi) {
        if ((this.up[f] as number) > 0) hi[f] = fhi + repeated(times, this.up[f] as number);
        if ((this.down[f] as number) > 0) lo[f] = flo - repeated(times, this.down[f] as number);
      }
      if ((this.assignLo[f] as number) <= (this.assignHi[f] as number)) {
        lo[f] = Math.min(lo[f] as number, this.assignLo[f] as number);
        hi[f] = Math.max(hi[f] as number, this.assignHi[f] as number);
      }
    }
    for (const e of this.dynamic) {
      const [a, b] = this.interval(e.value);
      if (Number.isNaN(a) || a > b) continue;
      const f = e.fluent;
      const flo = this.lo[f] as number;
      const fhi = this.hi[f] as number;
      let nlo = flo;
      let nhi = fhi;
      if (e.op === "assign") {
        nlo = Math.min(flo, a);
        nhi = Math.max(fhi, b);
      } else if (flo > fhi) continue;
      else if (e.op === "increase") {
        nlo = Math.min(flo, flo + repeated(times, a));
        nhi = Math.max(fhi, fhi + repeated(times, b));
      } else if (e.op === "decrease") {
        nlo = Math.min(flo, flo - repeated(times, b));
        nhi = Math.max(fhi, fhi - repeated(times, a));
      } else if (times !== 1) {
        // Scaling repeated without bound: anything at all.
        nlo = Number.NEGATIVE_INFINITY;
        nhi = Number.POSITIVE_INFINITY;
      } else {
        const products = e.op === "scale-up" ? [flo * a, flo * b, fhi * a, fhi * b] : a <= 0 && b >= 0 ? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY] : [flo / a, flo / b, fhi / a, fhi / b];
        nlo = Math.min(flo, ...products);
        nhi = Math.max(fhi, ...products);
      }
      if (nlo < (lo[f] as number)) lo[f] = nlo;
      if (nhi > (hi[f] as number)) hi[f] = nhi;
    }
    let changed = false;
    for (let f = 0; f < this.fluentCount && !changed; f += 1) changed = lo[f] !== this.lo[f] || hi[f] !== this.hi[f];
    if (changed) {
      this.lo = lo;
      this.hi = hi;
    }
    this.layersLo.push(this.lo);
    this.layersHi.push(this.hi);
    return changed;
  }

  /** Whether a comparison may hold on the current layer (or on the layer whose intervals are given). */
  possible(c: Compare, lo = this.lo, hi = this.hi): boolean {
    const [a, b] = this.interval(c.left, lo, hi);
    const [x, y] = this.interval(c.right, lo, hi);
    if (Number.isNaN(a) || Number.isNaN(x) || a > b || x > y) return false;
    switch (c.op) {
      case "<":
        return a < y;
      case "<=":
        return a <= y;
      case ">":
        return b > x;
      case ">=":
        return b >= x;
      default:
        return a <= y && x <= b;
    }
  }

  /** The interval of a numeric expression on the current layer; [NaN, NaN] when it has no value. */
  interval(e: Num, lo = this.lo, hi = this.hi): [number, number] {
    switch (e.k) {
      case "const":
        return [e.value, e.value];
      case "fluent":
        return (lo[e.id] as number) > (hi[e.id] as number) ? [Number.NaN, Number.NaN] : [lo[e.id] as number, hi[e.id] as number];
      case "missing":
        return [Number.NaN, Number.NaN];
      case "arith": {
        const parts = e.args.map((a) => this.interval(a, lo, hi));
        if (parts.some(([a]) => Number.isNaN(a))) return [Number.NaN, Number.NaN];
        let [a, b] = parts[0] as [number, number];
        if (e.op === "-" && parts.length === 1) return [-b, -a];
        for (let i = 1; i < parts.length; i += 1) {
          const [c, d] = parts[i] as [number, number];
          // ∞ − ∞ is any number: the widest bound on that side.
          if (e.op === "+") [a, b] = [lower(a + c), upper(b + d)];
          else if (e.op === "-") [a, b] = [lower(a - d), upper(b - c)];
          else if (e.op === "*") {
            const p = [a * c, a * d, b * c, b * d].map((v) => (Number.isNaN(v) ? 0 : v));
            [a, b] = [Math.min(...p), Math.max(...p)];
          } else if (c <= 0 && d >= 0) {
            if (c === 0 && d === 0) return [Number.NaN, Number.NaN];
            [a, b] = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
          } else {
            const p = [a / c, a / d, b / c, b / d];
            [a, b] = [Math.min(...p), Math.max(...p)];
          }
        }
        return [a, b];
      }
    }
  }

  /** The first layer on which a comparison is possible, Infinity for none (intervals only widen: binary search). */
  firstLayer(c: Compare): number {
    let lo = 0;
    let hi = this.layersLo.length - 1;
    const possibleAt = (layer: number): boolean => this.possible(c, this.layersLo[layer], this.layersHi[layer]);
    if (!possibleAt(hi)) return Number.POSITIVE_INFINITY;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (possibleAt(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

function lower(v: number): number {
  return Number.isNaN(v) ? Number.NEGATIVE_INFINITY : v;
}

function upper(v: number): number {
  return Number.isNaN(v) ? Number.POSITIVE_INFINITY : v;
}

/** `times` repetitions of a change by `v`; no change stays none, even repeated without bound. */
function repeated(times: number, v: number): number {
  return v === 0 ? 0 : times * v;
}
