/**
 * Conditions and effects in the shape PDDL (and VAL) reads, with the simulator's meaning
 * kept: a precondition as a list of conjuncts, effects flattened so that a `when` holds
 * only simple effects or one `forall`, and nested `when`s joined. Used by the PDDL export on
 * the model's actions once renamed (pddl-rename.ts), and to write their preconditions (pddl.ts).
 */
import type { Condition, Effect } from "../../formal/expression.js";

/** The parts of a top-level `and`, recursively; anything else as itself. */
export function conjuncts(c: Condition): Condition[] {
  return c.kind === "and" ? c.parts.flatMap(conjuncts) : [c];
}

/** One condition for several: their `and`, or the only one as itself. */
export function conjunction(parts: Condition[]): Condition {
  return parts.length === 1 ? (parts[0] as Condition) : { kind: "and", parts };
}

/**
 * Effects in the shape PDDL reads: a flat list of simple effects, `forall`s (whose bodies are
 * normalised in turn) and `when`s holding simple effects or one `forall`. Order is kept.
 */
export function normaliseEffects(effects: readonly Effect[]): Effect[] {
  const out: Effect[] = [];
  for (const e of effects) flatten(e, out);
  return out;
}

/** Appends `e`, normalised, to `out`: an `and` is spread, a `forall` normalised inside, a `when` split by conditional(). */
function flatten(e: Effect, out: Effect[]): void {
  switch (e.kind) {
    case "and":
      for (const p of e.parts) flatten(p, out);
      return;
    case "forall": {
      const body = normaliseEffects([e.body]);
      out.push({ kind: "forall", variables: e.variables, body: body.length === 1 ? (body[0] as Effect) : { kind: "and", parts: body } });
      return;
    }
    case "when":
      conditional(e.condition, normaliseEffects([e.effect]), out);
      return;
    default:
      out.push(e);
  }
}

/** `(when c …)` over normalised effects: runs of simple effects share one `when`; inner `when`s join conditions. */
function conditional(condition: Condition, body: Effect[], out: Effect[]): void {
  // An empty body stays: the simulator still evaluates the condition (which may fail on a fluent without a value).
  if (body.length === 0) out.push({ kind: "when", condition, effect: { kind: "and", parts: [] } });
  let run: Effect[] = [];
  const close = (): void => {
    if (run.length > 0) out.push({ kind: "when", condition, effect: run.length === 1 ? (run[0] as Effect) : { kind: "and", parts: run } });
    run = [];
  };
  for (const e of body) {
    if (e.kind === "when") {
      close();
      out.push({ kind: "when", condition: { kind: "and", parts: [...conjuncts(condition), ...conjuncts(e.condition)] }, effect: e.effect });
    } else if (e.kind === "forall") {
      close();
      out.push({ kind: "when", condition, effect: e });
    } else run.push(e);
  }
  close();
}
