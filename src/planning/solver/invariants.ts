/**
 * Two-literal invariants (after Rintanen's algorithm): clauses `(l1 or l2)` over state atoms
 * that hold in the initial state and that no applicable action can falsify, such as "the hand
 * holds at most one block". They add nothing a plan could not already do; they prune, in
 * every layer, states no execution reaches, which is what makes proving "no plan of h steps"
 * at the horizons just below a shortest plan much cheaper for the solver.
 *
 * Start from every clause true initially; drop each clause some action may falsify given its
 * precondition and the clauses still standing; repeat until nothing changes. What survives
 * holds in every reachable state: an over-approximation of reachable states stays sound.
 * Preconditions count only through the literals they surely make true; `when` effects are
 * taken as possibly happening, which keeps the result sound for any condition.
 */
import type { GroundCondition, GroundEffect, GroundProblem } from "./ground.js";

/** Beyond this many state atoms the quadratic clause table is not built (no invariants then). */
export const MAX_INVARIANT_ATOMS = 600;

/** A literal: atom id times two, plus one when negated. */
export type Literal = number;

export const literal = (atom: number, negated: boolean): Literal => atom * 2 + (negated ? 1 : 0);
export const atomOf = (l: Literal): number => l >> 1;
export const isNegated = (l: Literal): boolean => (l & 1) === 1;
const complement = (l: Literal): Literal => l ^ 1;

/** What one action may do to each atom it touches. */
interface ActionSummary {
  /** Literals surely true when the action is applicable. */
  requires: Literal[];
  /** Literals surely true after it. */
  makesTrue: Set<Literal>;
  /** Literals that may be false after it whatever they were before. */
  mayMakeFalse: Literal[];
}

/** The binary clauses that hold in every reachable state, each as [l1, l2] with l1 < l2. */
export function binaryInvariants(problem: GroundProblem): [Literal, Literal][] {
  const n = problem.atoms.length;
  if (n === 0 || n > MAX_INVARIANT_ATOMS) return [];
  const size = 2 * n;
  const holds = (l: Literal): boolean => (problem.initialAtoms[atomOf(l)] === true) !== isNegated(l);
  // table[l1 * size + l2] = 1 when (l1 or l2) is still a candidate; kept symmetric.
  const table = new Uint8Array(size * size);
  for (let l1 = 0; l1 < size; l1 += 1) {
    for (let l2 = l1 + 1; l2 < size; l2 += 1) {
      if (atomOf(l1) === atomOf(l2)) continue;
      if (holds(l1) || holds(l2)) {
        table[l1 * size + l2] = 1;
        table[l2 * size + l1] = 1;
      }
    }
  }
  const isClause = (a: Literal, b: Literal): boolean => table[a * size + b] === 1;
  const summaries = problem.actions.map(summarise);

  /** Whether the literals may all hold in one state where every candidate clause holds (pairwise). */
  const consistent = (literals: readonly Literal[]): boolean => {
    for (let i = 0; i < literals.length; i += 1) {
      const x = literals[i] as Literal;
      for (let j = i + 1; j < literals.length; j += 1) {
        const y = literals[j] as Literal;
        if (x === complement(y) || isClause(complement(x), complement(y))) return false;
      }
    }
    return true;
  };

  let changed = true;
  while (changed) {
    changed = false;
    for (const a of summaries) {
      for (const l1 of a.mayMakeFalse) {
        const row = l1 * size;
        for (let l2 = 0; l2 < size; l2 += 1) {
          if (table[row + l2] !== 1 || a.makesTrue.has(l2)) continue;
          // l1 may turn false; the clause breaks if l2 may be false after the step too: made
          // false by it, or left false from a state the precondition and the clauses allow
          // (where l2 was false, so l1 was true).
          const broken = a.mayMakeFalse.includes(l2) ? consistent(a.requires) : consistent([...a.requires, complement(l2), l1]);
          if (!broken) continue;
          table[row + l2] = 0;
          table[l2 * size + l1] = 0;
          changed = true;
        }
      }
    }
  }
  const clauses: [Literal, Literal][] = [];
  for (let l1 = 0; l1 < size; l1 += 1) {
    for (let l2 = l1 + 1; l2 < size; l2 += 1) if (table[l1 * size + l2] === 1) clauses.push([l1, l2]);
  }
  return clauses;
}

function summarise(action: { precondition: GroundCondition; effect: GroundEffect }): ActionSummary {
  const requires: Literal[] = [];
  surelyTrue(action.precondition, requires);
  const adds = new Set<number>();
  const deletes = new Set<number>();
  const maybeAdds = new Set<number>();
  const maybeDeletes = new Set<number>();
  const walk = (e: GroundEffect, conditional: boolean): void => {
    switch (e.kind) {
      case "add":
        (conditional ? maybeAdds : adds).add(e.atom);
        return;
      case "delete":
        (conditional ? maybeDeletes : deletes).add(e.atom);
        return;
      case "numeric":
        return;
      case "and":
        for (const p of e.parts) walk(p, conditional);
        return;
      case "when":
        walk(e.effect, true);
        return;
    }
  };
  walk(action.effect, false);
  const makesTrue = new Set<Literal>();
  const mayMakeFalse: Literal[] = [];
  for (const atom of adds) makesTrue.add(literal(atom, false));
  // Deletes come before adds: a deleted atom some add may restore is not surely false.
  for (const atom of new Set([...deletes, ...maybeDeletes])) {
    if (adds.has(atom)) continue;
    mayMakeFalse.push(literal(atom, false));
    if (deletes.has(atom) && !maybeAdds.has(atom)) makesTrue.add(literal(atom, true));
  }
  // An add wins over a delete: whatever it may add may be true after.
  for (const atom of new Set([...adds, ...maybeAdds])) mayMakeFalse.push(literal(atom, true));
  return { requires, makesTrue, mayMakeFalse };
}

/** The literals a condition makes sure of when it holds: its conjuncts that are (negated) atoms. */
function surelyTrue(c: GroundCondition, out: Literal[]): void {
  if (c.kind === "atom") out.push(literal(c.id, false));
  else if (c.kind === "not" && c.part.kind === "atom") out.push(literal(c.part.id, true));
  else if (c.kind === "and") for (const p of c.parts) surelyTrue(p, out);
}
