/**
 * Type flattening: the formal model has no type hierarchy, only each entity's list of
 * `mfr:entityType` values, and a typed variable matches an entity that lists its type. So an
 * object is given its declared type(s) and every ancestor (never `object`, which matches
 * every entity anyway), and each `(either a b)` a variable is typed with becomes one
 * synthetic type, `either-a-b`, given to every object of a member type or of a subtype.
 */
import type { TypedName } from "./source.js";

/** PDDL's root type: every object has it, so the model never needs to say so. */
export const ROOT_TYPE = "object";

/** The declared `:types`: each type's parents (several when a file declares a type twice). */
export class TypeHierarchy {
  private readonly parents = new Map<string, Set<string>>();

  /** `declarations` are the items of `(:types …)`: `a b - t` makes t the parent of a and b. */
  constructor(declarations: readonly TypedName[]) {
    for (const d of declarations) {
      const set = this.parents.get(d.name) ?? new Set<string>();
      for (const t of d.types) if (t !== d.name) set.add(t);
      this.parents.set(d.name, set);
    }
    // A parent named only after a `-` is a type too, under `object`.
    for (const d of declarations) for (const t of d.types) if (t !== ROOT_TYPE && !this.parents.has(t)) this.parents.set(t, new Set());
  }

  /** Whether `type` is declared (or is the root). */
  has(type: string): boolean {
    return type === ROOT_TYPE || this.parents.has(type);
  }

  /** The declared type names, in declaration order. */
  names(): string[] {
    return [...this.parents.keys()];
  }

  /** `type` and all its ancestors, nearest first, without `object`; cycles are cut. */
  ancestors(type: string): string[] {
    const out: string[] = [];
    const queue = [type];
    while (queue.length > 0) {
      const t = queue.shift() as string;
      if (t === ROOT_TYPE || out.includes(t)) continue;
      out.push(t);
      queue.push(...(this.parents.get(t) ?? []));
    }
    return out;
  }
}

/** The synthetic types `(either …)` is written as, named once each, deterministically. */
export class EitherTypes {
  private readonly byKey = new Map<string, { name: string; members: string[] }>();
  private readonly taken: Set<string>;

  /** `declared` are the names synthetic types must not take. */
  constructor(declared: Iterable<string>) {
    this.taken = new Set(declared);
  }

  /**
   * The type that stands for `(either …members)`: the member itself when there is one, `object`
   * when `object` is one, else `either-` and the sorted members joined by `-` (numbered on a clash).
   */
  nameFor(members: readonly string[]): string {
    const unique = [...new Set(members)].sort();
    if (unique.length === 1) return unique[0] as string;
    if (unique.includes(ROOT_TYPE)) return ROOT_TYPE;
    const key = unique.join(" ");
    const known = this.byKey.get(key);
    if (known !== undefined) return known.name;
    const base = `either-${unique.join("-")}`;
    let name = base;
    for (let i = 2; this.taken.has(name); i += 1) name = `${base}-${i}`;
    this.taken.add(name);
    this.byKey.set(key, { name, members: unique });
    return name;
  }

  /** Every synthetic type named so far, with its members. */
  all(): { name: string; members: string[] }[] {
    return [...this.byKey.values()];
  }
}

/**
 * The `mfr:entityType` values of an object declared with `declared` types (several when it is
 * declared twice or with `either`): each type and its ancestors, then every synthetic either
 * type one of them belongs to. Empty for an object of no type but `object`.
 */
export function flattenTypes(declared: readonly string[], hierarchy: TypeHierarchy, eithers: EitherTypes): string[] {
  const types: string[] = [];
  for (const d of declared) for (const t of hierarchy.ancestors(d)) if (!types.includes(t)) types.push(t);
  for (const e of eithers.all()) if (e.members.some((m) => types.includes(m))) types.push(e.name);
  return types;
}
