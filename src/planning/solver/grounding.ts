/**
 * Grounding: a formal model turned into a ground planning problem. Parameters range over the
 * objects of their type, quantifiers are expanded over the finite objects, `=` on objects is
 * decided, and what can never change is folded into constants, so the encoding only carries
 * state that matters. Every size is bounded; a bound hit is a readable reason, not a crash.
 *
 * Decisions where the model leaves room:
 * - Only actions without informal parts are grounded (the simulator does not run the others).
 * - A fluent no action updates keeps its initial value; one without an initial value that no
 *   action assigns never has one, and reading it (or increasing, decreasing, scaling it)
 *   fails as in the simulator.
 * - Atoms no condition reads are dropped with the effects on them: they cannot change
 *   whether a plan is valid.
 */
import type { Condition, Effect, NumericExpression, TypedVariable } from "../../formal/expression.js";
import { formatTerm } from "../../formal/format.js";
import type { Bindings } from "../../formal/format.js";
import type { FormalModel, FormalObject } from "../../formal/model.js";
import { key, objectsOfType } from "../../formal/state.js";
import type { Definedness, GroundAction, GroundCondition, GroundEffect, GroundFluent, GroundNumeric, GroundProblem } from "./ground.js";
import { FALSE, TRUE } from "./ground.js";
import { binaryInvariants } from "./invariants.js";
import { relaxedReachability } from "./reachability.js";
import { simplifyCondition, simplifyEffect } from "./simplify.js";
import type { AtomFact, FluentFact, Knowledge } from "./simplify.js";

export interface GroundingLimits {
  /** Ground actions before pruning. */
  maxGroundActions: number;
  /** Distinct ground atoms and fluents named anywhere. */
  maxAtoms: number;
  /** Nodes of all ground trees together (quantifier expansion included). */
  maxNodes: number;
}

export const DEFAULT_GROUNDING_LIMITS: GroundingLimits = { maxGroundActions: 20_000, maxAtoms: 50_000, maxNodes: 500_000 };

export interface GroundingStats {
  groundActions: number;
  reachableActions: number;
  atoms: number;
  stateAtoms: number;
  fluents: number;
  invariants: number;
}

export type GroundingOutcome = { ok: true; problem: GroundProblem; stats: GroundingStats } | { ok: false; reason: string };

/** Thrown inside this module only when a bound is hit; always caught by `groundModel`. */
class TooLarge extends Error {}

export function groundModel(model: FormalModel, limits: GroundingLimits = DEFAULT_GROUNDING_LIMITS): GroundingOutcome {
  try {
    return { ok: true, ...ground(model, limits) };
  } catch (e) {
    if (e instanceof TooLarge) return { ok: false, reason: e.message };
    throw e;
  }
}

function ground(model: FormalModel, limits: GroundingLimits): { problem: GroundProblem; stats: GroundingStats } {
  const g = new Grounder(model.objects, limits);
  const runnable = model.actions.filter((a) => a.informal.length === 0);
  const instanceCount = runnable.reduce((sum, a) => sum + a.parameters.reduce((n, p) => n * objectsOfType(model.objects, p.type).length, 1), 0);
  if (instanceCount > limits.maxGroundActions) {
    throw new TooLarge(`grounding the actions gives ${instanceCount} ground actions, more than the ${limits.maxGroundActions} the planner handles`);
  }
  const raw: GroundAction[] = [];
  for (const action of runnable) {
    for (const bindings of g.instances(action.parameters, new Map())) {
      const args = action.parameters.map((p) => bindings.get(p.name) as string);
      raw.push({
        name: action.name,
        args,
        step: `(${[action.name, ...args].join(" ")})`,
        precondition: g.conjunction(action.preconditions.map((c) => g.condition(c, bindings))),
        effect: { kind: "and", parts: action.effects.map((e) => g.effect(e, bindings)) },
      });
    }
  }
  const constraints = g.conjunction(model.constraints.map((c) => g.condition(c.condition, new Map())));
  const goal = g.conjunction(model.goals.map((c) => g.condition(c.condition, new Map())));

  // The initial state as the simulator builds it: later fluent values replace earlier ones.
  const initialFacts = new Set<string>();
  const initialValues = new Map<string, number>();
  for (const f of model.initialState) {
    if (f.kind === "atom") initialFacts.add(key(f.predicate, f.args));
    else initialValues.set(key(f.name, f.args), f.value);
  }
  const atomKeys = [...g.atoms.keys()];
  const fluentKeys = [...g.fluents.keys()];
  const initialAtoms = atomKeys.map((k) => initialFacts.has(k));
  const initialFluent = fluentKeys.map((k) => initialValues.get(k));

  // Pass 1: fluents no ground action updates are constants (or never have a value).
  const updatedAnywhere = new Array<boolean>(fluentKeys.length).fill(false);
  const assignedAnywhere = new Array<boolean>(fluentKeys.length).fill(false);
  for (const a of raw) markUpdates(a.effect, updatedAnywhere, assignedAnywhere);
  const firstKnowledge: Knowledge = {
    atom: (id) => id,
    fluent: (id) => fluentFact(id, initialFluent[id], updatedAnywhere[id] ?? false, assignedAnywhere[id] ?? false),
  };
  const first = simplifyAll(raw, constraints, goal, firstKnowledge).actions.filter((a) => !isFalse(a.precondition));
  const firstDefinedness = (id: number): Definedness => definedness(initialFluent[id], updatedAnywhere[id] ?? false, assignedAnywhere[id] ?? false);

  // Pass 2: what relaxed reachability rules out is folded away.
  const reach = relaxedReachability({ initialAtoms, fluentCount: fluentKeys.length, actions: first, definedness: firstDefinedness });
  const reachable = first.filter((_, i) => reach.reachable[i]);
  const atomConstant = (id: number): boolean | undefined =>
    !reach.mayBeTrue[id] ? false : !reach.mayBeFalse[id] ? true : undefined;
  const secondKnowledge: Knowledge = {
    atom: (id) => atomConstant(id) ?? id,
    fluent: (id) => fluentFact(id, initialFluent[id], reach.updated[id] ?? false, reach.assigned[id] ?? false),
  };
  const second = simplifyAll(reachable, constraints, goal, secondKnowledge);
  const secondActions = second.actions.filter((a) => !isFalse(a.precondition));

  // Pass 3: dense numbering of the atoms some condition reads and of the fluents still named.
  const readAtoms = new Map<number, number>();
  const namedFluents = new Map<number, number>();
  const visitRead = (c: GroundCondition): void => collectReads(c, readAtoms, namedFluents);
  visitRead(second.constraints);
  visitRead(second.goal);
  for (const a of secondActions) {
    visitRead(a.precondition);
    collectEffectReads(a.effect, readAtoms, namedFluents);
  }
  const thirdKnowledge: Knowledge = {
    atom: (id): AtomFact => readAtoms.get(id) ?? "unread",
    fluent: (id): FluentFact => {
      const d = definedness(initialFluent[id], reach.updated[id] ?? false, reach.assigned[id] ?? false);
      return { id: namedFluents.get(id) as number, definedness: d };
    },
  };
  const third = simplifyAll(secondActions, second.constraints, second.goal, thirdKnowledge);
  const atoms: string[] = [];
  const initial: boolean[] = [];
  for (const [old, id] of readAtoms) {
    atoms[id] = atomKeys[old] as string;
    initial[id] = initialAtoms[old] as boolean;
  }
  const fluents: GroundFluent[] = [];
  for (const [old, id] of namedFluents) {
    fluents[id] = { key: fluentKeys[old] as string, initial: initialFluent[old], definedness: definedness(initialFluent[old], reach.updated[old] ?? false, reach.assigned[old] ?? false) };
  }
  const problem: GroundProblem = {
    atoms,
    initialAtoms: initial,
    fluents,
    actions: third.actions,
    constraints: third.constraints,
    goal: third.goal,
    real: false,
    invariants: [],
  };
  problem.real = needsReal(problem);
  problem.invariants = binaryInvariants(problem);
  return {
    problem,
    stats: { groundActions: raw.length, reachableActions: third.actions.length, atoms: atomKeys.length, stateAtoms: atoms.length, fluents: fluents.length, invariants: problem.invariants.length },
  };
}

function definedness(initial: number | undefined, updated: boolean, assigned: boolean): Definedness {
  if (initial !== undefined) return "always";
  return updated && assigned ? "maybe" : "never";
}

/** A fluent nothing updates keeps its initial value: a constant, or no value at all. */
function fluentFact(id: number, initial: number | undefined, updated: boolean, assigned: boolean): FluentFact {
  if (!updated && initial !== undefined) return { value: initial };
  return { id, definedness: definedness(initial, updated, assigned) };
}

interface Simplified {
  actions: GroundAction[];
  constraints: GroundCondition;
  goal: GroundCondition;
}

function simplifyAll(actions: readonly GroundAction[], constraints: GroundCondition, goal: GroundCondition, k: Knowledge): Simplified {
  return {
    actions: actions.map((a) => ({ ...a, precondition: simplifyCondition(a.precondition, k), effect: simplifyEffect(a.effect, k) })),
    constraints: simplifyCondition(constraints, k),
    goal: simplifyCondition(goal, k),
  };
}

function isFalse(c: GroundCondition): boolean {
  return c.kind === "const" && !c.value;
}

function markUpdates(eff: GroundEffect, updated: boolean[], assigned: boolean[]): void {
  if (eff.kind === "numeric") {
    updated[eff.fluent] = true;
    if (eff.op === "assign") assigned[eff.fluent] = true;
  } else if (eff.kind === "and") for (const p of eff.parts) markUpdates(p, updated, assigned);
  else if (eff.kind === "when") markUpdates(eff.effect, updated, assigned);
}

function collectReads(c: GroundCondition, atoms: Map<number, number>, fluents: Map<number, number>): void {
  switch (c.kind) {
    case "const":
      return;
    case "atom":
      if (!atoms.has(c.id)) atoms.set(c.id, atoms.size);
      return;
    case "compare":
      collectNumeric(c.left, fluents);
      collectNumeric(c.right, fluents);
      return;
    case "and":
    case "or":
      for (const p of c.parts) collectReads(p, atoms, fluents);
      return;
    case "not":
      collectReads(c.part, atoms, fluents);
      return;
    case "imply":
      collectReads(c.antecedent, atoms, fluents);
      collectReads(c.consequent, atoms, fluents);
      return;
  }
}

function collectNumeric(n: GroundNumeric, fluents: Map<number, number>): void {
  if (n.kind === "fluent" && !fluents.has(n.id)) fluents.set(n.id, fluents.size);
  else if (n.kind === "arithmetic") for (const a of n.args) collectNumeric(a, fluents);
}

/** Effects read the conditions of their `when`s and the values they compute; an updated fluent is named too. */
function collectEffectReads(e: GroundEffect, atoms: Map<number, number>, fluents: Map<number, number>): void {
  switch (e.kind) {
    case "add":
    case "delete":
      return;
    case "numeric":
      if (!fluents.has(e.fluent)) fluents.set(e.fluent, fluents.size);
      collectNumeric(e.value, fluents);
      return;
    case "and":
      for (const p of e.parts) collectEffectReads(p, atoms, fluents);
      return;
    case "when":
      collectReads(e.condition, atoms, fluents);
      collectEffectReads(e.effect, atoms, fluents);
      return;
  }
}

/**
 * Integers stay Int (cheaper for Z3); a division or a non-integer anywhere needs Real. A
 * `scale-up` of integers stays integral; a `scale-down` divides, so it needs Real unless it
 * divides by the constant 1 or -1.
 */
function needsReal(p: GroundProblem): boolean {
  let real = p.fluents.some((f) => f.initial !== undefined && !Number.isInteger(f.initial));
  const numeric = (n: GroundNumeric): void => {
    if (n.kind === "number") real ||= !Number.isInteger(n.value);
    else if (n.kind === "arithmetic") {
      real ||= n.op === "/";
      n.args.forEach(numeric);
    }
  };
  const condition = (c: GroundCondition): void => {
    if (c.kind === "compare") {
      numeric(c.left);
      numeric(c.right);
    } else if (c.kind === "and" || c.kind === "or") c.parts.forEach(condition);
    else if (c.kind === "not") condition(c.part);
    else if (c.kind === "imply") {
      condition(c.antecedent);
      condition(c.consequent);
    }
  };
  const effect = (e: GroundEffect): void => {
    if (e.kind === "numeric") {
      real ||= e.op === "scale-down" && !(e.value.kind === "number" && Math.abs(e.value.value) === 1);
      numeric(e.value);
    }
    else if (e.kind === "and") e.parts.forEach(effect);
    else if (e.kind === "when") {
      condition(e.condition);
      effect(e.effect);
    }
  };
  condition(p.constraints);
  condition(p.goal);
  for (const a of p.actions) {
    condition(a.precondition);
    effect(a.effect);
  }
  return real;
}

/** Substitutes bindings into expressions, interning atoms and fluents, within the node bound. */
class Grounder {
  readonly atoms = new Map<string, number>();
  readonly fluents = new Map<string, number>();
  private nodes = 0;

  constructor(
    private readonly objects: readonly FormalObject[],
    private readonly limits: GroundingLimits,
  ) {}

  /** Every binding of `variables` over their types, the first variable varying slowest (the simulator's order). */
  *instances(variables: readonly TypedVariable[], outer: Bindings): Generator<Bindings> {
    const go = function* (this: Grounder, i: number, current: Map<string, string>): Generator<Bindings> {
      const v = variables[i];
      if (v === undefined) {
        yield current;
        return;
      }
      for (const o of objectsOfType(this.objects, v.type)) {
        const next = new Map(current);
        next.set(v.name, o.symbol);
        yield* go.call(this, i + 1, next);
      }
    };
    yield* go.call(this, 0, new Map(outer));
  }

  conjunction(parts: GroundCondition[]): GroundCondition {
    return parts.length === 1 ? (parts[0] as GroundCondition) : { kind: "and", parts };
  }

  condition(c: Condition, b: Bindings): GroundCondition {
    this.count();
    switch (c.kind) {
      case "atom":
        return { kind: "atom", id: this.intern(this.atoms, key(c.predicate, c.args.map((a) => formatTerm(a, b)))) };
      case "equal":
        return formatTerm(c.left, b) === formatTerm(c.right, b) ? TRUE : FALSE;
      case "compare":
        return { kind: "compare", op: c.op, left: this.numeric(c.left, b), right: this.numeric(c.right, b) };
      case "and":
      case "or":
        return { kind: c.kind, parts: c.parts.map((p) => this.condition(p, b)) };
      case "not":
        return { kind: "not", part: this.condition(c.part, b) };
      case "imply":
        return { kind: "imply", antecedent: this.condition(c.antecedent, b), consequent: this.condition(c.consequent, b) };
      case "forall":
      case "exists":
        return { kind: c.kind === "forall" ? "and" : "or", parts: this.expand(c.variables, b, (inner) => this.condition(c.body, inner)) };
    }
  }

  effect(e: Effect, b: Bindings): GroundEffect {
    this.count();
    switch (e.kind) {
      case "add":
      case "delete":
        return { kind: e.kind, atom: this.intern(this.atoms, key(e.atom.predicate, e.atom.args.map((a) => formatTerm(a, b)))) };
      case "and":
        return { kind: "and", parts: e.parts.map((p) => this.effect(p, b)) };
      case "forall":
        return { kind: "and", parts: this.expand(e.variables, b, (inner) => this.effect(e.body, inner)) };
      case "when":
        return { kind: "when", condition: this.condition(e.condition, b), effect: this.effect(e.effect, b) };
      case "numeric":
        return { kind: "numeric", op: e.op, fluent: this.intern(this.fluents, key(e.fluent.name, e.fluent.args.map((a) => formatTerm(a, b)))), value: this.numeric(e.value, b) };
    }
  }

  /** The body under every binding of a quantifier, refused before expanding when the instances alone exceed the bound. */
  private expand<T>(variables: readonly TypedVariable[], b: Bindings, body: (inner: Bindings) => T): T[] {
    const count = variables.reduce((n, v) => n * objectsOfType(this.objects, v.type).length, 1);
    if (this.nodes + count > this.limits.maxNodes) this.tooMany();
    const parts: T[] = [];
    for (const inner of this.instances(variables, b)) parts.push(body(inner));
    return parts;
  }

  private numeric(n: NumericExpression, b: Bindings): GroundNumeric {
    this.count();
    switch (n.kind) {
      case "number":
        return n;
      case "fluent":
        return { kind: "fluent", id: this.intern(this.fluents, key(n.name, n.args.map((a) => formatTerm(a, b)))) };
      case "arithmetic":
        return { kind: "arithmetic", op: n.op, args: n.args.map((a) => this.numeric(a, b)) };
    }
  }

  private intern(table: Map<string, number>, k: string): number {
    let id = table.get(k);
    if (id === undefined) {
      if (this.atoms.size + this.fluents.size >= this.limits.maxAtoms) {
        throw new TooLarge(`the model names more than ${this.limits.maxAtoms} ground atoms and fluents, more than the planner handles`);
      }
      id = table.size;
      table.set(k, id);
    }
    return id;
  }

  private count(): void {
    this.nodes += 1;
    if (this.nodes > this.limits.maxNodes) this.tooMany();
  }

  private tooMany(): never {
    throw new TooLarge(`expanding parameters and quantifiers gives more than ${this.limits.maxNodes} expression nodes, more than the planner handles`);
  }
}
