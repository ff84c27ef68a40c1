/**
 * `mfr-coordinator export <sessionId> --pddl`: the formal part of a session's model as PDDL
 * (src/planning/pddl-export/pddl.ts says what is written and why), for an operator to check a plan with a
 * standard validator or to hand the problem to a planner:
 * - `<id>.domain.pddl`, `<id>.problem.pddl`;
 * - `<id>.<agent>.plan` per proposal with a plan (the nick made a file name: letters, digits,
 *   `_` and `-`; `-2`, `-3`, … when two agents' names come out the same, case ignored).
 * The model is the formal model the coordinator checked plans against (stored by the model
 * worker, named by the digest in the analysis's formal summary; older logs keep it in the
 * analysis itself); for a session logged before that was kept, it is read afresh from the
 * contributions as the model worker reads them, or else from the saved model TriG. A model
 * with no formal part is refused, and nothing is written.
 *
 * VAL is not run here: `Validate -v <id>.domain.pddl <id>.problem.pddl <id>.<agent>.plan`.
 */
import { Parser } from "n3";
import { hasFormalPart, readFormalModel, type FormalModel } from "../formal/index.js";
import { toPddl, type PddlPlan } from "../planning/pddl-export/pddl.js";
import type { Session, SessionId } from "../session/types.js";
import { exportedStatusOf, statusLine } from "./export-status.js";
import { ExportError, sessionToExport, writeExportFiles, type ExportResult, type ExportSource } from "./export.js";
import { contributionGraphs } from "./model-trig.js";

/**
 * Writes the PDDL files of a session (see the header) into `outDir` and says what was written.
 * Throws ExportError, writing nothing, for an unknown id or a model without a formal part.
 */
export function exportSessionPddl(store: ExportSource, sessionId: SessionId, outDir: string): ExportResult {
  const { files, notes, status } = sessionPddlFiles(store, sessionId);
  return { files: writeExportFiles(outDir, files), notes, status };
}

/** The files `exportSessionPddl` writes, as names and contents; throws ExportError when there is no formal part. */
export function sessionPddlFiles(store: ExportSource, sessionId: SessionId): { files: Array<[name: string, content: string]>; notes: string[]; status: string } {
  const { session } = sessionToExport(store, sessionId);
  const notes: string[] = [];
  const model = formalModelOf(store, sessionId, session, notes);
  if (model === undefined) throw new ExportError(`session "${sessionId}" has no model to export as PDDL (it never received a contribution)`);
  if (!hasFormalPart(model)) {
    const free = model.notMachineCheckable.length;
    throw new ExportError(
      `session "${sessionId}" has no formal part to write as PDDL: no action the simulator can run, no formal constraint and no formal goal` +
        (free > 0 ? ` (${free} free-text part${free === 1 ? "" : "s"})` : ""),
    );
  }

  const withPlans = (session?.proposals ?? []).filter((p) => Array.isArray(p.solution.plan));
  const plans: PddlPlan[] = withPlans.map((p) => ({ label: p.agent, steps: p.solution.plan as unknown[], verification: p.verification }));
  const pddl = toPddl(model, { name: sessionId, plans });
  const files: Array<[string, string]> = [
    [`${sessionId}.domain.pddl`, pddl.domain],
    [`${sessionId}.problem.pddl`, pddl.problem],
  ];
  const taken = new Set<string>();
  withPlans.forEach((p, i) => files.push([`${sessionId}.${uniqueFileName(p.agent, taken)}.plan`, pddl.plans[i] as string]));
  const skipped = (session?.proposals.length ?? 0) - withPlans.length;
  if (skipped > 0) notes.push(`${skipped} proposal${skipped === 1 ? " has" : "s have"} no plan, so no plan file`);

  return { files, notes, status: statusLine(sessionId, exportedStatusOf(session)) };
}

/** The formal model plans were checked against, or the one its contributions (or saved TriG) give. */
function formalModelOf(store: ExportSource, sessionId: SessionId, session: Session | undefined, notes: string[]): FormalModel | undefined {
  const kept = session?.model?.formal ?? storedFormalModel(store, sessionId, session);
  if (kept !== undefined) return kept;
  if (session && Object.keys(session.contributions).length > 0) {
    const { graphs, skipped } = contributionGraphs(session);
    notes.push(
      session.model?.formalSummary
        ? "the formal model the model worker stored is not in the store; it was read afresh from the contributions"
        : "the session's log keeps no formal model (it predates checked plans); it was read afresh from the contributions",
    );
    for (const s of skipped) notes.push(`left out of the model (does not parse): ${s}`);
    return readFormalModel(graphs.flatMap((g) => g.quads));
  }
  const saved = store.artefacts(sessionId, "model-trig").at(-1);
  if (saved === undefined) return undefined;
  notes.push("the formal model was read from the saved model TriG");
  try {
    return readFormalModel(new Parser({ format: "application/trig" }).parse(saved.content));
  } catch (err) {
    throw new ExportError(`the saved model of session "${sessionId}" does not parse: ${(err as Error).message}`);
  }
}

/** The formal model the model worker stored for the session's analysis (its summary names it), if the store has it. */
function storedFormalModel(store: ExportSource, sessionId: SessionId, session: Session | undefined): FormalModel | undefined {
  const digest = session?.model?.formalSummary?.digest;
  const json = digest === undefined ? undefined : store.blobText(sessionId, digest);
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as FormalModel;
  } catch (err) {
    throw new ExportError(`the stored formal model of session "${sessionId}" does not parse: ${(err as Error).message}`);
  }
}

/** An agent's nick as part of a file name: safe characters only, and unique among the plans (case ignored). */
function uniqueFileName(nick: string, taken: Set<string>): string {
  const base = nick.replace(/[^A-Za-z0-9_-]/g, "_") || "agent";
  let name = base;
  for (let i = 2; taken.has(name.toLowerCase()); i += 1) name = `${base}-${i}`;
  taken.add(name.toLowerCase());
  return name;
}
