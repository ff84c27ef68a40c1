/**
 * The FF heuristic (a relaxed plan's length) with Metric-FF's numeric extension, and FF's
 * helpful actions. Deletes are ignored; each fluent is an interval that only widens (every
 * update an applicable action can make is added to it, layer after layer), so a condition
 * once possible stays possible. The relaxed plan is extracted backwards from the goal: an
 * atom by the action that first reached it, a numeric condition by the action that moves it
 * most towards truth in the current state, counted as often as the gap needs (Metric-FF
 * counts repeated applications the same way).
 *
 * Units: an action's unconditional part, and each of its `when` parts with the action's
 * precondition and the `when` condition, are separate relaxed actions, as in FF.
 * Atoms negated in a condition get a second proposition, "false", reached by the actions
 * that delete them. Anything else the counters cannot carry (`or`, comparisons, nested
 * forms) is checked on the layer's atoms and intervals. The units, propositions and their
 * indexes are compiled once per task by relaxed-problem.ts; this file builds the layers of
 * one state over them and extracts the relaxed plan.
 */
import { FluentIntervals } from "./fluent-intervals.js";
import { countNumericGap } from "./numeric-gaps.js";
import type { GapContext } from "./numeric-gaps.js";
import { RelaxedProblem } from "./relaxed-problem.js";
import type { RelaxedUnit as Unit } from "./relaxed-problem.js";
import type { Cond, State, Task } from "./task.js";
import { holds } from "./task.js";

const INF = 0x3fffffff;
/** Layers built before a state is called a dead end (an idle layer jumps to unbounded repetition). */
const MAX_LAYERS = 400;

/** A state's estimate and the helpful actions that come with it. */
export interface Estimate {
  /** Relaxed plan length; Infinity when the goal is out of reach even relaxed. */
  h: number;
  /** Ops applicable in the state that the relaxed plan starts with or that reach a first subgoal. */
  helpful: number[];
}

/** The FF heuristic over one task; one instance per search, its scratch arrays reused by every estimate. */
export class RelaxedPlanHeuristic {
  /** The task's units, propositions and their indexes. */
  private readonly problem: RelaxedProblem;
  /** The problem's units (read on every layer). */
  private readonly units: readonly Unit[];

  // Scratch, reused by every call.
  private readonly level: Int32Array;
  private readonly firstAchiever: Int32Array;
  private readonly counter: Int32Array;
  private readonly unitLevel: Int32Array;
  /** Extraction's marks, reused: the highest layer at which a chosen unit achieves a proposition (it counts as achieved there and below), whether it was asked for, which units and actions were chosen. */
  private readonly marked: Int32Array;
  private readonly asked: Uint8Array;
  private readonly unitChosen: Uint8Array;
  private readonly opChosen: Uint8Array;
  /** The fluents' intervals, layer by layer. */
  private readonly intervals: FluentIntervals;
  /** What the numeric gap counting reads of the graph. */
  private readonly gapContext: GapContext;

  constructor(task: Task) {
    this.problem = new RelaxedProblem(task);
    const { propCount, units, fluentCount, updaters } = this.problem;
    this.units = units;
    this.level = new Int32Array(propCount);
    this.firstAchiever = new Int32Array(propCount);
    this.counter = new Int32Array(units.length);
    this.unitLevel = new Int32Array(units.length);
    this.marked = new Int32Array(propCount);
    this.asked = new Uint8Array(propCount);
    this.unitChosen = new Uint8Array(units.length);
    this.opChosen = new Uint8Array(task.ops.length);
    this.intervals = new FluentIntervals(fluentCount);
    this.gapContext = { nums: (u) => (units[u] as Unit).nums, updaters, unitLevel: this.unitLevel };
  }

  /** How many estimates stopped at the layer bound rather than proving the goal out of reach. */
  cappedEstimates = 0;

  /** The estimate of a state: Infinity when even the relaxation cannot reach the goal. */
  estimate(state: State): Estimate {
    const goalLayer = this.build(state);
    if (goalLayer < 0) return { h: Number.POSITIVE_INFINITY, helpful: [] };
    return this.extract(state, goalLayer);
  }

  /** Builds the relaxed layers; the layer at which the goal is first possible, or -1. */
  private build(state: State): number {
    const { level, counter, unitLevel, units } = this;
    const { atomCount, negProp, needStart, needList } = this.problem;
    level.fill(INF);
    unitLevel.fill(INF);
    for (let i = 0; i < units.length; i += 1) counter[i] = (units[i] as Unit).pre.length;
    this.intervals.reset(state.values);

    let frontier: number[] = [];
    for (let a = 0; a < atomCount; a += 1) {
      const neg = negProp[a] as number;
      if (holds(state.bits, a)) {
        level[a] = 0;
        this.firstAchiever[a] = -1;
        frontier.push(a);
      } else if (neg >= 0) {
        level[neg] = 0;
        this.firstAchiever[neg] = -1;
        frontier.push(neg);
      }
    }
    const waiting: number[] = [];
    // Units with no counted precondition are ready from the start.
    for (let i = 0; i < units.length; i += 1) if ((units[i] as Unit).pre.length === 0) waiting.push(i);
    for (let layer = 0; layer < MAX_LAYERS; layer += 1) {
      for (const p of frontier) {
        for (let k = needStart[p] as number, end = needStart[p + 1] as number; k < end; k += 1) {
          const u = needList[k] as number;
          counter[u] = (counter[u] as number) - 1;
          if (counter[u] === 0) waiting.push(u);
        }
      }
      if (this.goalPossible()) return layer;
      const next: number[] = [];
      let applied = false;
      for (let w = waiting.length - 1; w >= 0; w -= 1) {
        const u = waiting[w] as number;
        const unit = units[u] as Unit;
        if (unit.rest.length > 0 && !this.allPossible(unit.rest)) continue;
        waiting[w] = waiting[waiting.length - 1] as number;
        waiting.pop();
        unitLevel[u] = layer;
        applied = true;
        if (unit.nums.length > 0) this.intervals.activate(unit.nums);
        for (const p of unit.adds) {
          if ((level[p] as number) !== INF) continue;
          level[p] = layer + 1;
          this.firstAchiever[p] = u;
          next.push(p);
        }
      }
      // A layer that brings nothing new is idle: the intervals jump to what unbounded
      // repetition of the active updates gives (still an over-approximation), so a goal out of
      // reach is known as such a layer later instead of after endless small steps.
      const idle = !applied && next.length === 0;
      const widened = this.intervals.widen(idle ? Number.POSITIVE_INFINITY : 1);
      if (idle && !widened) return -1;
      frontier = next;
    }
    this.cappedEstimates += 1;
    return -1;
  }

  private allPossible(conds: readonly Cond[]): boolean {
    for (const c of conds) if (!this.possible(c)) return false;
    return true;
  }

  private goalPossible(): boolean {
    for (const p of this.problem.goalPre) if ((this.level[p] as number) === INF) return false;
    return this.problem.goalRest.every((c) => this.possible(c));
  }

  /** Whether `c` may hold on the current layer. */
  private possible(c: Cond): boolean {
    switch (c.k) {
      case "const":
        return c.value;
      case "atom":
        return (this.level[c.id] as number) !== INF;
      case "not": {
        if (c.part.k !== "atom") return true;
        const neg = this.problem.negProp[c.part.id] as number;
        return neg < 0 || (this.level[neg] as number) !== INF;
      }
      case "and":
        return c.parts.every((p) => this.possible(p));
      case "or":
        return c.parts.some((p) => this.possible(p));
      case "cmp":
        return this.intervals.possible(c);
    }
  }

  /** The first layer on which a comparison is possible, INF for none. */
  private cmpLevel(c: Extract<Cond, { k: "cmp" }>): number {
    const layer = this.intervals.firstLayer(c);
    return Number.isFinite(layer) ? layer : INF;
  }

  /** The relaxed level of a condition, for choosing among an `or`'s parts. */
  private condLevel(c: Cond): number {
    switch (c.k) {
      case "const":
        return c.value ? 0 : INF;
      case "atom":
        return this.level[c.id] as number;
      case "not": {
        if (c.part.k !== "atom") return 0;
        const neg = this.problem.negProp[c.part.id] as number;
        return neg < 0 ? 0 : (this.level[neg] as number);
      }
      case "and":
        return c.parts.reduce((m, p) => Math.max(m, this.condLevel(p)), 0);
      case "or":
        return c.parts.reduce((m, p) => Math.min(m, this.condLevel(p)), INF);
      case "cmp":
        return this.cmpLevel(c);
    }
  }

  /**
   * FF's extraction: goals sorted into the layer where each is first reached, taken from the
   * top layer down; each gets the achiever of the layer below with the easiest preconditions,
   * whose adds then count as true there, so no other goal pays for them again.
   */
  private extract(state: State, goalLayer: number): Estimate {
    const buckets: number[][] = Array.from({ length: goalLayer + 2 }, () => []);
    const { marked, asked, unitChosen, opChosen } = this;
    const { negProp, goalPre, goalRest, addStart, addList } = this.problem;
    marked.fill(-1);
    asked.fill(0);
    unitChosen.fill(0);
    opChosen.fill(0);
    const chosen: number[] = [];
    let chosenOps = 0;
    const doneConds = new Set<Cond>();
    let repeats = 0;

    const needProp = (p: number): void => {
      if (asked[p] === 1) return;
      asked[p] = 1;
      const l = this.level[p] as number;
      if (l === 0 || l === INF) return;
      (buckets[Math.min(l, buckets.length - 1)] as number[]).push(p);
    };
    const chooseUnit = (u: number, at: number): void => {
      const unit = this.units[u] as Unit;
      // The adds count as achieved at the layer the unit serves and every layer below. (FF counts
      // them at that layer and the one below only; on a sample of 17 competition problems this
      // solved 8 within 8 s against FF's 6, Blocksworld gaining most.)
      for (const a of unit.adds) if ((marked[a] as number) < at) marked[a] = at;
      if (unitChosen[u] === 1) return;
      unitChosen[u] = 1;
      chosen.push(u);
      if (opChosen[unit.op] === 0) {
        opChosen[unit.op] = 1;
        chosenOps += 1;
      }
      for (const p of unit.pre) needProp(p);
      for (const c of unit.rest) needCond(c);
    };
    const needCond = (c: Cond): void => {
      if (doneConds.has(c)) return;
      doneConds.add(c);
      switch (c.k) {
        case "const":
          return;
        case "atom":
          needProp(c.id);
          return;
        case "not":
          if (c.part.k === "atom" && (negProp[c.part.id] as number) >= 0) needProp(negProp[c.part.id] as number);
          return;
        case "and":
          for (const p of c.parts) needCond(p);
          return;
        case "or": {
          let best: Cond | undefined;
          let bestLevel = INF + 1;
          for (const p of c.parts) {
            const l = this.condLevel(p);
            if (l < bestLevel) {
              best = p;
              bestLevel = l;
            }
          }
          if (best !== undefined) needCond(best);
          return;
        }
        case "cmp":
          repeats += countNumericGap(c, state, this.cmpLevel(c), this.gapContext, (u) => chooseUnit(u, (this.unitLevel[u] as number) + 1));
          return;
      }
    };

    for (const p of goalPre) needProp(p);
    for (const c of goalRest) needCond(c);
    for (let layer = buckets.length - 1; layer >= 1; layer -= 1) {
      const bucket = buckets[layer] as number[];
      // Goals may be added to this layer while it is worked through.
      for (let k = 0; k < bucket.length; k += 1) {
        const p = bucket[k] as number;
        if ((marked[p] as number) >= layer) continue;
        const u = this.easiestAchiever(p, layer - 1);
        if (u >= 0) chooseUnit(u, layer);
      }
    }
    // FF's helpful actions: those applicable now that add a goal of the first layer.
    const helpful = new Set<number>();
    for (const u of chosen) if ((this.unitLevel[u] as number) === 0) helpful.add((this.units[u] as Unit).op);
    for (const p of buckets[1] ?? []) {
      for (let k = addStart[p] as number, end = addStart[p + 1] as number; k < end; k += 1) {
        const u = addList[k] as number;
        if ((this.unitLevel[u] as number) === 0) helpful.add((this.units[u] as Unit).op);
      }
    }
    // The goal is not possible before this layer, so at least one action is needed, whatever was counted.
    return { h: Math.max(goalLayer > 0 ? 1 : 0, chosenOps + repeats), helpful: [...helpful] };
  }

  /** Among the units of layer `at` that add `p`, the one whose preconditions were reached earliest in sum. */
  private easiestAchiever(p: number, at: number): number {
    let best = -1;
    let bestCost = Number.POSITIVE_INFINITY;
    const { addStart, addList } = this.problem;
    for (let k = addStart[p] as number, end = addStart[p + 1] as number; k < end; k += 1) {
      const u = addList[k] as number;
      if ((this.unitLevel[u] as number) !== at) continue;
      let cost = 0;
      for (const q of (this.units[u] as Unit).pre) cost += this.level[q] as number;
      if (cost < bestCost) {
        best = u;
        bestCost = cost;
      }
    }
    return best >= 0 ? best : (this.firstAchiever[p] as number);
  }
}
