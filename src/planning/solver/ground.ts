/**
 * The ground (variable-free) form of a formal model that the SMT encoding works on: atoms and
 * fluents by number, quantifiers expanded, `=` on objects decided. The trees keep the shape
 * and the order of the source expressions, because the simulator evaluates `and`, `or`,
 * `imply`, `forall` and `exists` left to right and stops early: a fluent without value or a
 * division by zero only makes a plan invalid where the simulator actually reaches it.
 */
import type { ArithmeticOperator, ComparisonOperator, NumericEffectOperator } from "../../formal/expression.js";

export type GroundNumeric =
  | { kind: "number"; value: number }
  | { kind: "fluent"; id: number }
  | { kind: "arithmetic"; op: ArithmeticOperator; args: GroundNumeric[] };

export type GroundCondition =
  | { kind: "const"; value: boolean }
  | { kind: "atom"; id: number }
  | { kind: "compare"; op: ComparisonOperator; left: GroundNumeric; right: GroundNumeric }
  | { kind: "and" | "or"; parts: GroundCondition[] }
  | { kind: "not"; part: GroundCondition }
  | { kind: "imply"; antecedent: GroundCondition; consequent: GroundCondition };

/** `forall` effects are expanded into `and`, in the simulator's instance order. */
export type GroundEffect =
  | { kind: "add" | "delete"; atom: number }
  | { kind: "numeric"; op: NumericEffectOperator; fluent: number; value: GroundNumeric }
  | { kind: "and"; parts: GroundEffect[] }
  | { kind: "when"; condition: GroundCondition; effect: GroundEffect };

export interface GroundAction {
  name: string;
  /** Object symbols, in parameter order. */
  args: string[];
  /** The plan step as written in a plan: `(name a b)`. */
  step: string;
  /** The action's preconditions as one `and`, in the order written. */
  precondition: GroundCondition;
  /** The action's effects as one `and`, in the order written. */
  effect: GroundEffect;
}

/** Whether a fluent can have a value: from the start, never, or only once some action assigns one. */
export type Definedness = "always" | "never" | "maybe";

export interface GroundFluent {
  /** `name a b`, as the simulator keys it. */
  key: string;
  /** The initial value; undefined when the initial state gives none. */
  initial: number | undefined;
  definedness: Definedness;
}

/**
 * A planning problem ready to encode. Atoms and fluents are numbered densely; every atom in
 * a tree is a state variable (atoms whose value never changes were replaced by constants).
 */
export interface GroundProblem {
  /** `pred a b` per atom id. */
  atoms: string[];
  /** Initial truth per atom id (closed world). */
  initialAtoms: boolean[];
  fluents: GroundFluent[];
  /** Ground actions that may become applicable, in model order then argument order. */
  actions: GroundAction[];
  /** All formal constraints as one `and`, in model order. */
  constraints: GroundCondition;
  /** All formal goals as one `and`, in model order. */
  goal: GroundCondition;
  /** Whether numbers need Real arithmetic (a division or a non-integer occurs) rather than Int. */
  real: boolean;
  /**
   * Clauses of two literals (atom id * 2, plus 1 when negated) that hold in every reachable
   * state: redundant for correctness, they prune the search (see invariants.ts).
   */
  invariants: [number, number][];
}

export const TRUE: GroundCondition = Object.freeze({ kind: "const", value: true });
export const FALSE: GroundCondition = Object.freeze({ kind: "const", value: false });
export const NO_EFFECT: GroundEffect = Object.freeze({ kind: "and", parts: [] });
