/**
 * Finds the planning benchmark's problems: every folder of the data directory with a
 * `domain.pddl` and an `instances/` folder (see its README.md), instances in natural order
 * (instance-2 before instance-10), so `--limit N` takes the N smallest by number, which in
 * these collections are the easiest.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Problem } from "./types.js";

export interface DiscoveryOptions {
  /** Keep only folders whose name contains this (case-insensitive). */
  only?: string | null;
  /** Keep the first N problems of each folder. */
  limit?: number | null;
}

const collator = new Intl.Collator("en", { numeric: true });

/** Natural order: the numbers inside names compare as numbers. */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b);
}

export function isNumericFolder(folder: string): boolean {
  return folder.includes("numeric");
}

/**
 * A best known plan length, when a comment of the instance states one (";; optimal plan
 * length: 12", "; best known: 40 steps"). None of the folders shipped gives one today; the
 * column says "—" then, rather than comparing against a guess.
 */
export function bestKnownLength(problemText: string): number | null {
  for (const line of problemText.split("\n")) {
    const comment = /;+(.*)$/.exec(line)?.[1];
    if (comment === undefined) continue;
    const m = /\b(?:optimal|best[- ]known)\b(?:\s+plan)?(?:\s+(?:length|cost))?\s*[:=]?\s*(\d+)\b/i.exec(comment);
    if (m) return Number(m[1]);
  }
  return null;
}

export function discoverProblems(dataDir: string, options: DiscoveryOptions = {}): Problem[] {
  if (!existsSync(dataDir)) throw new Error(`no benchmark directory at ${dataDir} (see --data)`);
  const only = options.only?.toLowerCase() ?? null;
  const folders = readdirSync(dataDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dataDir, e.name, "domain.pddl")) && existsSync(join(dataDir, e.name, "instances")))
    .map((e) => e.name)
    .filter((name) => only === null || name.toLowerCase().includes(only))
    .sort(naturalCompare);
  const problems: Problem[] = [];
  for (const folder of folders) {
    let files = readdirSync(join(dataDir, folder, "instances"))
      .filter((f) => f.endsWith(".pddl"))
      .sort(naturalCompare);
    if (options.limit !== undefined && options.limit !== null) files = files.slice(0, options.limit);
    for (const file of files) {
      const problemPath = join(dataDir, folder, "instances", file);
      problems.push({
        folder,
        file,
        domainPath: join(dataDir, folder, "domain.pddl"),
        problemPath,
        numeric: isNumericFolder(folder),
        bestKnown: bestKnownLength(readFileSync(problemPath, "utf8")),
      });
    }
  }
  return problems;
}
