/**
 * Records keyed by names that come from the network: nicks, agent names, the owners of
 * findings. A plain `{}` inherits `constructor`, `valueOf`, `toString`… from Object.prototype,
 * so an agent that calls itself `valueOf` would find a function where its entry should be,
 * and one called `__proto__` would replace the record's prototype. A name table has no
 * prototype: every name is a name like any other, and only what was put in is there.
 */

/** A new name table, with the given entries (a later entry for the same name wins). */
export function nameTable<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const table = Object.create(null) as Record<string, T>;
  for (const [name, value] of entries) table[name] = value;
  return table;
}

/** A copy of a record as a name table, to change without touching the original. */
export function copyNameTable<T>(from: Readonly<Record<string, T>>): Record<string, T> {
  return nameTable(Object.entries(from));
}
