/**
 * A PDDL domain and problem read from files and imported (src/planning/pddl-import) into the one Turtle
 * contribution an agent sends for them. Both files are read and imported once, when the agent
 * starts: a refusal is then a start-up error, one `FILE:LINE:COL: message` line naming the
 * file as the operator gave it, not something a session discovers later.
 */
import { readFile } from "node:fs/promises";
import { importPddl } from "../../planning/pddl-import/index.js";
import type { PddlImport, PddlImportOptions } from "../../planning/pddl-import/index.js";

/** The importer's signature, so tests (and a future importer) can stand in for `importPddl`. */
export type PddlImporter = (domainText: string, problemText: string, options?: PddlImportOptions) => PddlImport;

/** The two files of `--pddl DOMAIN PROBLEM`, as given. */
export interface PddlFiles {
  domain: string;
  problem: string;
}

/** What an agent contributes for a PDDL pair. */
export interface PddlContribution {
  turtle: string;
  domainName: string;
  problemName: string;
  /** What the conventions keep only as notes (e.g. `:metric`), for the agent's log. */
  notes: string[];
}

export type PddlLoad = { ok: true; contribution: PddlContribution } | { ok: false; error: string };

/** Reads and imports the pair; a file that cannot be read or a refused construct is one line. */
export async function loadPddlContribution(files: PddlFiles, importer: PddlImporter = importPddl): Promise<PddlLoad> {
  const texts: Partial<PddlFiles> = {};
  for (const which of ["domain", "problem"] as const) {
    try {
      texts[which] = await readFile(files[which], "utf8");
    } catch (err) {
      return { ok: false, error: `${files[which]}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
    }
  }
  const imported = importer(texts.domain ?? "", texts.problem ?? "");
  if (!imported.ok) {
    const { file, line, column, message } = imported.refusal;
    return { ok: false, error: `${files[file]}:${line}:${column}: ${message}` };
  }
  const { turtle, domainName, problemName, notes } = imported;
  return { ok: true, contribution: { turtle, domainName, problemName, notes } };
}

/**
 * The files of `--pddl DOMAIN PROBLEM` from a command line read with `parseArgs` (`--pddl` a
 * boolean, the two files its positionals): undefined without `--pddl`, an error unless exactly
 * two files follow.
 */
export function pddlFilesOf(pddl: boolean, positionals: readonly string[]): PddlFiles | { error: string } | undefined {
  if (!pddl) return undefined;
  const [domain, problem, ...extra] = positionals;
  if (domain === undefined || problem === undefined || extra.length > 0) return { error: "--pddl takes two files: DOMAIN PROBLEM" };
  return { domain, problem };
}
