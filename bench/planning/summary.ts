/**
 * From per-problem results to per-folder figures: pure, so the test can feed it made-up
 * results (a refusal, a crash, an invalid plan) without any planner.
 */
import type { PddlRefusal } from "../../src/planning/pddl-import/index.js";
import type { PlannerName, PlannerRun, ProblemResult, RoundTripDisagreement } from "./types.js";

/** What became of one planner on one problem; only "solved" counts as solved. */
export type RunStatus = "solved" | "late" | "invalid-plan" | "no-plan" | "gave-up" | "cannot-help" | "refused" | "killed" | "crashed" | "not-run";

export interface Classified {
  status: RunStatus;
  reason: string;
  /** Search time, for a plan. */
  ms?: number;
  length?: number;
}

export interface Unsolved {
  file: string;
  status: RunStatus;
  reason: string;
}

export interface FolderSummary {
  folder: string;
  numeric: boolean;
  problems: number;
  imported: number;
  refused: number;
  solved: number;
  invalid: number;
  /** Search times (ms) and lengths of the solved problems. */
  times: number[];
  lengths: number[];
  /** Plan length ÷ best known length, for solved problems that give one. */
  ratios: number[];
  /** Ground actions after grounding, for every problem whose search reported them. */
  grounded: number[];
  /** Every problem imported but not solved, and every refusal, with its reason. */
  unsolved: Unsolved[];
  /** The plan check against its round trip through PDDL, summed over the folder's problems. */
  planCheck: PlanCheckFigures;
  /** Every plan on which the two disagreed, its problem with it. */
  planCheckDisagreements: (RoundTripDisagreement & { file: string })[];
}

export interface PlanCheckFigures {
  /** Problems whose run reported the check. */
  problems: number;
  checked: number;
  agreed: number;
  invalidMutants: number;
}

export function formatRefusal(r: PddlRefusal): string {
  return `${r.file} ${r.line}:${r.column} \`${r.construct}\`: ${r.message}`;
}

export function classify(run: PlannerRun | undefined, timeoutMs: number): Classified {
  if (run === undefined) return { status: "not-run", reason: "not run" };
  if (run.import?.ok === false) return { status: "refused", reason: formatRefusal(run.import.refusal) };
  const search = run.search;
  if (search?.plan !== undefined) {
    const length = search.plan.length;
    // A plan is solved only once the simulator calls it valid; a check that never ended is no "valid".
    if (run.check === undefined) return { status: "invalid-plan", reason: `a plan of ${length} steps whose check did not end: ${run.ended?.reason ?? "no verdict"}`, length };
    if (run.check.verdict !== "valid") return { status: "invalid-plan", reason: `${run.check.verdict}${run.check.step !== undefined ? ` at step ${run.check.step}` : ""}: ${run.check.reason}`, length };
    if (search.ms > timeoutMs) return { status: "late", reason: `a valid plan after ${(search.ms / 1000).toFixed(1)} s, past the limit`, ms: search.ms, length };
    return { status: "solved", reason: search.reason, ms: search.ms, length };
  }
  if (run.ended !== undefined) return { status: run.ended.how, reason: `${run.ended.reason} (in the ${run.ended.phase})` };
  if (search !== undefined) return { status: search.kind === "plan" ? "invalid-plan" : search.kind, reason: search.reason };
  return { status: "crashed", reason: "no report from the worker" };
}

function runOf(p: ProblemResult, planner: PlannerName): PlannerRun | undefined {
  return planner === "heuristic" ? p.heuristic : p.smt;
}

/** The problem's import as either planner's child read it (both read the same files). */
function importOutcome(p: ProblemResult): "ok" | "refused" | "unknown" {
  const reports = [p.heuristic.import, p.smt?.import];
  if (reports.some((r) => r?.ok === true)) return "ok";
  if (reports.some((r) => r?.ok === false)) return "refused";
  return "unknown";
}

export function summarise(results: readonly ProblemResult[], planner: PlannerName, timeoutMs: number): FolderSummary[] {
  const byFolder = new Map<string, FolderSummary>();
  for (const p of results) {
    let s = byFolder.get(p.folder);
    if (s === undefined) {
      s = { folder: p.folder, numeric: p.numeric, problems: 0, imported: 0, refused: 0, solved: 0, invalid: 0, times: [], lengths: [], ratios: [], grounded: [], unsolved: [], planCheck: { problems: 0, checked: 0, agreed: 0, invalidMutants: 0 }, planCheckDisagreements: [] };
      byFolder.set(p.folder, s);
    }
    s.problems += 1;
    const imported = importOutcome(p);
    if (imported === "ok") s.imported += 1;
    if (imported === "refused") s.refused += 1;
    // A problem refused on import is not run by the SMT planner: it reads as the refusal.
    const c = classify(runOf(p, planner) ?? (imported === "refused" ? p.heuristic : undefined), timeoutMs);
    if (c.status === "invalid-plan") s.invalid += 1;
    const roundTrip = runOf(p, planner)?.roundTrip;
    if (roundTrip !== undefined) {
      s.planCheck.problems += 1;
      s.planCheck.checked += roundTrip.checked;
      s.planCheck.agreed += roundTrip.agreed;
      s.planCheck.invalidMutants += roundTrip.invalidMutants;
      s.planCheckDisagreements.push(...roundTrip.disagreements.map((d) => ({ ...d, file: p.file })));
    }
    const groundActions = runOf(p, planner)?.search?.stats?.["groundActions"];
    if (groundActions !== undefined) s.grounded.push(groundActions);
    if (c.status === "solved") {
      s.solved += 1;
      s.times.push(c.ms ?? 0);
      s.lengths.push(c.length ?? 0);
      if (p.bestKnown !== null && p.bestKnown > 0) s.ratios.push((c.length ?? 0) / p.bestKnown);
    } else {
      s.unsolved.push({ file: p.file, status: c.status, reason: c.reason });
    }
  }
  return [...byFolder.values()];
}

/** The sum of several folders' figures (a "classical", "numeric" or "all" line). */
export function total(label: string, rows: readonly FolderSummary[]): FolderSummary {
  return {
    folder: label,
    numeric: rows.every((r) => r.numeric) && rows.length > 0,
    problems: rows.reduce((n, r) => n + r.problems, 0),
    imported: rows.reduce((n, r) => n + r.imported, 0),
    refused: rows.reduce((n, r) => n + r.refused, 0),
    solved: rows.reduce((n, r) => n + r.solved, 0),
    invalid: rows.reduce((n, r) => n + r.invalid, 0),
    times: rows.flatMap((r) => r.times),
    lengths: rows.flatMap((r) => r.lengths),
    ratios: rows.flatMap((r) => r.ratios),
    grounded: rows.flatMap((r) => r.grounded),
    unsolved: rows.flatMap((r) => r.unsolved),
    planCheck: {
      problems: rows.reduce((n, r) => n + r.planCheck.problems, 0),
      checked: rows.reduce((n, r) => n + r.planCheck.checked, 0),
      agreed: rows.reduce((n, r) => n + r.planCheck.agreed, 0),
      invalidMutants: rows.reduce((n, r) => n + r.planCheck.invalidMutants, 0),
    },
    planCheckDisagreements: rows.flatMap((r) => r.planCheckDisagreements),
  };
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function max(values: readonly number[]): number | null {
  return values.length === 0 ? null : Math.max(...values);
}
