/**
 * Successors of a state and the table of states seen. Each ground action is listed under one
 * atom of its precondition's top-level `and` (the one fewest actions need), so a state only
 * looks at actions whose listed atom holds; actions with no such atom are always looked at.
 * A successor is kept only when every constraint holds in it (the check requires them in
 * every state of a plan).
 */
import type { Cond, GroundOp, State, Task } from "./task.js";
import { YES, applicable, applyOp, evalCond } from "./task.js";

/** Applicable actions and successor states of one task. */
export class Successors {
  private readonly listed: number[][];
  private readonly unlisted: number[] = [];
  private readonly constrained: boolean;

  constructor(private readonly task: Task) {
    const uses = new Int32Array(task.atoms.length);
    const firstAtoms = task.ops.map((op) => topAtoms(op.pre));
    for (const atoms of firstAtoms) for (const a of atoms) uses[a] = (uses[a] as number) + 1;
    this.listed = task.atoms.map(() => [] as number[]);
    firstAtoms.forEach((atoms, i) => {
      if (atoms.length === 0) {
        this.unlisted.push(i);
        return;
      }
      let best = atoms[0] as number;
      for (const a of atoms) if ((uses[a] as number) < (uses[best] as number)) best = a;
      (this.listed[best] as number[]).push(i);
    });
    this.constrained = !(task.constraints.k === "const" && task.constraints.value);
  }

  /** Indices of the actions applicable in `s`, in ascending order. */
  applicableOps(s: State): number[] {
    const out: number[] = [];
    for (const i of this.unlisted) if (applicable(this.task.ops[i] as GroundOp, s)) out.push(i);
    const words = s.bits;
    for (let w = 0; w < words.length; w += 1) {
      let word = words[w] as number;
      while (word !== 0) {
        const bit = 31 - Math.clz32(word & -word);
        word &= word - 1;
        const atom = (w << 5) | bit;
        const list = this.listed[atom];
        if (list === undefined) continue;
        for (const i of list) if (applicable(this.task.ops[i] as GroundOp, s)) out.push(i);
      }
    }
    return out.sort((a, b) => a - b);
  }

  /** The state after op `i`, or undefined when its effect fails or a constraint breaks there. */
  apply(i: number, s: State): State | undefined {
    const next = applyOp(this.task.ops[i] as GroundOp, s);
    if (next === undefined) return undefined;
    if (this.constrained && evalCond(this.task.constraints, next) !== YES) return undefined;
    return next;
  }

  /** Whether the goal holds in `s` (a failure counts as not). */
  isGoal(s: State): boolean {
    return evalCond(this.task.goal, s) === YES;
  }

  /** Whether every constraint holds in `s`. */
  holdsConstraints(s: State): boolean {
    return !this.constrained || evalCond(this.task.constraints, s) === YES;
  }
}

function topAtoms(c: Cond, out: number[] = []): number[] {
  if (c.k === "atom") out.push(c.id);
  else if (c.k === "and") for (const p of c.parts) topAtoms(p, out);
  return out;
}

/** States seen, by content: the bits as UTF-16 units, then the values. */
export function stateKey(s: State): string {
  const halves = new Uint16Array(s.bits.buffer, s.bits.byteOffset, s.bits.length * 2);
  let key = "";
  for (let i = 0; i < halves.length; i += 4096) key += String.fromCharCode(...halves.subarray(i, i + 4096));
  if (s.values.length === 0) return key;
  return `${key}|${Array.prototype.join.call(s.values, ",")}`;
}
