/**
 * Relaxed reachability over ground actions: which atoms may ever be true or false, which
 * actions may ever be applicable, which fluents may ever change. Conditions are evaluated in
 * three-valued fashion (each may be true, false, or fail), deletes never undo adds, numeric
 * comparisons are taken as possibly anything: an over-approximation, so whatever it rules out
 * cannot happen in any plan the simulator accepts.
 */
import type { Definedness, GroundCondition, GroundEffect } from "./ground.js";
import { conditionMayFail } from "./simplify.js";

/** The outcomes a condition may have, as bits. */
const T = 1;
const F = 2;
const E = 4;

export interface ReachabilityInput {
  initialAtoms: readonly boolean[];
  fluentCount: number;
  actions: readonly { precondition: GroundCondition; effect: GroundEffect }[];
  definedness: (fluent: number) => Definedness;
}

export interface Reachability {
  mayBeTrue: boolean[];
  mayBeFalse: boolean[];
  /** Per action: whether its precondition may hold in some reachable state. */
  reachable: boolean[];
  /** Per fluent: whether some reachable action may update it. */
  updated: boolean[];
  /** Per fluent: whether some reachable action may assign it (giving it a value). */
  assigned: boolean[];
}

export function relaxedReachability(input: ReachabilityInput): Reachability {
  const mayBeTrue = [...input.initialAtoms];
  const mayBeFalse = input.initialAtoms.map((v) => !v);
  const reachable = input.actions.map(() => false);
  const updated = new Array<boolean>(input.fluentCount).fill(false);
  const assigned = new Array<boolean>(input.fluentCount).fill(false);
  let changed = true;

  const possible = (cond: GroundCondition): number => {
    switch (cond.kind) {
      case "const":
        return cond.value ? T : F;
      case "atom":
        return (mayBeTrue[cond.id] ? T : 0) | (mayBeFalse[cond.id] ? F : 0);
      case "compare":
        return T | F | (conditionMayFail(cond, input.definedness) ? E : 0);
      case "and":
      case "or": {
        // Parts are evaluated in order until one decides: a later part's outcomes count only
        // when every earlier part may let evaluation go on.
        const goOn = cond.kind === "and" ? T : F;
        let outcomes = 0;
        for (const part of cond.parts) {
          const p = possible(part);
          outcomes |= p & ~goOn;
          if ((p & goOn) === 0) return outcomes;
        }
        return outcomes | goOn;
      }
      case "not": {
        const p = possible(cond.part);
        return (p & E) | (p & T ? F : 0) | (p & F ? T : 0);
      }
      case "imply": {
        const a = possible(cond.antecedent);
        return (a & E) | (a & F ? T : 0) | (a & T ? possible(cond.consequent) : 0);
      }
    }
  };

  const mark = (flags: boolean[], i: number): void => {
    if (!flags[i]) {
      flags[i] = true;
      changed = true;
    }
  };

  const apply = (eff: GroundEffect): void => {
    switch (eff.kind) {
      case "add":
        mark(mayBeTrue, eff.atom);
        return;
      case "delete":
        mark(mayBeFalse, eff.atom);
        return;
      case "numeric":
        mark(updated, eff.fluent);
        if (eff.op === "assign") mark(assigned, eff.fluent);
        return;
      case "and":
        for (const part of eff.parts) apply(part);
        return;
      case "when":
        if (possible(eff.condition) & T) apply(eff.effect);
        return;
    }
  };

  while (changed) {
    changed = false;
    for (const [i, action] of input.actions.entries()) {
      if (!reachable[i] && possible(action.precondition) & T) {
        reachable[i] = true;
        changed = true;
      }
      if (reachable[i]) apply(action.effect);
    }
  }
  return { mayBeTrue, mayBeFalse, reachable, updated, assigned };
}
