/**
 * A task as the FF heuristic (relaxed.ts) sees it, compiled once per search: propositions
 * (the atoms, and a "false" proposition for each atom some condition negates), relaxed
 * actions ("units") over them, the indexes the relaxed layers are built from, and the goal.
 * It holds no state of an estimate: RelaxedPlanHeuristic builds the layers and extracts the
 * relaxed plan over it, for every state the search asks about.
 *
 * Units: an action's unconditional part, and each of its `when` parts with the action's
 * precondition and the `when` condition, are separate relaxed actions, as in FF. A unit's
 * condition is split into counted propositions (a top-level `and` of atoms and negated
 * atoms) and the rest (`or`, comparisons, nested forms), checked on the layer's atoms and
 * intervals.
 */
import type { NumEffect } from "./fluent-intervals.js";
import type { Cond, EffectItem, Task } from "./task.js";

/** One relaxed action: the op it comes from, its counted and other preconditions, the propositions it adds, its numeric updates. */
export interface RelaxedUnit {
  op: number;
  pre: Int32Array;
  rest: Cond[];
  adds: Int32Array;
  nums: NumEffect[];
}

/** The relaxed actions and propositions of one task, and which units need, add and update what. */
export class RelaxedProblem {
  /** Atoms of the task: propositions `0 .. atomCount - 1`. */
  readonly atomCount: number;
  /** Atom → its "false" proposition, or -1 when no condition negates it. */
  readonly negProp: Int32Array;
  /** Propositions: the atoms, then the "false" ones. */
  readonly propCount: number;
  /** The relaxed actions, in the order of their ops. */
  readonly units: RelaxedUnit[] = [];
  /** Proposition → units that need it (CSR). */
  readonly needStart: Int32Array;
  readonly needList: Int32Array;
  /** Proposition → units that add it (CSR). */
  readonly addStart: Int32Array;
  readonly addList: Int32Array;
  /** The goal's counted propositions, and the rest of it. */
  readonly goalPre: Int32Array;
  readonly goalRest: Cond[];
  /** Fluents of the task. */
  readonly fluentCount: number;
  /** Fluent → units that update it. */
  readonly updaters: number[][];

  constructor(task: Task) {
    this.atomCount = task.atoms.length;
    this.fluentCount = task.fluents.length;
    this.negProp = new Int32Array(this.atomCount).fill(-1);
    let props = this.atomCount;
    const noteNegated = (c: Cond): void => {
      if (c.k === "not" && c.part.k === "atom") {
        if ((this.negProp[c.part.id] as number) < 0) this.negProp[c.part.id] = props++;
      } else if (c.k === "not") noteNegated(c.part);
      else if (c.k === "and" || c.k === "or") for (const p of c.parts) noteNegated(p);
    };
    for (const op of task.ops) {
      noteNegated(op.pre);
      forEachWhen(op.effects, (cond) => noteNegated(cond));
    }
    noteNegated(task.goal);
    this.propCount = props;

    task.ops.forEach((op, index) => {
      const pre: number[] = [];
      const rest: Cond[] = [];
      this.split(op.pre, pre, rest);
      this.addUnits(index, pre, rest, op.effects);
    });
    const goalPre: number[] = [];
    this.goalRest = [];
    this.split(task.goal, goalPre, this.goalRest);
    this.goalPre = Int32Array.from(new Set(goalPre));

    const counts = new Int32Array(this.propCount + 1);
    for (const u of this.units) for (const p of u.pre) counts[p + 1] = (counts[p + 1] as number) + 1;
    for (let i = 0; i < this.propCount; i += 1) counts[i + 1] = (counts[i + 1] as number) + (counts[i] as number);
    this.needStart = counts;
    this.needList = new Int32Array(counts[this.propCount] as number);
    const fill = counts.slice(0, this.propCount);
    this.units.forEach((u, i) => {
      for (const p of u.pre) {
        this.needList[fill[p] as number] = i;
        fill[p] = (fill[p] as number) + 1;
      }
    });

    [this.addStart, this.addList] = csr(this.propCount, this.units.map((u) => u.adds));
    this.updaters = Array.from({ length: this.fluentCount }, () => [] as number[]);
    this.units.forEach((u, i) => {
      for (const f of new Set(u.nums.map((e) => e.fluent))) (this.updaters[f] as number[]).push(i);
    });
  }

  /** Splits a precondition's top-level `and` into counted propositions and the rest. */
  private split(c: Cond, pre: number[], rest: Cond[]): void {
    if (c.k === "and") for (const p of c.parts) this.split(p, pre, rest);
    else if (c.k === "atom") pre.push(c.id);
    else if (c.k === "not" && c.part.k === "atom") pre.push(this.negProp[c.part.id] as number);
    else if (c.k === "const" && c.value) return;
    else rest.push(c);
  }

  private addUnits(op: number, pre: number[], rest: Cond[], effects: readonly EffectItem[]): void {
    const adds: number[] = [];
    const nums: NumEffect[] = [];
    for (const item of effects) {
      if (item.k === "add") adds.push(item.atom);
      else if (item.k === "del") {
        const neg = this.negProp[item.atom] as number;
        if (neg >= 0) adds.push(neg);
      } else if (item.k === "num") nums.push({ op: item.op, fluent: item.fluent, value: item.value });
      else if (item.k === "when") {
        const wPre = [...pre];
        const wRest = [...rest];
        this.split(item.cond, wPre, wRest);
        this.addUnits(op, wPre, wRest, item.items);
      }
    }
    if (adds.length > 0 || nums.length > 0) {
      this.units.push({ op, pre: Int32Array.from(new Set(pre)), rest, adds: Int32Array.from(new Set(adds)), nums });
    }
  }
}

/** Item → the indices of the lists that contain it, as offsets and one flat list. */
function csr(items: number, lists: readonly Int32Array[]): [Int32Array, Int32Array] {
  const start = new Int32Array(items + 1);
  for (const l of lists) for (const x of l) start[x + 1] = (start[x + 1] as number) + 1;
  for (let i = 0; i < items; i += 1) start[i + 1] = (start[i + 1] as number) + (start[i] as number);
  const flat = new Int32Array(start[items] as number);
  const fill = start.slice(0, items);
  lists.forEach((l, i) => {
    for (const x of l) {
      flat[fill[x] as number] = i;
      fill[x] = (fill[x] as number) + 1;
    }
  });
  return [start, flat];
}

function forEachWhen(items: readonly EffectItem[], visit: (cond: Cond) => void): void {
  for (const item of items) {
    if (item.k === "when") {
      visit(item.cond);
      forEachWhen(item.items, visit);
    }
  }
}
