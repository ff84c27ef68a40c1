/**
 * The IPC benchmarks of the shared data directory (`../shared/pddl` beside the repository;
 * read-only data nobody here wrote), listed once for the PDDL import tests.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the benchmarks are: beside the repository, as the workspace lays it out. */
export const IPC_DIR = fileURLToPath(new URL("../../../../shared/pddl/", import.meta.url));

/** One benchmark problem: its folder, file name and the texts of its domain and problem. */
export interface IpcProblem {
  folder: string;
  instance: string;
  domain: string;
  problem: string;
}

/** The benchmark folders (each with domain.pddl and instances/), sorted. */
export function ipcFolders(): string[] {
  // Missing data fails the tests that need it, loudly, rather than leaving them nothing to check.
  if (!existsSync(IPC_DIR)) throw new Error(`the IPC benchmarks are not at ${IPC_DIR} (the shared data directory beside the repository)`);
  return readdirSync(IPC_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(IPC_DIR, e.name, "domain.pddl")))
    .map((e) => e.name)
    .sort();
}

/** The instances of a folder in their natural order (instance-2 before instance-10). */
export function ipcInstances(folder: string): string[] {
  return readdirSync(join(IPC_DIR, folder, "instances"))
    .filter((f) => f.endsWith(".pddl"))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

/** A folder's problems, the first `count` or all of them. */
export function ipcProblems(folder: string, count = Infinity): IpcProblem[] {
  const domain = readFileSync(join(IPC_DIR, folder, "domain.pddl"), "utf8");
  return ipcInstances(folder)
    .slice(0, count)
    .map((instance) => ({ folder, instance, domain, problem: readFileSync(join(IPC_DIR, folder, "instances", instance), "utf8") }));
}
