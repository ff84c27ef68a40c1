/**
 * How the PDDL reader says no: one refusal names the file, the line and column, the construct
 * as written and one readable sentence. Deep inside the reader a refusal is thrown as
 * `Refused` (so every helper can stop at the first problem without threading results back);
 * `importPddl` catches it, and anything else, so no input ever makes it throw.
 */
import type { SExpr } from "../../formal/sexpr.js";

/** Which of the two files a refusal is about. */
export type PddlFile = "domain" | "problem";

/** Why a domain or problem was refused: the file, where, and the construct named. */
export interface PddlRefusal {
  file: PddlFile;
  line: number;
  column: number;
  /** The construct, as written: `:durative-action`, `:derived`, `(sometime …)`. */
  construct: string;
  /** One readable sentence. */
  message: string;
}

/** A position in a file, 1-based like an editor shows it. */
export interface At {
  line: number;
  column: number;
}

/** Thrown inside src/planning/pddl-import only and always caught by `importPddl`. */
export class Refused extends Error {
  constructor(readonly refusal: PddlRefusal) {
    super(refusal.message);
  }
}

/** Stops the import: `construct` at `at` in `file` cannot be carried, and `message` says why. */
export function refuse(file: PddlFile, at: At | SExpr | undefined, construct: string, message: string): never {
  const where = at ?? { line: 1, column: 1 };
  throw new Refused({ file, line: where.line, column: where.column, construct, message });
}

/** `domain.pddl:42:5: message`: how a refusal is shown on one line. */
export function formatRefusal(refusal: PddlRefusal, fileName: string = `${refusal.file}.pddl`): string {
  return `${fileName}:${refusal.line}:${refusal.column}: ${refusal.message}`;
}
