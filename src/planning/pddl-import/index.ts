/**
 * PDDL in: a planning domain and problem read into the project's formal model and written as
 * one Turtle contribution that follows docs/protocol.md's formal-model conventions.
 *
 * The steps, one module each: source.ts reads a file into positioned S-expressions;
 * domain.ts and problem.ts read their structure, refusing (constructs.ts) what the
 * conventions cannot carry; task.ts parses every expression with the project's own parsers
 * (expressions.ts) and flattens types (types.ts); turtle.ts writes the contribution. The
 * model returned is what `readFormalModel` reads from that Turtle, so the two cannot differ.
 */
import { Parser } from "n3";
import { readFormalModel } from "../../formal/model.js";
import type { FormalModel } from "../../formal/model.js";
import { Refused } from "./refusal.js";
import type { PddlRefusal } from "./refusal.js";
import { readTask } from "./task.js";
import type { PlanningTask } from "./task.js";
import { defaultBase, writeTurtle } from "./turtle.js";

export { formatRefusal } from "./refusal.js";
export type { PddlFile, PddlRefusal } from "./refusal.js";
export type { PlanningTask } from "./task.js";

/** How to import. */
export interface PddlImportOptions {
  /** The IRI the contribution's nodes are minted under; a urn of the domain and problem names by default. */
  base?: string;
}

/** What an import gave: the model, its Turtle and notes, or one refusal. */
export type PddlImport =
  | {
      ok: true;
      /** Exactly what `readFormalModel` gives for `turtle`. */
      model: FormalModel;
      turtle: string;
      domainName: string;
      problemName: string;
      /** What the conventions cannot carry as formal parts but the contribution keeps as notes (e.g. `:metric`). */
      notes: string[];
      /** The task as read, for a summary (counts of objects, actions, facts…). */
      task: PlanningTask;
    }
  | { ok: false; refusal: PddlRefusal };

/** Imports a domain and a problem; never throws: any input gives a model or one refusal. */
export function importPddl(domainText: string, problemText: string, options: PddlImportOptions = {}): PddlImport {
  try {
    const task = readTask(domainText, problemText);
    const turtle = writeTurtle(task, options.base ?? defaultBase(task.domainName, task.problemName));
    const model = readFormalModel(new Parser({ format: "text/turtle" }).parse(turtle));
    const lost = [...model.findings.map((f) => f.message), ...model.notMachineCheckable.map((p) => p.text), ...model.actions.flatMap((a) => a.informal)];
    if (lost.length > 0) {
      // A part the reader could not take would be a bug of this importer; refused, not hidden.
      return { ok: false, refusal: { file: "domain", line: 1, column: 1, construct: "define", message: `the formal model does not read back as written: ${lost[0] as string}` } };
    }
    return { ok: true, model, turtle, domainName: task.domainName, problemName: task.problemName, notes: task.notes, task };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, refusal: err.refusal };
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, refusal: { file: "domain", line: 1, column: 1, construct: "define", message: `the files could not be read (${message})` } };
  }
}
