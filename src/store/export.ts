/**
 * `mfr-coordinator export <sessionId>`: everything the store knows about one session, as
 * four files an operator can read or load elsewhere:
 * - `<id>.trig`            the merged model, one named graph per contribution;
 * - `<id>.validation.json` every validation round, as the core recorded it, plus the
 *                          worker's full reports when they were saved;
 * - `<id>.proposals.json`  the solutions proposed;
 * - `<id>.events.json`     every logged input, in order (the session's whole history).
 * Works for live and archived sessions: a live one is rebuilt from its events by the core.
 * (`export --pddl` writes the model's formal part as PDDL instead: export-pddl.ts.)
 *
 * What an export reads of a store is an ExportSource, synchronous: the SQLite store is one,
 * and a session of the shared PostgreSQL store loaded into memory first is another
 * (pg/pg-store-reader.ts), so both stores' exports are written by the same code.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Session, SessionId } from "../session/types.js";
import { exportedStatusOf, isoTime, statusLine, type ExportedStatus } from "./export-status.js";
import { contributionsTrig } from "./model-trig.js";
import type { Artefact, ArtefactKind, StoredEvent } from "../host/journal-records.js";
import { sessionFromEvents } from "./replay.js";

/** What an export reads of a store, with the SQLite store's meaning (SessionStore is one). */
export interface ExportSource {
  /** Where the store is, for messages: the database file, or the database's URL with its password masked. */
  readonly path: string;
  /** Every event of one session, archived or not, in order. */
  eventsOf(sessionId: SessionId): StoredEvent[];
  /** The final state of an archived session, or undefined. */
  archivedSession(id: SessionId): Session | undefined;
  /** The session's artefacts, oldest first; only those of one kind if given. */
  artefacts(sessionId: SessionId, kind?: ArtefactKind): Artefact[];
  /** A stored text by its digest (a formal model's JSON, by the digest in its summary); undefined when the store has none. */
  blobText(sessionId: SessionId, digest: string): string | undefined;
}

/** Why an export was refused (an unsafe or unknown id, no formal part for PDDL), in one line the CLI prints. */
export class ExportError extends Error {
  override readonly name = "ExportError";
}

/** What an export wrote, with notes for the operator and the session's status line. */
export interface ExportResult {
  /** Absolute paths written, in the order above. */
  files: string[];
  /** Things the operator should know about the export (one line each). */
  notes: string[];
  /** One line: the session's final status and when it completed, or that it is still running. */
  status: string;
}

/** Session ids become file names; anything that could leave `outDir` is refused. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The session an export writes: archived, or rebuilt from its events by the core; undefined
 * when only events exist (its start was not logged). Refuses an id that could leave the
 * output directory and an id the store does not know.
 */
export function sessionToExport(store: ExportSource, sessionId: SessionId): { session: Session | undefined; events: StoredEvent[] } {
  if (!SAFE_ID.test(sessionId)) throw new ExportError(`"${sessionId}" is not a session id (letters, digits, ".", "_" and "-" only)`);
  const events = store.eventsOf(sessionId);
  const session = store.archivedSession(sessionId) ?? sessionFromEvents(sessionId, events);
  if (!session && events.length === 0) throw new ExportError(`there is no session "${sessionId}" in ${store.path}`);
  return { session, events };
}

/** The files `exportSession` writes, as names and contents (the web view serves them as downloads). */
export function sessionExportFiles(store: ExportSource, sessionId: SessionId): { files: Array<[name: string, content: string]>; notes: string[]; status: string } {
  const { session, events } = sessionToExport(store, sessionId);

  const notes: string[] = [];
  const model = modelTrig(store, sessionId, session, notes);
  // Every JSON file opens with the session's standing, so each one read alone says how it ended.
  const standing: ExportedStatus = exportedStatusOf(session);
  const validations = {
    sessionId,
    session: standing,
    validations: (session?.validations ?? []).map((v) => ({ ...v, atIso: isoTime(v.at) })),
    reports: store.artefacts(sessionId, "validation").map(reportOf),
  };
  const proposals = {
    sessionId,
    session: standing,
    proposals: (session?.proposals ?? []).map((p) => ({ ...p, receivedAtIso: isoTime(p.receivedAt) })),
  };
  const history = {
    sessionId,
    session: standing,
    events: events.map(({ seq, at, input }: StoredEvent) => ({ seq, at, atIso: isoTime(at), input })),
  };
  const files: Array<[string, string]> = [
    [`${sessionId}.trig`, model],
    [`${sessionId}.validation.json`, json(validations)],
    [`${sessionId}.proposals.json`, json(proposals)],
    [`${sessionId}.events.json`, json(history)],
  ];
  return { files, notes, status: statusLine(sessionId, standing) };
}

/**
 * Writes a session's four export files (see the header) into `outDir`, made if missing; files
 * of the same name are overwritten. Throws ExportError for an unsafe or unknown id, writing nothing.
 */
export function exportSession(store: ExportSource, sessionId: SessionId, outDir: string): ExportResult {
  const { files, notes, status } = sessionExportFiles(store, sessionId);
  return { files: writeExportFiles(outDir, files), notes, status };
}

/** Writes the files into `outDir` (made if missing); returns their absolute paths, in order. */
export function writeExportFiles(outDir: string, files: ReadonlyArray<[string, string]>): string[] {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  return files.map(([name, content]) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  });
}

/**
 * The session's contributions merged afresh, as the model worker merges them. Stores written
 * while the worker still saved its TriG keep that one, used unless a contribution arrived
 * after it (a fix round cut short), so the export shows the model as the session left it.
 */
function modelTrig(store: ExportSource, sessionId: SessionId, session: Session | undefined, notes: string[]): string {
  const saved = store.artefacts(sessionId, "model-trig").at(-1);
  const contributions = session ? Object.values(session.contributions) : [];
  const newest = Math.max(-Infinity, ...contributions.map((c) => c.receivedAt));
  if (saved && saved.at >= newest) return saved.content;
  if (!session) {
    notes.push("the session's start was not logged, so there is no model to export");
    return "";
  }
  if (saved) notes.push("contributions arrived after the last validated model; the TriG merges the latest contributions instead");
  const rebuilt = contributionsTrig(session);
  for (const skipped of rebuilt.skipped) notes.push(`left out of the TriG (does not parse): ${skipped}`);
  return rebuilt.trig;
}

/** Reports are saved as JSON text; one that is not JSON is exported as a string rather than lost. */
function reportOf(artefact: Artefact): { at: number; atIso: string; report: unknown } {
  const when = { at: artefact.at, atIso: isoTime(artefact.at) };
  try {
    return { ...when, report: JSON.parse(artefact.content) as unknown };
  } catch {
    return { ...when, report: artefact.content };
  }
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
