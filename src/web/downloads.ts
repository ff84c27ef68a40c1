/**
 * The session page's downloads: exactly the files `mfr-coordinator export` writes (and
 * `export --pddl` when the model has a formal part), made by the same functions, in memory.
 */
import { ExportError, sessionExportFiles } from "../store/export.js";
import { sessionPddlFiles } from "../store/export-pddl.js";
import type { SessionStore } from "../store/index.js";
import { formalSummaryOf } from "../session/verdicts.js";
import type { Session } from "../session/types.js";

export interface Download {
  name: string;
  content: string;
  contentType: string;
}

/** The names offered for a session (the PDDL files only where there is a formal model). */
export function downloadNames(session: Session): string[] {
  const names = [`${session.id}.trig`, `${session.id}.validation.json`, `${session.id}.proposals.json`, `${session.id}.events.json`];
  if (formalSummaryOf(session.model)?.hasFormalPart) names.push(`${session.id}.domain.pddl`, `${session.id}.problem.pddl`);
  return names;
}

function contentTypeOf(name: string): string {
  if (name.endsWith(".json")) return "application/json; charset=utf-8";
  if (name.endsWith(".trig")) return "application/trig; charset=utf-8";
  return "text/plain; charset=utf-8";
}

/** One export file by name; undefined when the session has no such file. */
export function downloadOf(store: SessionStore, sessionId: string, name: string): Download | undefined {
  try {
    const pddl = name.endsWith(".pddl") || name.endsWith(".plan");
    const { files } = pddl ? sessionPddlFiles(store, sessionId) : sessionExportFiles(store, sessionId);
    const found = files.find(([fileName]) => fileName === name);
    return found ? { name, content: found[1], contentType: contentTypeOf(name) } : undefined;
  } catch (err) {
    // A session the store does not know, or a model without a formal part: no such file.
    if (err instanceof ExportError) return undefined;
    throw err;
  }
}
