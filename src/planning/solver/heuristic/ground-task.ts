/**
 * The formal model grounded into a Task for the heuristic search. Instances come from relaxed
 * reachability (instantiate.ts); each is then grounded exactly: quantifiers expanded over the
 * objects of their type in the simulator's order, `=` on objects decided, atoms of predicates
 * no action changes and fluents no action updates folded into constants. Folding keeps the
 * simulator's stop-early reading: a part that may fail is never folded away where the
 * simulator would still read it.
 */
import type { Condition, Effect, NumericExpression, Term, TypedVariable } from "../../../formal/expression.js";
import type { FormalModel, FormalObject } from "../../../formal/model.js";
import { objectsOfType } from "../../../formal/state.js";
import { ReachedAtoms, TooManyInstances, joinSchema, schemaOf } from "./instantiate.js";
import { FALSE, TRUE, arithmetic, compareValues, setBit } from "./task.js";
import type { Cond, EffectItem, GroundOp, Num, State, Task } from "./task.js";

/** Bounds on grounding: past them the model is called too large, with the reason. */
export interface GroundingBounds {
  /** Ground actions kept. */
  maxOps: number;
  /** Schema instances looked at while joining (kept or not). */
  maxInstances: number;
}

export const DEFAULT_GROUNDING_BOUNDS: GroundingBounds = { maxOps: 400_000, maxInstances: 4_000_000 };

/** The ground task, or why there is none. */
export type TaskOutcome = { ok: true; task: Task; instancesSeen: number } | { ok: false; reason: string };

type Bindings = ReadonlyMap<string, string>;

/** Grounds a formal model into the heuristic search's task, within `bounds`. */
export function groundTask(model: FormalModel, bounds: GroundingBounds = DEFAULT_GROUNDING_BOUNDS): TaskOutcome {
  try {
    return new TaskBuilder(model, bounds).build();
  } catch (e) {
    if (e instanceof TooManyInstances) return { ok: false, reason: `grounding looked at more than ${bounds.maxInstances} action instances` };
    if (e instanceof TooManyOps) return { ok: false, reason: `grounding gives more than ${bounds.maxOps} reachable actions` };
    throw e;
  }
}

class TooManyOps extends Error {}

class TaskBuilder {
  private readonly dynamicPredicates = new Set<string>();
  private readonly dynamicFluents = new Set<string>();
  private readonly initialAtoms = new Set<string>();
  private readonly initialValues = new Map<string, number>();
  private readonly atomIds = new Map<string, number>();
  private readonly atoms: string[] = [];
  private readonly fluentIds = new Map<string, number>();
  private readonly fluents: string[] = [];
  private readonly objects: readonly FormalObject[];

  constructor(
    private readonly model: FormalModel,
    private readonly bounds: GroundingBounds,
  ) {
    this.objects = model.objects;
    for (const action of model.actions) {
      if (action.informal.length > 0) continue;
      for (const e of action.effects) this.noteChanged(e);
    }
    for (const f of model.initialState) {
      if (f.kind === "atom") this.initialAtoms.add([f.predicate, ...f.args].join(" "));
      else this.initialValues.set([f.name, ...f.args].join(" "), f.value);
    }
  }

  build(): TaskOutcome {
    const runnable = this.model.actions.filter((a) => a.informal.length === 0);
    // One name on several actions is never run by the check; nor is it planned with.
    const reached = new ReachedAtoms();
    for (const key of this.initialAtoms) {
      const [predicate, ...args] = key.split(" ");
      reached.add(predicate as string, args);
    }
    const schemas = runnable.map((a) => ({ schema: schemaOf(a, this.objects), seen: new Set<string>(), joinedAt: -1 }));
    const ops: GroundOp[] = [];
    const budget = { left: this.bounds.maxInstances };
    for (let changed = true; changed; ) {
      changed = false;
      reached.round += 1;
      for (const s of schemas) {
        const stale = s.joinedAt >= 0 && !s.schema.literals.some((l) => reached.changedSince(l.predicate, s.joinedAt));
        if (stale) continue;
        s.joinedAt = reached.round;
        joinSchema(
          s.schema,
          reached,
          (args) => {
            const key = args.join(" ");
            if (s.seen.has(key)) return;
            s.seen.add(key);
            const op = this.groundOp(s.schema.action.name, s.schema.action.parameters, args, s.schema.action.preconditions, s.schema.action.effects);
            if (op === undefined) return;
            if (ops.length >= this.bounds.maxOps) throw new TooManyOps();
            ops.push(op);
            for (const atom of addedAtoms(op.effects)) {
              const [predicate, ...rest] = (this.atoms[atom] as string).split(" ");
              if (reached.add(predicate as string, rest)) changed = true;
            }
          },
          budget,
        );
      }
    }
    const goal = this.conjunction(this.model.goals.map((g) => this.condition(g.condition, new Map())));
    const constraints = this.conjunction(this.model.constraints.map((c) => this.condition(c.condition, new Map())));
    const initial = this.initialState();
    const task: Task = { atoms: this.atoms, fluents: this.fluents, initial, ops, goal, constraints };
    dropUnreadUpdates(task);
    return {
      ok: true,
      task,
      instancesSeen: this.bounds.maxInstances - budget.left,
    };
  }

  private initialState(): State {
    const bits = new Uint32Array(Math.max(1, Math.ceil(this.atoms.length / 32)));
    for (const [key, id] of this.atomIds) if (this.initialAtoms.has(key)) setBit(bits, id);
    const values = new Float64Array(this.fluents.length).fill(Number.NaN);
    for (const [key, id] of this.fluentIds) values[id] = this.initialValues.get(key) ?? Number.NaN;
    return { bits, values };
  }

  private noteChanged(e: Effect): void {
    switch (e.kind) {
      case "add":
      case "delete":
        this.dynamicPredicates.add(e.atom.predicate);
        return;
      case "and":
        for (const p of e.parts) this.noteChanged(p);
        return;
      case "forall":
        this.noteChanged(e.body);
        return;
      case "when":
        this.noteChanged(e.effect);
        return;
      case "numeric":
        this.dynamicFluents.add(e.fluent.name);
        return;
    }
  }

  private groundOp(name: string, parameters: readonly TypedVariable[], args: readonly string[], pres: readonly Condition[], effects: readonly Effect[]): GroundOp | undefined {
    const bindings = new Map(parameters.map((p, i) => [p.name, args[i] as string] as const));
    const pre = this.conjunction(pres.map((c) => this.condition(c, bindings)));
    if (pre === FALSE) return undefined;
    const items: EffectItem[] = [];
    for (const e of effects) this.effect(e, bindings, items);
    return { step: `(${[name, ...args].join(" ")})`, pre, effects: items };
  }

  private atomId(key: string): number {
    let id = this.atomIds.get(key);
    if (id === undefined) {
      id = this.atoms.length;
      this.atoms.push(key);
      this.atomIds.set(key, id);
    }
    return id;
  }

  private fluentId(key: string): number {
    let id = this.fluentIds.get(key);
    if (id === undefined) {
      id = this.fluents.length;
      this.fluents.push(key);
      this.fluentIds.set(key, id);
    }
    return id;
  }

  private conjunction(parts: Cond[]): Cond {
    return junction("and", parts);
  }

  condition(c: Condition, b: Bindings): Cond {
    switch (c.kind) {
      case "atom": {
        const key = [c.predicate, ...c.args.map((t) => resolve(t, b))].join(" ");
        if (!this.dynamicPredicates.has(c.predicate)) return this.initialAtoms.has(key) ? TRUE : FALSE;
        return { k: "atom", id: this.atomId(key) };
      }
      case "equal":
        return resolve(c.left, b) === resolve(c.right, b) ? TRUE : FALSE;
      case "compare": {
        const left = this.numeric(c.left, b);
        const right = this.numeric(c.right, b);
        if (left.k === "const" && right.k === "const") return compareValues(c.op, left.value, right.value) ? TRUE : FALSE;
        return { k: "cmp", op: c.op, left, right };
      }
      case "and":
      case "or":
        return junction(c.kind, c.parts.map((p) => this.condition(p, b)));
      case "not":
        return negation(this.condition(c.part, b));
      case "imply":
        // The simulator reads the antecedent first and the consequent only when it holds.
        return junction("or", [negation(this.condition(c.antecedent, b)), this.condition(c.consequent, b)]);
      case "forall":
      case "exists": {
        const parts: Cond[] = [];
        for (const inner of this.instances(c.variables, b)) parts.push(this.condition(c.body, inner));
        return junction(c.kind === "forall" ? "and" : "or", parts);
      }
    }
  }

  private numeric(e: NumericExpression, b: Bindings): Num {
    switch (e.kind) {
      case "number":
        return { k: "const", value: e.value };
      case "fluent": {
        const key = [e.name, ...e.args.map((t) => resolve(t, b))].join(" ");
        if (this.dynamicFluents.has(e.name)) return { k: "fluent", id: this.fluentId(key) };
        const value = this.initialValues.get(key);
        return value === undefined ? { k: "missing" } : { k: "const", value };
      }
      case "arithmetic": {
        const args = e.args.map((a) => this.numeric(a, b));
        if (args.every((a) => a.k === "const")) {
          const value = arithmetic(e.op, args.map((a) => (a as { value: number }).value));
          return Number.isNaN(value) ? { k: "missing" } : { k: "const", value };
        }
        return { k: "arith", op: e.op, args };
      }
    }
  }

  private effect(e: Effect, b: Bindings, out: EffectItem[]): void {
    switch (e.kind) {
      case "add":
      case "delete": {
        const key = [e.atom.predicate, ...e.atom.args.map((t) => resolve(t, b))].join(" ");
        out.push({ k: e.kind === "add" ? "add" : "del", atom: this.atomId(key) });
        return;
      }
      case "and":
        for (const p of e.parts) this.effect(p, b, out);
        return;
      case "forall":
        for (const inner of this.instances(e.variables, b)) this.effect(e.body, inner, out);
        return;
      case "when": {
        const cond = this.condition(e.condition, b);
        if (cond === FALSE) return;
        const items: EffectItem[] = [];
        this.effect(e.effect, b, items);
        if (cond === TRUE) out.push(...items);
        else if (items.length > 0) out.push({ k: "when", cond, items });
        return;
      }
      case "numeric": {
        const key = [e.fluent.name, ...e.fluent.args.map((t) => resolve(t, b))].join(" ");
        out.push({ k: "num", op: e.op, fluent: this.fluentId(key), value: this.numeric(e.value, b) });
        return;
      }
    }
  }

  /** Every binding of `variables` over their types, in the simulator's order. */
  private *instances(variables: readonly TypedVariable[], b: Bindings): Generator<Bindings> {
    const go = function* (objects: readonly FormalObject[], i: number, current: Map<string, string>): Generator<Bindings> {
      const v = variables[i];
      if (v === undefined) {
        yield current;
        return;
      }
      for (const o of objectsOfType(objects, v.type)) {
        const next = new Map(current);
        next.set(v.name, o.symbol);
        yield* go(objects, i + 1, next);
      }
    };
    yield* go(this.objects, 0, new Map(b));
  }
}

function resolve(t: Term, b: Bindings): string {
  return t.kind === "variable" ? (b.get(t.name) ?? t.name) : t.name;
}

/** Whether evaluating `c` may fail (read a fluent, divide): such a part is never folded away. */
function mayFail(c: Cond): boolean {
  switch (c.k) {
    case "const":
    case "atom":
      return false;
    case "not":
      return mayFail(c.part);
    case "and":
    case "or":
      return c.parts.some(mayFail);
    case "cmp":
      return true;
  }
}

function negation(c: Cond): Cond {
  if (c.k === "const") return c.value ? FALSE : TRUE;
  if (c.k === "not") return c.part;
  return { k: "not", part: c };
}

/** `and`/`or` of parts, read left to right: constants folded where no earlier part may fail. */
function junction(kind: "and" | "or", parts: readonly Cond[]): Cond {
  const absorbing = kind === "and" ? FALSE : TRUE;
  const neutral = kind === "and" ? TRUE : FALSE;
  const kept: Cond[] = [];
  for (const p of parts) {
    if (p.k === "const" && p.value === (neutral as { value: boolean }).value) continue;
    if (p.k === "const") {
      if (!kept.some(mayFail)) return absorbing;
      kept.push(p);
      break;
    }
    if (p.k === kind) kept.push(...p.parts);
    else kept.push(p);
  }
  if (kept.length === 0) return neutral;
  if (kept.length === 1) return kept[0] as Cond;
  return { k: kind, parts: kept };
}

/**
 * Updates of fluents that no condition reads (a cost total such as `fuel-used`) change no
 * verdict but make every state new, so the search would never see a state twice. They are
 * dropped where dropping changes nothing the check sees: the fluent has a value from the
 * start and the update is a constant `increase`, `decrease` or `assign`, which cannot fail.
 */
function dropUnreadUpdates(task: Task): void {
  const read = new Set<number>();
  const readNum = (e: Num): void => {
    if (e.k === "fluent") read.add(e.id);
    else if (e.k === "arith") for (const a of e.args) readNum(a);
  };
  const readCond = (c: Cond): void => {
    if (c.k === "cmp") {
      readNum(c.left);
      readNum(c.right);
    } else if (c.k === "not") readCond(c.part);
    else if (c.k === "and" || c.k === "or") for (const p of c.parts) readCond(p);
  };
  const readItems = (items: readonly EffectItem[]): void => {
    for (const item of items) {
      if (item.k !== "when") continue;
      readCond(item.cond);
      readItems(item.items);
    }
  };
  readCond(task.goal);
  readCond(task.constraints);
  for (const op of task.ops) {
    readCond(op.pre);
    readItems(op.effects);
  }
  // A value written into a read fluent is read too, to a fixpoint.
  for (let grew = true; grew; ) {
    const before = read.size;
    const visit = (items: readonly EffectItem[]): void => {
      for (const item of items) {
        if (item.k === "num" && read.has(item.fluent)) readNum(item.value);
        else if (item.k === "when") visit(item.items);
      }
    };
    for (const op of task.ops) visit(op.effects);
    grew = read.size > before;
  }
  const droppable = (item: EffectItem): boolean =>
    item.k === "num" && !read.has(item.fluent) && !Number.isNaN(task.initial.values[item.fluent] as number) && item.value.k === "const" && (item.op === "increase" || item.op === "decrease" || item.op === "assign");
  const prune = (items: EffectItem[]): EffectItem[] =>
    items.filter((item) => !droppable(item)).map((item) => (item.k === "when" ? { ...item, items: prune(item.items) } : item));
  for (const op of task.ops) op.effects = prune(op.effects);
}

/** Every atom an effect may add, `when` conditions ignored (the relaxation). */
export function addedAtoms(items: readonly EffectItem[], out: number[] = []): number[] {
  for (const item of items) {
    if (item.k === "add") out.push(item.atom);
    else if (item.k === "when") addedAtoms(item.items, out);
  }
  return out;
}
