/**
 * The answer to `mfr-status <id>` as a person reads it in a chat client: for a finished
 * session its summary (report.ts) with the violations that ended it; for a running one, what
 * it is doing, its problem, who contributed, and what it waits for, with times as "in 5 s"
 * (a client shows local time, the coordinator knows UTC; a delay reads the same anywhere) and
 * why a window may close before its timeout. A pure function of the session and `now`.
 */
import { contributors, describeCounts, findingLine, phaseWords } from "./report.js";
import { ago, clip, clipNear, inTime, inline, names, plural, seconds } from "../base/text.js";
import { knownMissing, missingAgents, missingProposers } from "./windows.js";
import type { Session } from "./types.js";

/** How many violations `mfr-status <id>` lists; the room line names a few and points here for the rest. */
const STATUS_VIOLATIONS = 10;

/** Answer to `mfr-status <id>`: for a finished session, its full summary. */
export function sessionStatus(s: Session, now: number): string {
  if (s.completion?.summary) return [s.completion.summary, ...violationLines(s)].join("\n");
  const lines = [`Session ${s.id}: ${phaseWords(s)}, started by ${s.startedBy.nick} ${ago(s.startedAt, now)}.`, `Problem: ${clipNear(s.problem, 300)}`];
  const contribs = contributors(s);
  lines.push(`Contributors: ${contribs.length ? contribs.map((c) => `${c.agent} (${describeCounts(c.counts)})`).join("; ") : "none yet"}.`);
  const last = s.validations[s.validations.length - 1];
  lines.push(
    last
      ? last.outcome.ok
        ? `Validation (round ${last.round}): ${last.outcome.analysis.conforms ? "sound" : "not sound"}, ${plural(last.outcome.analysis.violations, "violation")}, ${plural(last.outcome.analysis.warnings, "warning")}.`
        : `Validation (round ${last.round}): could not finish (${inline(clip(last.outcome.error, 100))}).`
      : "Validation: not yet.",
  );
  lines.push(...violationLines(s));
  if (s.phase === "reasoning") lines.push(`Proposals: ${s.proposals.length} so far.`);
  const waiting = waitingLine(s, now);
  if (waiting) lines.push(waiting);
  return lines.join("\n");
}

/** The violations of the last validation, when it failed: what the room line's "and N more" points to, with the shapes' full text. */
function violationLines(s: Session): string[] {
  const last = s.validations[s.validations.length - 1];
  if (!last?.outcome.ok || last.outcome.analysis.conforms) return [];
  const violations = last.outcome.analysis.findings.filter((f) => f.severity === "Violation");
  const shown = violations.slice(0, STATUS_VIOLATIONS);
  if (shown.length === 0) return [];
  const rest = violations.length - shown.length;
  return [
    `Violations (round ${last.round}):`,
    ...shown.map((f) => `  ${clip(findingLine(s, f).replace(/^Violation: /, ""), 240)}`),
    ...(rest > 0 ? [`  … and ${rest} more.`] : []),
  ];
}

/**
 * What a running session waits for, from whom, when its window closes at the latest, and
 * why it may close earlier: everyone awaited has answered, or (when nobody still awaited is
 * known) the quiet period after the latest answer.
 */
function waitingLine(s: Session, now: number): string | null {
  const deadline = s.deadline;
  if (!deadline) return s.phase === "validating" ? "Waiting for: a free model worker to check the model." : null;
  const quiet = s.settings.quietPeriodMs;
  const end = s.windowEndsAt ?? deadline.at;
  const latest = `at the latest ${inTime(end, now)}`;
  switch (s.phase) {
    case "collecting":
    case "reasoning": {
      const contributions = s.phase === "collecting";
      const what = contributions ? "contributions" : "solutions";
      const answered = contributions ? Object.values(s.contributions).some((c) => c.round === s.round) : s.proposals.some((p) => (p.round ?? 1) === (s.solutionRound ?? 1));
      const known = knownMissing(s, deadline.kind === "reasoning" ? "reasoning" : "contributions");
      const missing = contributions ? missingAgents(s) : missingProposers(s);
      if (known.length > 0) return `Waiting for: ${what} from ${names(known)}; the window closes when they have answered, ${latest}.`;
      if (deadline.at < end) {
        return `Waiting for: more ${what}; the window closes ${inTime(deadline.at, now)}, early: ${quiet ? `${seconds(quiet)} without a new answer ends it, since nobody else it waits for is known` : "everyone else has answered"} (${latest}).`;
      }
      const from = missing.length > 0 ? `${what} from ${names(missing)}` : `${what} from any agent`;
      return `Waiting for: ${from}; the window closes ${latest}${quiet && !answered ? `, or ${seconds(quiet)} after the first answer when no new one comes` : ""}.`;
    }
    case "validating":
      return `Waiting for: the model check, ${latest}.`;
    case "selecting":
      return `Waiting for: ${phaseWords(s)}, ${inTime(deadline.at, now)} at the latest.`;
    case "complete":
      return null;
  }
}
