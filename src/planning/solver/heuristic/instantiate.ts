/**
 * Which ground actions can ever matter: the relaxed reachability of an action schema's
 * instances, computed before anything is instantiated. Starting from the initial atoms,
 * an instance is reached when every positive atom of its precondition's top-level `and` is
 * reached; then every atom its effect may add is reached too. Negative, numeric and nested
 * conditions are left out, so this over-approximates what any plan can use: no instance a
 * valid plan needs is lost, and the many that no plan can use are never built. (Instantiating
 * every combination of parameters was the SMT planner's way: millions of actions on real
 * problems, most of them with a static precondition that is never true.)
 *
 * The join is a small backtracking search per schema, most constrained literal first; a schema
 * is joined again only when an atom of a predicate it reads was reached since its last join.
 */
import type { Condition, Term, TypedVariable } from "../../../formal/expression.js";
import type { FormalAction, FormalObject } from "../../../formal/model.js";
import { objectsOfType } from "../../../formal/state.js";

/** One positive atom of a precondition: its predicate and, per argument, a parameter index or a constant. */
interface Literal {
  predicate: string;
  args: ({ param: number } | { constant: string })[];
}

/** An action prepared for joining: its positive precondition atoms and the objects each parameter ranges over. */
export interface Schema {
  action: FormalAction;
  literals: Literal[];
  /** Per parameter: the objects of its type, as a set of symbols and in model order. */
  domains: { symbols: ReadonlySet<string>; ordered: readonly string[] }[];
}

/** Prepares an action for joining. */
export function schemaOf(action: FormalAction, objects: readonly FormalObject[]): Schema {
  const index = new Map(action.parameters.map((p, i) => [p.name, i] as const));
  const literals: Literal[] = [];
  const visit = (c: Condition): void => {
    if (c.kind === "and") for (const p of c.parts) visit(p);
    else if (c.kind === "atom") {
      const args: Literal["args"] = c.args.map((t: Term) => (t.kind === "variable" ? { param: index.get(t.name) ?? -1 } : { constant: t.name }));
      // A variable that is no parameter cannot occur at the top level of a checked model; skip it if it does.
      if (args.every((a) => "constant" in a || a.param >= 0)) literals.push({ predicate: c.predicate, args });
    }
  };
  for (const pre of action.preconditions) visit(pre);
  const domains = action.parameters.map((p: TypedVariable) => {
    const ordered = objectsOfType(objects, p.type).map((o) => o.symbol);
    return { symbols: new Set(ordered), ordered };
  });
  return { action, literals, domains };
}

/** The atoms reached so far, by predicate. */
export class ReachedAtoms {
  private readonly byPredicate = new Map<string, string[][]>();
  private readonly keys = new Set<string>();
  /** Per predicate, the round in which it last gained an atom. */
  private readonly changedAt = new Map<string, number>();
  round = 0;

  /** Adds a ground atom; true when it is new. */
  add(predicate: string, args: readonly string[]): boolean {
    const key = [predicate, ...args].join(" ");
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    let list = this.byPredicate.get(predicate);
    if (list === undefined) {
      list = [];
      this.byPredicate.set(predicate, list);
    }
    list.push([...args]);
    this.changedAt.set(predicate, this.round);
    return true;
  }

  /** The reached atoms of a predicate, as argument lists. */
  of(predicate: string): readonly string[][] {
    return this.byPredicate.get(predicate) ?? [];
  }

  /** Whether a predicate gained an atom in round `since` or later. */
  changedSince(predicate: string, since: number): boolean {
    return (this.changedAt.get(predicate) ?? -1) >= since;
  }
}

/** Bounds the number of instances a join may produce before the caller is told. */
export class TooManyInstances extends Error {}

/**
 * Calls `emit` with each parameter binding (symbols in parameter order) whose positive
 * literals are all reached. Bindings are emitted at most once per call, not across calls.
 */
export function joinSchema(schema: Schema, reached: ReachedAtoms, emit: (args: string[]) => void, budget: { left: number }): void {
  const n = schema.domains.length;
  const binding: (string | undefined)[] = new Array<string | undefined>(n).fill(undefined);
  const pending = [...schema.literals];

  const finish = (p: number): void => {
    // Parameters no literal binds range over their type.
    if (p === n) {
      budget.left -= 1;
      if (budget.left < 0) throw new TooManyInstances();
      emit(binding.map((b) => b as string));
      return;
    }
    if (binding[p] !== undefined) {
      finish(p + 1);
      return;
    }
    for (const symbol of (schema.domains[p] as Schema["domains"][number]).ordered) {
      binding[p] = symbol;
      finish(p + 1);
    }
    binding[p] = undefined;
  };

  const step = (): void => {
    if (pending.length === 0) {
      finish(0);
      return;
    }
    // Most bound arguments first, then fewest atoms: the join stays narrow.
    let best = 0;
    let bestScore = -Infinity;
    for (let i = 0; i < pending.length; i += 1) {
      const lit = pending[i] as Literal;
      const bound = lit.args.filter((a) => !("param" in a) || binding[a.param] !== undefined).length;
      const score = bound * 1e9 - reached.of(lit.predicate).length;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
    const lit = pending.splice(best, 1)[0] as Literal;
    for (const atom of reached.of(lit.predicate)) {
      if (atom.length !== lit.args.length) continue;
      const newly: number[] = [];
      let ok = true;
      for (let i = 0; i < atom.length && ok; i += 1) {
        const a = lit.args[i] as Literal["args"][number];
        const value = atom[i] as string;
        if ("constant" in a) ok = a.constant === value;
        else {
          const current = binding[a.param];
          if (current === undefined) {
            if ((schema.domains[a.param] as Schema["domains"][number]).symbols.has(value)) {
              binding[a.param] = value;
              newly.push(a.param);
            } else ok = false;
          } else ok = current === value;
        }
      }
      if (ok) step();
      for (const p of newly) binding[p] = undefined;
    }
    pending.splice(best, 0, lit);
  };
  step();
}
