/**
 * The planning bench's text: header, per-folder table, what was not solved and why, targets,
 * and the last line a script can read. Pure functions of the figures, tested as units.
 */
import type { FolderSummary, Unsolved } from "./summary.js";
import { max, median, total } from "./summary.js";
import type { PlannerName, RunSettings } from "./types.js";

/** Metric-FF's count within 10 s on this kind of machine, over the whole set (issue 30's target). */
export const METRIC_FF_TARGET = { all: 324, allOf: 470, classical: 205, classicalOf: 288, numeric: 119, numericOf: 182 };

const PLANNER_TITLE: Record<PlannerName, string> = {
  heuristic: "Heuristic planner (greedy best-first search, FF heuristic: src/planning/solver/heuristic)",
  smt: "SMT planner (Z3 bounded planning: src/planning/solver)",
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** 30000 → "30 s", 2500 → "2.5 s". */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

function figure(value: number | null, digits: number): string {
  return value === null ? "—" : Number(value.toFixed(digits)).toString();
}

function pair(values: readonly number[], digits: number, scale = 1): string {
  const m = median(values);
  const x = max(values);
  return m === null || x === null ? "—" : `${figure(m / scale, digits)} / ${figure(x / scale, digits)}`;
}

export function headerLines(settings: RunSettings, problems: number, folders: number, numeric: number): string[] {
  const kill = `a child is killed ${formatSeconds(settings.graceMs)} past its limit, heap ${settings.heapMb} MiB each`;
  const smt = settings.smtTimeoutMs === null ? "SMT planner not run (--no-smt)" : `SMT planner ${formatSeconds(settings.smtTimeoutMs)} per problem, horizon up to ${settings.maxSteps} steps`;
  const selection = [settings.only !== null ? `--only ${settings.only}` : "", settings.limit !== null ? `--limit ${settings.limit}` : ""].filter((s) => s !== "");
  return [
    `Planning on the IPC benchmarks in ${settings.dataDir}: ${plural(problems, "problem")} in ${plural(folders, "folder")} (classical ${problems - numeric}, numeric ${numeric})${selection.length > 0 ? `, selected by ${selection.join(" ")}` : ""}`,
    `commit ${settings.commit}, ${settings.date}, node ${settings.node}, ${settings.cpus} cpus, ${settings.jobs} problems at a time, each in a child process`,
    `limits: heuristic planner ${formatSeconds(settings.timeoutMs)} per problem; ${smt}; ${kill}`,
  ];
}

const COLUMNS = ["folder", "problems", "imported", "refused", "solved", "invalid", "time s (med / max)", "length (med / max)", "length ÷ best known", "ground actions (med / max)"] as const;

function cells(r: FolderSummary): string[] {
  const ratio = r.ratios.length === 0 ? "—" : `${figure(median(r.ratios), 2)}x (${r.ratios.length})`;
  return [r.folder, String(r.problems), String(r.imported), String(r.refused), String(r.solved), String(r.invalid), pair(r.times, 2, 1000), pair(r.lengths, 1), ratio, pair(r.grounded, 0)];
}

/** One row per folder, then classical, numeric and all; times and lengths are of solved problems. */
export function tableLines(planner: PlannerName, rows: readonly FolderSummary[]): string[] {
  const body = [...rows.map(cells), ...totals(rows).map(cells)];
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (values: readonly string[]): string => values.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join("  ").trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [`${PLANNER_TITLE[planner]}:`, line(COLUMNS), rule, ...body.slice(0, rows.length).map(line), rule, ...body.slice(rows.length).map(line)];
}

export function totals(rows: readonly FolderSummary[]): [FolderSummary, FolderSummary, FolderSummary] {
  return [total("classical", rows.filter((r) => !r.numeric)), total("numeric", rows.filter((r) => r.numeric)), total("all", rows)];
}

function groupedLines(rows: readonly FolderSummary[], keep: (u: Unsolved) => boolean, namesShown: number): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    const groups = new Map<string, Unsolved[]>();
    for (const u of r.unsolved.filter(keep)) {
      const key = u.status === "refused" ? u.reason : `${u.status}: ${u.reason}`;
      groups.set(key, [...(groups.get(key) ?? []), u]);
    }
    for (const [key, list] of groups) {
      const names = list.slice(0, namesShown).map((u) => u.file.replace(/\.pddl$/, ""));
      const more = list.length > namesShown ? ` and ${list.length - namesShown} more` : "";
      lines.push(`  ${r.folder}: ${list.length} ${key} [${names.join(", ")}${more}]`);
    }
  }
  return lines;
}

/** The problems the import refused, per folder, grouped by the construct and reason: the same for every planner, so said once. */
export function refusalLines(rows: readonly FolderSummary[], namesShown = 8): string[] {
  const lines = groupedLines(rows, (u) => u.status === "refused", namesShown);
  return lines.length === 0 ? [] : ["Refused on import (where, the construct, why):", ...lines];
}

/** The problems imported but not solved, per folder, grouped by the same status and reason. */
export function unsolvedLines(planner: PlannerName, rows: readonly FolderSummary[], namesShown = 8): string[] {
  const lines = groupedLines(rows, (u) => u.status !== "refused", namesShown);
  return lines.length === 0 ? [] : [`Not solved by the ${planner} planner (no plan, gave up, killed, crashed, invalid, late):`, ...lines];
}

function counts(all: FolderSummary, classical: FolderSummary, numeric: FolderSummary): string {
  return `${all.solved} of ${all.problems} (classical ${classical.solved} of ${classical.problems}, numeric ${numeric.solved} of ${numeric.problems})`;
}

export function targetLines(heuristic: readonly FolderSummary[], smt: readonly FolderSummary[] | null, timeoutMs: number): string[] {
  const [c, n, all] = totals(heuristic);
  const t = METRIC_FF_TARGET;
  const whole = all.problems === t.allOf ? "" : ` — this run covers ${all.problems} of the ${t.allOf} problems`;
  const lines = [
    "targets:",
    "  target: all 8 bench problems solved (see bench/verification.ts) — measured there (`node dist/bench/verification.js`), not here",
    `  target (Metric-FF within 10 s on this machine kind): ${t.all} of ${t.allOf} (classical ${t.classical} of ${t.classicalOf}, numeric ${t.numeric} of ${t.numericOf})${whole}`,
    `  heuristic planner within ${formatSeconds(timeoutMs)}: ${counts(all, c, n)}; invalid plans proposed: ${all.invalid} (target 0)`,
  ];
  if (smt !== null) {
    const [sc, sn, sall] = totals(smt);
    lines.push(`  SMT planner: ${counts(sall, sc, sn)}; invalid plans proposed: ${sall.invalid} (target 0)`);
  }
  return lines;
}

/** The alarm for plans the simulator did not call valid: empty when there are none. */
export function invalidLines(planner: PlannerName, rows: readonly FolderSummary[]): string[] {
  const bad = rows.flatMap((r) => r.unsolved.filter((u) => u.status === "invalid-plan").map((u) => `  ${r.folder}/${u.file}: ${u.reason}`));
  return bad.length === 0 ? [] : [`INVALID PLANS PROPOSED by the ${planner} planner: ${bad.length} (target 0)`, ...bad];
}

/** The plan check checked on real plans (round-trip.ts), one line under a planner's table; none when no run reported it. */
export function planCheckLines(rows: readonly FolderSummary[]): string[] {
  const all = total("all", rows);
  const f = all.planCheck;
  if (f.problems === 0) return [];
  const n = (v: number): string => v.toLocaleString("en-US");
  return [`plan check on real plans: ${n(f.checked)} plans (found plans and their mutations), ${n(f.invalidMutants)} mutations rejected, round trip through PDDL agreed on ${n(f.agreed)} of ${n(f.checked)}`];
}

/** The alarm for plans on which the imported model and its round trip through PDDL disagree: empty when there are none. */
export function planCheckDisagreementLines(planner: PlannerName, rows: readonly FolderSummary[]): string[] {
  const bad = rows.flatMap((r) =>
    r.planCheckDisagreements.map((d) => {
      const at = d.step === undefined ? "" : `; first differing step ${d.step}${d.stepText !== undefined ? `: ${d.stepText}` : d.step === 0 ? " (the initial state)" : " (the goal)"}`;
      return `  ${r.folder}/${d.file} (${d.plan}): ${d.reason}${at}`;
    }),
  );
  return bad.length === 0 ? [] : [`PLAN CHECK DISAGREES WITH ITS ROUND TRIP THROUGH PDDL for the ${planner} planner: ${bad.length} (target 0)`, ...bad];
}

/** The last line of the output, from the heuristic planner's figures. */
export function finalLine(heuristic: readonly FolderSummary[], timeoutMs: number): string {
  const [c, n, all] = totals(heuristic);
  return `planning: ${all.solved} of ${all.problems} solved within ${formatSeconds(timeoutMs)} (classical ${c.solved} of ${c.problems}, numeric ${n.solved} of ${n.problems}); invalid plans proposed: ${all.invalid}`;
}

/** Parses a final line back (for the test and for scripts that read the bench's output). */
export function parseFinalLine(line: string): { solved: number; problems: number; seconds: number; classical: [number, number]; numeric: [number, number]; invalid: number } | null {
  const m = /^planning: (\d+) of (\d+) solved within ([\d.]+) s \(classical (\d+) of (\d+), numeric (\d+) of (\d+)\); invalid plans proposed: (\d+)$/.exec(line);
  if (!m) return null;
  const n = m.slice(1).map(Number) as [number, number, number, number, number, number, number, number];
  return { solved: n[0], problems: n[1], seconds: n[2], classical: [n[3], n[4]], numeric: [n[5], n[6]], invalid: n[7] };
}
