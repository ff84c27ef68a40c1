/**
 * The model's entity types as the PDDL export (pddl.ts) writes them. An entity may have no
 * type or several; a PDDL object has one. Taken in name order, a type whose objects nest
 * with, or are disjoint from, those of every type taken before becomes a PDDL type under
 * the smallest taken type that contains it; a type that would overlap another is written
 * as a predicate `(is-TYPE o)` instead. When the model names symbols no entity defines,
 * the entities' types sit under a root type `entity`. (pddl.ts's header says why.)
 */
import type { FormalModel } from "../../formal/model.js";
import { allocateNames } from "./pddl-names.js";
import type { NameRequest, PddlRenaming } from "./pddl-names.js";
import { compare, OBJECT } from "./pddl-print.js";

/** The key of the synthetic `entity` type among the model's types (no model type has it). */
const ROOT_KEY = "\u0000root";

/** How the model's types are written: PDDL types where they nest, predicates where they overlap. */
export interface TypePlan {
  /** Model type → PDDL type name, for types written as PDDL types. */
  pddl: Map<string, string>;
  /** Model type → the predicate standing for it, for types that overlap others. */
  predicate: Map<string, string>;
  /** PDDL type → its parent PDDL type. */
  parent: Map<string, string>;
  /** The type of an untyped variable: `entity` when undeclared symbols exist, else undefined (object). */
  root: string | undefined;
  /** Object symbol (model) → its PDDL type. */
  objectType: Map<string, string>;
}

/**
 * How the model's types are written: the types of `model`'s objects and those variables are
 * declared with (`variableTypes`) are split into PDDL types and type predicates, named (each
 * renaming added to `renamed`), and each object given its most specific PDDL type. `ghosts`
 * are the symbols named but defined by no entity: when there are any, a root type is made.
 * The type predicates' names are left empty, for PddlRenamer to settle with the predicates.
 */
export function planTypes(model: FormalModel, variableTypes: ReadonlySet<string>, ghosts: readonly string[], renamed: PddlRenaming[]): TypePlan {
  const members = new Map<string, Set<string>>();
  for (const o of model.objects) {
    for (const t of o.types) {
      if (t === OBJECT) continue;
      const set = members.get(t) ?? new Set<string>();
      set.add(o.symbol);
      members.set(t, set);
    }
  }
  for (const t of variableTypes) if (t !== OBJECT && !members.has(t)) members.set(t, new Set());
  const names = [...members.keys()].sort(compare);
  const accepted: string[] = [];
  const overlapping: string[] = [];
  for (const t of names) {
    const set = members.get(t) as Set<string>;
    if (set.size === 0 || accepted.every((u) => nestedOrDisjoint(set, members.get(u) as Set<string>))) accepted.push(t);
    else overlapping.push(t);
  }
  // Deeper first: (size ascending, then name descending) orders a chain of equal sets too.
  const deeper = (a: string, b: string): number => (members.get(a) as Set<string>).size - (members.get(b) as Set<string>).size || compare(b, a);
  const containsAll = (outer: string, inner: string): boolean => {
    const o = members.get(outer) as Set<string>;
    return [...(members.get(inner) as Set<string>)].every((s) => o.has(s));
  };
  const modelParent = new Map<string, string | undefined>();
  for (const t of accepted) {
    if ((members.get(t) as Set<string>).size === 0) {
      modelParent.set(t, undefined);
      continue;
    }
    const above = accepted.filter((u) => u !== t && (members.get(u) as Set<string>).size > 0 && containsAll(u, t) && deeper(t, u) < 0).sort(deeper);
    modelParent.set(t, above[0]);
  }
  const objectModelType = new Map<string, string | undefined>();
  for (const o of model.objects) {
    const own = accepted.filter((t) => (members.get(t) as Set<string>).has(o.symbol)).sort(deeper);
    objectModelType.set(o.symbol, own[0]);
  }

  // Names: the model's types first, then the synthetic root and type predicates.
  const typeRequests: NameRequest[] = accepted.map((t) => ({ key: t, wanted: t }));
  const needRoot = ghosts.length > 0;
  // The root is the writer's own type: it takes what name is left, and is no renaming.
  if (needRoot) typeRequests.push({ key: ROOT_KEY, wanted: "entity", label: ROOT_KEY });
  const typeRenames: PddlRenaming[] = [];
  const typeName = allocateNames("type", typeRequests, typeRenames);
  renamed.push(...typeRenames.filter((r) => r.from !== ROOT_KEY));
  const root = needRoot ? (typeName.get(ROOT_KEY) as string) : undefined;
  const pddl = new Map(accepted.map((t) => [t, typeName.get(t) as string]));
  const parent = new Map<string, string>();
  if (root !== undefined) parent.set(root, OBJECT);
  for (const t of accepted) {
    const p = modelParent.get(t);
    parent.set(pddl.get(t) as string, p === undefined ? (root ?? OBJECT) : (pddl.get(p) as string));
  }
  const objectType = new Map<string, string>();
  for (const o of model.objects) {
    const t = objectModelType.get(o.symbol);
    objectType.set(o.symbol, t === undefined ? (root ?? OBJECT) : (pddl.get(t) as string));
  }
  // The type predicates' names are settled with the predicates (PddlRenamer).
  const predicate = new Map<string, string>(overlapping.map((t) => [t, ""]));
  return { pddl, predicate, parent, root, objectType };
}

/** The most specific type every one of `types` belongs to. */
export function commonType(parent: ReadonlyMap<string, string>, types: string[]): string {
  const chain = (t: string): string[] => {
    const out = [t];
    for (let p = parent.get(t); p !== undefined && !out.includes(p); p = parent.get(p)) out.push(p);
    if (!out.includes(OBJECT)) out.push(OBJECT);
    return out;
  };
  const [first, ...rest] = types;
  if (first === undefined) return OBJECT;
  const chains = rest.map(chain);
  return chain(first).find((t) => chains.every((c) => c.includes(t))) ?? OBJECT;
}

/** Whether two types' objects nest (one set holds the other) or are disjoint: only then can both be PDDL types. */
function nestedOrDisjoint(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  let shared = 0;
  for (const x of a) if (b.has(x)) shared += 1;
  return shared === 0 || shared === a.size || shared === b.size;
}
