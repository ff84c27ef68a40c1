/**
 * The bounded planning encoding (BMC style): one state per time point, one layer of action
 * choices between consecutive states, exactly one action per layer, so plans are sequential
 * and mean what the simulator means by them:
 * - preconditions, `when` conditions and the values of numeric effects read the state
 *   before the step; then deletes, then adds (an add wins), then numeric updates in written
 *   order;
 * - a condition is true only when it evaluates without failing: each sub-condition has a
 *   value and an "ok" (no fluent read without value, no division by zero on the path the
 *   simulator's left-to-right, stop-early evaluation takes);
 * - every formal constraint holds in every state, the initial one included.
 * Layers are added one at a time to one solver, so deepening the horizon reuses what was
 * learnt; the goal at a horizon is asked for by an assumption. Each new state also gets the
 * problem's two-literal invariants (invariants.ts): implied by the rest, they spare the
 * solver from rediscovering them at every horizon.
 */
import type { NumericEffectOperator } from "../../formal/expression.js";
import type { GroundCondition, GroundEffect, GroundNumeric, GroundProblem } from "./ground.js";
import { atomOf, isNegated } from "./invariants.js";
import { Logic } from "./z3.js";
import type { B, Z3Arith, Z3Bool, Z3Context, Z3Instance, Z3Solver } from "./z3.js";

/** One time point: a term per state atom, per fluent value, and per fluent's "has a value". */
export interface EncodedState {
  atoms: B[];
  values: Z3Arith[];
  defined: B[];
}

/** A layer's possible actions: the ground action index and the Boolean that says it is taken. */
export interface Choice {
  action: number;
  taken: B;
}

/** A condition's value, and whether evaluating it went through without failing. */
interface Evaluated {
  value: B;
  ok: B;
}

interface NumericTerm {
  value: Z3Arith;
  defined: B;
}

/** What one action does to one fluent: the updates in written order, each under its `when` guard. */
interface FluentUpdates {
  value: Z3Arith;
  assignedWhen: B[];
}

/**
 * A problem without numbers is purely propositional: Z3's finite-domain logic then runs its
 * SAT solver (with native cardinality constraints) rather than the general SMT core, several
 * times faster on planning problems.
 */
export function solverFor(z3: Z3Instance, problem: GroundProblem): Z3Solver {
  return problem.fluents.length === 0 ? new z3.ctx.Solver("QF_FD") : new z3.ctx.Solver();
}

export class PlanEncoding {
  readonly states: EncodedState[] = [];
  readonly layers: Choice[][] = [];
  private readonly logic: Logic;

  constructor(
    private readonly ctx: Z3Context,
    private readonly problem: GroundProblem,
    private readonly solver: Z3Solver,
  ) {
    this.logic = new Logic(ctx);
    const initial: EncodedState = {
      atoms: [...problem.initialAtoms],
      values: problem.fluents.map((f) => this.number(f.initial ?? 0)),
      defined: problem.fluents.map((f) => f.initial !== undefined),
    };
    this.states.push(initial);
    this.assert(this.holds(problem.constraints, initial));
  }

  /** The number of layers so far: the length of the plans the encoding describes. */
  get horizon(): number {
    return this.layers.length;
  }

  /**
   * Adds one step whose action is one of `candidates` (ground action indices), and the state
   * after it, where the constraints must hold again.
   */
  addLayer(candidates: readonly number[]): void {
    const L = this.logic;
    const t = this.layers.length;
    const before = this.states[t] as EncodedState;
    const choices: Choice[] = candidates.map((action, i) => ({ action, taken: candidates.length === 1 ? true : this.ctx.Bool.const(`act${i}@${t}`) }));
    const taken = choices.flatMap((c) => (c.taken === true ? [] : [c.taken]));
    if (candidates.length === 0) this.assert(false);
    else if (taken.length > 1) {
      this.assert(L.or(...taken));
      this.solver.add(this.ctx.AtMost(taken as [Z3Bool, ...Z3Bool[]], 1));
    }

    const adds = new Map<number, B[]>();
    const deletes = new Map<number, B[]>();
    const updates = new Map<number, { taken: B; updates: FluentUpdates }[]>();
    for (const choice of choices) {
      const action = this.problem.actions[choice.action];
      if (action === undefined) throw new Error(`no ground action ${choice.action}`);
      const perFluent = new Map<number, FluentUpdates>();
      const ok = this.effect(action.effect, true, before, {
        add: (atom, guard) => push(adds, atom, L.and(choice.taken, guard)),
        delete: (atom, guard) => push(deletes, atom, L.and(choice.taken, guard)),
        update: (fluent, guard, op, value) => {
          const current = perFluent.get(fluent) ?? { value: before.values[fluent] as Z3Arith, assignedWhen: [] };
          const next = updated(op, current.value, value);
          current.value = guard === true ? next : this.ctx.If(L.term(guard), next, current.value);
          if (op === "assign") current.assignedWhen.push(guard);
          perFluent.set(fluent, current);
        },
      });
      this.assert(L.implies(choice.taken, L.and(this.holds(action.precondition, before), ok)));
      for (const [fluent, u] of perFluent) push(updates, fluent, { taken: choice.taken, updates: u });
    }

    const after: EncodedState = { atoms: [...before.atoms], values: [...before.values], defined: [...before.defined] };
    const step = t + 1;
    for (const atom of new Set([...adds.keys(), ...deletes.keys()])) {
      const next = L.or(L.and(before.atoms[atom] as B, L.not(L.or(...(deletes.get(atom) ?? [])))), ...(adds.get(atom) ?? []));
      after.atoms[atom] = this.fresh(`p${atom}@${step}`, next);
    }
    for (const [fluent, byAction] of updates) {
      // Exactly one action is taken: the fluent's next value is the one that action computes.
      let value = before.values[fluent] as Z3Arith;
      for (const { taken: chosen, updates: u } of [...byAction].reverse()) {
        value = chosen === true ? u.value : this.ctx.If(L.term(chosen), u.value, value);
      }
      const v = this.fluentConst(`f${fluent}@${step}`);
      this.solver.add(v.eq(value));
      after.values[fluent] = v;
      const defined = L.or(before.defined[fluent] as B, ...byAction.map(({ taken: chosen, updates: u }) => L.and(chosen, L.or(...u.assignedWhen))));
      after.defined[fluent] = defined === before.defined[fluent] ? defined : this.fresh(`d${fluent}@${step}`, defined);
    }
    this.layers.push(choices);
    this.states.push(after);
    this.assert(this.holds(this.problem.constraints, after));
    // Invariants over atoms this layer left as they were were asserted before (or hold initially).
    for (const [l1, l2] of this.problem.invariants) {
      const a1 = atomOf(l1);
      const a2 = atomOf(l2);
      if (after.atoms[a1] === before.atoms[a1] && after.atoms[a2] === before.atoms[a2]) continue;
      const term = (l: number, atom: number): B => (isNegated(l) ? L.not(after.atoms[atom] as B) : (after.atoms[atom] as B));
      this.assert(L.or(term(l1, a1), term(l2, a2)));
    }
  }

  /** Whether every formal goal holds at time `t` (a term to assume, or a constant). */
  goalAt(t: number): B {
    const state = this.states[t];
    if (state === undefined) throw new Error(`no state at time ${t}`);
    return this.holds(this.problem.goal, state);
  }

  /** True when `cond` evaluates to true without failing in `state`. */
  holds(cond: GroundCondition, state: EncodedState): B {
    const e = this.condition(cond, state);
    return this.logic.and(e.ok, e.value);
  }

  assert(b: B): void {
    if (b !== true) this.solver.add(this.logic.term(b));
  }

  private fresh(name: string, definition: B): B {
    if (typeof definition === "boolean") return definition;
    const v = this.ctx.Bool.const(name);
    this.solver.add(v.eq(definition));
    return v;
  }

  private fluentConst(name: string): Z3Arith {
    return this.problem.real ? this.ctx.Real.const(name) : this.ctx.Int.const(name);
  }

  private number(value: number): Z3Arith {
    return this.problem.real ? this.ctx.Real.val(exactRational(value)) : this.ctx.Int.val(BigInt(value));
  }

  private condition(cond: GroundCondition, s: EncodedState): Evaluated {
    const L = this.logic;
    switch (cond.kind) {
      case "const":
        return { value: cond.value, ok: true };
      case "atom":
        return { value: s.atoms[cond.id] as B, ok: true };
      case "compare": {
        const left = this.numeric(cond.left, s);
        const right = this.numeric(cond.right, s);
        return { value: compare(cond.op, left.value, right.value), ok: L.and(left.defined, right.defined) };
      }
      case "and":
      case "or": {
        // Part i is evaluated only when every earlier part went through and did not decide.
        const goOn = cond.kind === "and";
        let reached: B = true;
        const oks: B[] = [];
        const values: B[] = [];
        for (const part of cond.parts) {
          const p = this.condition(part, s);
          oks.push(L.implies(reached, p.ok));
          values.push(p.value);
          reached = L.and(reached, p.ok, goOn ? p.value : L.not(p.value));
        }
        return { value: goOn ? L.and(...values) : L.or(...values), ok: L.and(...oks) };
      }
      case "not": {
        const p = this.condition(cond.part, s);
        return { value: L.not(p.value), ok: p.ok };
      }
      case "imply": {
        const a = this.condition(cond.antecedent, s);
        const c = this.condition(cond.consequent, s);
        return { value: L.or(L.not(a.value), c.value), ok: L.and(a.ok, L.implies(a.value, c.ok)) };
      }
    }
  }

  private numeric(expr: GroundNumeric, s: EncodedState): NumericTerm {
    switch (expr.kind) {
      case "number":
        return { value: this.number(expr.value), defined: true };
      case "fluent":
        return { value: s.values[expr.id] as Z3Arith, defined: s.defined[expr.id] as B };
      case "arithmetic": {
        const args = expr.args.map((a) => this.numeric(a, s));
        const [first, ...rest] = args;
        if (first === undefined) throw new Error("an arithmetic expression without operands");
        // The simulator evaluates every operand, then fails on any zero divisor.
        const nonZero = expr.op === "/" ? rest.map((r) => r.value.neq(this.number(0))) : [];
        const defined = this.logic.and(...args.map((a) => a.defined), ...nonZero);
        if (expr.op === "-" && rest.length === 0) return { value: first.value.neg(), defined };
        const value = rest.reduce<Z3Arith>((acc, r) => {
          switch (expr.op) {
            case "+":
              return acc.add(r.value);
            case "-":
              return acc.sub(r.value);
            case "*":
              return acc.mul(r.value);
            case "/":
              return acc.div(r.value);
          }
        }, first.value);
        return { value, defined };
      }
    }
  }

  /** Walks an effect under `guard`, reporting its changes; returns when it evaluates without failing. */
  private effect(eff: GroundEffect, guard: B, s: EncodedState, sink: EffectSink): B {
    const L = this.logic;
    switch (eff.kind) {
      case "add":
        sink.add(eff.atom, guard);
        return true;
      case "delete":
        sink.delete(eff.atom, guard);
        return true;
      case "numeric": {
        const value = this.numeric(eff.value, s);
        sink.update(eff.fluent, guard, eff.op, value.value);
        // Increasing, decreasing or scaling a fluent without value fails, as reading one does;
        // scaling down by zero fails, as dividing by zero does.
        const nonZero = eff.op === "scale-down" ? value.value.neq(this.number(0)) : true;
        return L.and(eff.op === "assign" ? true : (s.defined[eff.fluent] as B), value.defined, nonZero);
      }
      case "and":
        return L.and(...eff.parts.map((p) => this.effect(p, guard, s, sink)));
      case "when": {
        const c = this.condition(eff.condition, s);
        const inner = this.effect(eff.effect, L.and(guard, c.value), s, sink);
        return L.and(c.ok, L.implies(c.value, inner));
      }
    }
  }
}

interface EffectSink {
  add(atom: number, guard: B): void;
  delete(atom: number, guard: B): void;
  update(fluent: number, guard: B, op: NumericEffectOperator, value: Z3Arith): void;
}

/** A fluent's next value after one numeric effect, as the simulator's `updated` computes it. */
function updated(op: NumericEffectOperator, before: Z3Arith, value: Z3Arith): Z3Arith {
  switch (op) {
    case "assign":
      return value;
    case "increase":
      return before.add(value);
    case "decrease":
      return before.sub(value);
    case "scale-up":
      return before.mul(value);
    case "scale-down":
      return before.div(value);
  }
}

/**
 * The exact value of a double as `p/q`: what the simulator's floating-point number really is
 * (0.1 is not 1/10), so Z3 starts from the same values; halving steps are exact for doubles.
 */
export function exactRational(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`${value} is not a finite number`);
  if (Number.isInteger(value)) return BigInt(value).toString();
  let scaled = value;
  let shift = 0n;
  while (!Number.isInteger(scaled)) {
    scaled *= 2;
    shift += 1n;
  }
  return `${BigInt(scaled)}/${1n << shift}`;
}

function push<K, V>(map: Map<K, V[]>, k: K, v: V): void {
  const list = map.get(k);
  if (list === undefined) map.set(k, [v]);
  else list.push(v);
}

function compare(op: string, a: Z3Arith, b: Z3Arith): Z3Bool {
  switch (op) {
    case "<":
      return a.lt(b);
    case "<=":
      return a.le(b);
    case ">=":
      return a.ge(b);
    case ">":
      return a.gt(b);
    default:
      return a.eq(b);
  }
}
