/**
 * Where PostgreSQL's own programs are: pg_dump and pg_restore for `backup`, initdb and
 * postgres for the tests' throw-away servers. On PATH first; else in the newest of Debian's
 * /usr/lib/postgresql/<major>/bin, where the server package puts them without putting them
 * all on PATH. Programs asked for together come from one place, so they are one version.
 */
import { accessSync, constants, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { findOnPath } from "./locate.js";

/** Where Debian's packages put each major version's programs: `<this>/<major>/bin`. */
export const DEBIAN_POSTGRES_LIB = "/usr/lib/postgresql";

/**
 * The absolute paths of every program in `names`, all on PATH or all in one version's
 * directory under `lib` (the newest that has them all); undefined when no place has them all.
 */
export function locatePostgresPrograms<N extends string>(names: readonly N[], env: NodeJS.ProcessEnv = process.env, lib: string = DEBIAN_POSTGRES_LIB): Record<N, string> | undefined {
  const onPath = names.map((name) => findOnPath(name, env));
  if (onPath.every((path) => path !== undefined)) return Object.fromEntries(names.map((name, i) => [name, onPath[i]])) as Record<N, string>;
  let majors: number[];
  try {
    majors = readdirSync(lib)
      .map(Number)
      .filter((n) => Number.isInteger(n))
      .sort((a, b) => b - a);
  } catch {
    return undefined;
  }
  for (const major of majors) {
    const bin = join(lib, String(major), "bin");
    const paths = names.map((name) => join(bin, name));
    if (paths.every(isExecutable)) return Object.fromEntries(names.map((name, i) => [name, paths[i]])) as Record<N, string>;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
