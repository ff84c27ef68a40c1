/**
 * The search: FF's enforced hill-climbing over helpful actions first (fast where it works,
 * which is most of the time), then, when it reaches a state it cannot leave, greedy
 * best-first search from the start with lazy evaluation and two queues, as Fast Downward
 * does: successors are queued with their parent's estimate and estimated only when taken;
 * those reached by a helpful action also go on a preferred queue, taken from alternately
 * and for a while exclusively after the best estimate improves. Ties go to the state queued
 * first. Both phases stop at the deadline, at the memory bound, or when asked to.
 */
import { RelaxedPlanHeuristic } from "./relaxed.js";
import { Successors, stateKey } from "./successors.js";
import type { State, Task } from "./task.js";

/** When the search stops: the deadline, a request, or the number of states kept. */
export interface SearchBounds {
  deadline: number;
  stopped?: () => boolean;
  /** States kept before the search gives up (memory). */
  maxStates: number;
}

/** The ops of a plan and the phase that found it, or why there is none. */
export type SearchOutcome =
  | { kind: "plan"; ops: number[]; phase: "hill-climbing" | "best-first"; expanded: number; evaluated: number }
  | { kind: "no-plan"; reason: string; expanded: number; evaluated: number }
  | { kind: "gave-up"; reason: string; expanded: number; evaluated: number };

/** Preferred-queue pops granted after each improvement of the best estimate. */
const BOOST = 1000;

class Stop extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** How long the search runs before it lets other work of the process run (a close, a message). */
const SLICE_MS = 50;

/** Hill-climbing, then best-first search when it gets stuck. */
export async function search(task: Task, bounds: SearchBounds): Promise<SearchOutcome> {
  const h = new RelaxedPlanHeuristic(task);
  const succ = new Successors(task);
  const counts = { expanded: 0, evaluated: 0 };
  let sliceEnds = Date.now() + SLICE_MS;
  const check = async (): Promise<void> => {
    const now = Date.now();
    if (now > bounds.deadline) throw new Stop("the time limit was reached");
    if (now < sliceEnds) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceEnds = Date.now() + SLICE_MS;
    if (bounds.stopped?.() === true) throw new Stop("the search was stopped");
  };
  try {
    if (!succ.holdsConstraints(task.initial)) return { kind: "no-plan", reason: "the initial state already breaks a constraint", ...counts };
    if (succ.isGoal(task.initial)) return { kind: "plan", ops: [], phase: "hill-climbing", ...counts };
    const first = h.estimate(task.initial);
    counts.evaluated += 1;
    if (first.h === Number.POSITIVE_INFINITY && h.cappedEstimates === 0) {
      return { kind: "no-plan", reason: "the goal cannot be reached even when deletes are ignored", ...counts };
    }
    const climbed = await hillClimb(task, h, succ, first, counts, check, bounds.maxStates);
    if (climbed !== undefined) return { kind: "plan", ops: climbed, phase: "hill-climbing", ...counts };
    const found = await bestFirst(task, h, succ, counts, check, bounds.maxStates);
    if (found !== undefined) return { kind: "plan", ops: found, phase: "best-first", ...counts };
    if (h.cappedEstimates > 0) return { kind: "gave-up", reason: "every state was searched, but some estimates stopped at the layer bound", ...counts };
    return { kind: "no-plan", reason: "every reachable state was searched", ...counts };
  } catch (e) {
    if (e instanceof Stop) return { kind: "gave-up", reason: e.reason, ...counts };
    if (e instanceof RangeError) return { kind: "gave-up", reason: `the search ran out of memory (${e.message})`, ...counts };
    throw e;
  }
}

type Counts = { expanded: number; evaluated: number };

/** FF's enforced hill-climbing: breadth-first over helpful actions to a strictly better state. */
async function hillClimb(
  task: Task,
  h: RelaxedPlanHeuristic,
  succ: Successors,
  first: { h: number; helpful: number[] },
  counts: Counts,
  check: () => Promise<void>,
  maxStates: number,
): Promise<number[] | undefined> {
  let current = task.initial;
  let estimate = first;
  const plan: number[] = [];
  // An estimate of 0 is no proof (a fluent without value can make it so): the goal itself is checked.
  while (!succ.isGoal(current)) {
    interface Node {
      state: State;
      helpful: number[];
      parent: number;
      op: number;
    }
    const nodes: Node[] = [{ state: current, helpful: estimate.helpful, parent: -1, op: -1 }];
    // States of earlier steps may be passed through again: only a strictly better one ends a step.
    const seen = new Set<string>([stateKey(current)]);
    let better: { node: number; h: number; helpful: number[] } | undefined;
    for (let i = 0; i < nodes.length && better === undefined; i += 1) {
      const node = nodes[i] as Node;
      counts.expanded += 1;
      await check();
      for (const op of node.helpful) {
        const next = succ.apply(op, node.state);
        if (next === undefined) continue;
        const key = stateKey(next);
        if (seen.has(key)) continue;
        seen.add(key);
        if (seen.size > maxStates) return undefined;
        if (succ.isGoal(next)) {
          nodes.push({ state: next, helpful: [], parent: i, op });
          better = { node: nodes.length - 1, h: 0, helpful: [] };
          break;
        }
        const e = h.estimate(next);
        counts.evaluated += 1;
        if (e.h === Number.POSITIVE_INFINITY) continue;
        nodes.push({ state: next, helpful: e.helpful, parent: i, op });
        if (e.h < estimate.h) {
          better = { node: nodes.length - 1, ...e };
          break;
        }
      }
    }
    if (better === undefined) return undefined;
    const steps: number[] = [];
    for (let n = better.node; n > 0; n = (nodes[n] as Node).parent) steps.push((nodes[n] as Node).op);
    steps.reverse();
    plan.push(...steps);
    current = (nodes[better.node] as Node).state;
    estimate = { h: better.h, helpful: better.helpful };
  }
  return plan;
}

/** A binary heap of node ids by (estimate, order queued). */
class Queue {
  private readonly keys: number[] = [];
  private readonly ids: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  push(id: number, key: number): void {
    this.keys.push(key);
    this.ids.push(id);
    let i = this.ids.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): number | undefined {
    if (this.ids.length === 0) return undefined;
    const top = this.ids[0];
    const lastKey = this.keys.pop() as number;
    const lastId = this.ids.pop() as number;
    if (this.ids.length > 0) {
      this.keys[0] = lastKey;
      this.ids[0] = lastId;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.ids.length && this.less(l, m)) m = l;
        if (r < this.ids.length && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }

  /** Ids grow with queuing order, so they break ties first-in first-out. */
  private less(a: number, b: number): boolean {
    const ka = this.keys[a] as number;
    const kb = this.keys[b] as number;
    return ka < kb || (ka === kb && (this.ids[a] as number) < (this.ids[b] as number));
  }

  private swap(a: number, b: number): void {
    [this.keys[a], this.keys[b]] = [this.keys[b] as number, this.keys[a] as number];
    [this.ids[a], this.ids[b]] = [this.ids[b] as number, this.ids[a] as number];
  }
}

/** Lazy greedy best-first search with a preferred queue for helpful actions. */
async function bestFirst(task: Task, h: RelaxedPlanHeuristic, succ: Successors, counts: Counts, check: () => Promise<void>, maxStates: number): Promise<number[] | undefined> {
  const states: State[] = [task.initial];
  const parents: number[] = [-1];
  const ops: number[] = [-1];
  let closedMarks = new Uint8Array(1 << 16);
  const seen = new Map<string, number>([[stateKey(task.initial), 0]]);
  const all = new Queue();
  const preferred = new Queue();
  const inPreferred = new Set<number>();
  all.push(0, 0);
  let best = Number.POSITIVE_INFINITY;
  let boost = 0;
  let turn = 0;
  const planTo = (id: number): number[] => {
    const steps: number[] = [];
    for (let n = id; n > 0; n = parents[n] as number) steps.push(ops[n] as number);
    return steps.reverse();
  };
  while (all.size > 0 || preferred.size > 0) {
    let id: number | undefined;
    const usePreferred = preferred.size > 0 && (boost > 0 || turn % 2 === 0 || all.size === 0);
    turn += 1;
    if (usePreferred) {
      id = preferred.pop();
      if (boost > 0) boost -= 1;
    } else id = all.pop();
    if (id === undefined) continue;
    if (id >= closedMarks.length) {
      const grown = new Uint8Array(Math.max(closedMarks.length * 2, id + 1));
      grown.set(closedMarks);
      closedMarks = grown;
    }
    if (closedMarks[id] === 1) continue;
    closedMarks[id] = 1;
    counts.expanded += 1;
    await check();
    const state = states[id] as State;
    if (succ.isGoal(state)) return planTo(id);
    const e = h.estimate(state);
    counts.evaluated += 1;
    if (e.h === Number.POSITIVE_INFINITY) continue;
    if (e.h < best) {
      best = e.h;
      boost += BOOST;
    }
    const helpful = new Set(e.helpful);
    for (const op of succ.applicableOps(state)) {
      const next = succ.apply(op, state);
      if (next === undefined) continue;
      const key = stateKey(next);
      const known = seen.get(key);
      if (known !== undefined) {
        // Reached again, now by a helpful action, before it was taken: it joins the preferred queue.
        if (helpful.has(op) && !inPreferred.has(known) && (known >= closedMarks.length || closedMarks[known] !== 1)) {
          inPreferred.add(known);
          preferred.push(known, e.h);
        }
        continue;
      }
      if (states.length >= maxStates) throw new Stop(`the search kept ${maxStates} states, its memory bound`);
      const child = states.length;
      seen.set(key, child);
      states.push(next);
      parents.push(id);
      ops.push(op);
      all.push(child, e.h);
      if (helpful.has(op)) {
        inPreferred.add(child);
        preferred.push(child, e.h);
      }
    }
  }
  return undefined;
}
