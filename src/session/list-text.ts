/**
 * The answer to `mfr-list` as a person reads it in a chat client: one session per line,
 * newest first, in aligned columns (a terminal client shows a monospace font), and for each
 * what tells it apart from the others on the same problem: its status, when and by whom it
 * was started, and how it came out. A pure function of the sessions and `now`.
 */
import { rankedProposals } from "./ranking.js";
import { ago, clip, clipNear, inline } from "../base/text.js";
import type { Session } from "./types.js";

/** One row of `mfr-list`. */
export interface ListedSession {
  id: string;
  /** The completion status, or what a running session is doing ("collecting", "fix round 1", …). */
  status: string;
  startedAt: number;
  /** Who started it; undefined for an archived session known by its summary only. */
  by: string | undefined;
  /** How it came out, in a few words; "" while it runs. */
  outcome: string;
  problem: string;
}

/** A session kept whole (live, or archived with its final state) as a row. */
export function listedOf(s: Session): ListedSession {
  return { id: s.id, status: statusOf(s), startedAt: s.startedAt, by: s.startedBy.nick, outcome: outcomeOf(s), problem: s.problem };
}

/** An archived session of which only the summary is at hand. */
export function listedOfSummary(a: { id: string; problem: string; status: string; startedAt: number }): ListedSession {
  return { id: a.id, status: a.status, startedAt: a.startedAt, by: undefined, outcome: "", problem: a.problem };
}

const OUTCOME_MAX = 48;
const PROBLEM_MAX = 40;

/** The rows as a table: a header line, then one aligned line per session. */
export function sessionsTable(rows: readonly ListedSession[], now: number): string {
  const cells = rows.map((r) => [r.id, r.status, ago(r.startedAt, now), r.by ? `by ${r.by}` : "", clip(r.outcome, OUTCOME_MAX), `"${clipNear(r.problem.replace(/[.!?…]+$/, ""), PROBLEM_MAX)}"`]);
  const widths = [0, 1, 2, 3, 4].map((c) => Math.max(...cells.map((row) => [...(row[c] ?? "")].length)));
  return cells
    .map((row) =>
      row
        .map((cell, c) => (c < widths.length ? padEnd(cell, widths[c] ?? 0) : cell))
        .join("  ")
        .replace(/\s+$/, ""),
    )
    .join("\n");
}

/** Pads by characters as a terminal counts them (code points), not UTF-16 units. */
function padEnd(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - [...text].length));
}

function statusOf(s: Session): string {
  switch (s.phase) {
    case "complete":
      return s.completion?.status ?? "complete";
    case "selecting":
      return "choosing agents";
    case "collecting":
      return s.round > 1 ? `fix round ${s.round - 1}` : "collecting";
    case "validating":
      return "validating";
    case "reasoning":
      return (s.solutionRound ?? 1) > 1 ? `repair round ${(s.solutionRound ?? 1) - 1}` : "reasoning";
  }
}

/** "planner, 9 steps, checked valid" / "no valid plan" / the reason's first words; "" while it runs. */
function outcomeOf(s: Session): string {
  const c = s.completion;
  if (!c) return "";
  const best = rankedProposals(s)[0];
  if (c.status === "solved" && best) {
    const steps = best.solution.plan?.length;
    const checked = best.verification?.verdict === "valid" ? "checked valid" : "not checked";
    return `${best.agent}${steps !== undefined ? `, ${steps === 1 ? "1 step" : `${steps} steps`}` : ""}, ${checked}`;
  }
  return c.reason ? inline(firstSentence(c.reason)) : "";
}

function firstSentence(text: string): string {
  const end = text.search(/[.!?](\s|$)/);
  return end > 0 ? text.slice(0, end) : text;
}
