/**
 * A session's history as people read it, derived from the host's steps and nothing else:
 * one pure function from one `SessionStep` to the entries it adds. Live sessions feed it
 * from the host's stream; archived ones from their logged inputs stepped again by the core
 * (./session-steps.ts), so both views come from the same place.
 */
import type { Verification } from "../formal/index.js";
import { describeCounts } from "../session/report.js";
import { clip, names, seconds } from "../base/text.js";
import type { Session, ValidationFinding } from "../session/types.js";
import type { Input } from "../session/step-io.js";
import type { SessionStep } from "../host/session-host.js";

export type TimelineKind =
  | "request"
  | "selection"
  | "contribution-request"
  | "fix-round"
  | "contribution"
  | "contribution-refused"
  | "validation-started"
  | "validation"
  | "solution-request"
  | "repair-round"
  | "proposal"
  | "deadline"
  | "cancel"
  | "identity"
  | "absence"
  | "complete"
  | "ignored";

export interface TimelineEntry {
  at: number;
  /** The input of the step that made the entry (one step may make several). */
  input: Input["kind"];
  kind: TimelineKind;
  /** Who acted or was heard, when someone was. */
  agent?: string;
  round?: number;
  /** One line for people. */
  text: string;
  /** Further lines: issues of a fix round, a proposal's plan, … (bounded). */
  details: string[];
  /** A validation round's findings. */
  findings?: ValidationFinding[];
  /** A proposal's verdict from the coordinator's own check. */
  verification?: Verification;
}

/** Lines of detail kept per entry; the export has the rest. */
const MAX_DETAILS = 20;
const LINE = 300;

function entry(step: SessionStep, kind: TimelineKind, text: string, extra: Partial<TimelineEntry> = {}): TimelineEntry {
  return { at: step.at, input: step.input.kind, kind, text: clip(text, LINE), details: [], ...extra };
}

function bounded(lines: readonly string[]): string[] {
  const kept = lines.slice(0, MAX_DETAILS).map((l) => clip(l, LINE));
  if (lines.length > MAX_DETAILS) kept.push(`… and ${lines.length - MAX_DETAILS} more`);
  return kept;
}

/** The entries one step adds: what its input was, then what the core announced because of it. */
export function timelineOf(step: SessionStep): TimelineEntry[] {
  return [...fromInput(step), ...fromBroadcasts(step)];
}

function fromInput(step: SessionStep): TimelineEntry[] {
  const { input, before, after } = step;
  if (!after) return [entry(step, "ignored", `${input.kind} for a session the coordinator does not know`)];
  switch (input.kind) {
    case "start":
      return [entry(step, "request", `${input.by.nick} started the session: ${input.problem}`, { agent: input.by.nick })];
    case "debate":
      return [entry(step, "selection", `debate: ${input.line.kind}${"text" in input.line ? `: ${input.line.text}` : ""}`, { agent: input.from.nick })];
    case "departure":
      return [entry(step, "selection", `${input.who.nick} left the room while agents were being chosen`, { agent: input.who.nick })];
    case "choice":
      return [entry(step, "selection", `${input.by.nick} chose ${input.choice === "all" ? "every option" : `options ${input.choice.join(", ")}`}`, { agent: input.by.nick })];
    case "approval":
      return [entry(step, "selection", `${input.by.nick} ${input.approved ? "approved" : "rejected"} the chosen agents`, { agent: input.by.nick })];
    case "contribution":
      return [contributionEntry(step, input, after)];
    case "proposal":
      return [proposalEntry(step, input, after)];
    case "analysis-started":
      return [entry(step, "validation-started", `a model worker began validating round ${after.round}`)];
    case "analysis":
      return [validationEntry(step, before, after)];
    case "deadline":
      return [entry(step, "deadline", before?.deadline ? `the ${before.deadline.kind} deadline passed` : "a deadline passed")];
    case "cancel":
      return [entry(step, "cancel", `${input.by.nick} cancelled the session`, { agent: input.by.nick })];
    case "identity-basis":
      return [entry(step, "identity", `the room now identifies occupants by ${input.basis === "jid" ? "real JID" : input.basis === "occupant" ? "occupant id" : "nick"}`)];
    case "absence":
      return [
        entry(
          step,
          "absence",
          `the coordinator was away for ${seconds(Math.max(0, input.to - input.from))}${input.kept ? "" : "; the room is not known to keep agents' protocol messages"}${input.reachedBack ? "" : "; what the room gave back did not reach back to before it"}`,
        ),
      ];
  }
}

function contributionEntry(step: SessionStep, input: Extract<Input, { kind: "contribution" }>, after: Session): TimelineEntry {
  const agent = input.from.nick;
  const taken = Object.values(after.contributions).find((c) => c.receivedAt === step.at && c.agent === agent);
  if (taken) {
    const parts = input.parts ? `, in ${input.parts.n} parts` : "";
    return entry(step, "contribution", `${agent} contributed ${describeCounts(taken.counts)} (${taken.tripleCount} triples${parts})`, { agent, round: taken.round });
  }
  const late = after.late.find((c) => c.receivedAt === step.at && c.agent === agent);
  if (late) return entry(step, "contribution-refused", `${agent} contributed after the model was closed: kept, not merged`, { agent, round: late.round });
  const rejected = after.rejected.find((r) => r.receivedAt === step.at && r.agent === agent);
  const reason = rejected?.reason ?? (input.check.ok ? "not taken in this phase" : input.check.message);
  return entry(step, "contribution-refused", `${agent}'s contribution was refused: ${reason}`, { agent, round: rejected?.round ?? after.round });
}

function proposalEntry(step: SessionStep, input: Extract<Input, { kind: "proposal" }>, after: Session): TimelineEntry {
  const agent = input.from.nick;
  const proposal = after.proposals.find((p) => p.receivedAt === step.at && p.agent === agent);
  if (!proposal) return entry(step, "proposal", `${agent}'s proposal was not taken (no solution window open)`, { agent });
  const plan = Array.isArray(proposal.solution.plan) ? proposal.solution.plan.map(String) : [];
  const verdict = proposal.verification ? `${proposal.verification.verdict}: ${proposal.verification.reason}` : "not checked";
  return entry(step, "proposal", `${agent} proposed ${plan.length === 1 ? "a 1-step plan" : plan.length > 0 ? `a ${plan.length}-step plan` : "no plan"} (claims ${proposal.solution.success ? "success" : "failure"}); verdict ${verdict}`, {
    agent,
    round: proposal.round ?? 1,
    details: bounded(plan),
    ...(proposal.verification ? { verification: proposal.verification } : {}),
  });
}

function validationEntry(step: SessionStep, before: Session | undefined, after: Session): TimelineEntry {
  const record = after.validations.length > (before?.validations.length ?? 0) ? after.validations.at(-1) : undefined;
  if (!record) return entry(step, "validation", "a validation of an older version of the model was set aside");
  if (!record.outcome.ok) return entry(step, "validation", `validation of round ${record.round} failed: ${record.outcome.error}`, { round: record.round });
  const a = record.outcome.analysis;
  const verdict = a.conforms ? "the model conforms" : `${a.violations} violation${a.violations === 1 ? "" : "s"}`;
  return entry(step, "validation", `validation of round ${record.round}: ${verdict}, ${a.warnings} warning${a.warnings === 1 ? "" : "s"} (${a.tripleCount} triples)`, {
    round: record.round,
    findings: a.findings,
  });
}

function issueLines(issues: Record<string, string[]> | null | undefined): string[] {
  return Object.entries(issues ?? {}).flatMap(([agent, list]) => list.map((issue) => `${agent}: ${issue}`));
}

function fromBroadcasts(step: SessionStep): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const effect of step.effects) {
    if (effect.kind !== "broadcast") continue;
    const m = effect.message;
    if (m.type === "ModelContributionRequest") {
      const who = m.requestedAgents ? names(m.requestedAgents) : "every agent";
      out.push(
        m.repeat
          ? entry(step, m.round > 1 ? "fix-round" : "contribution-request", `${m.round > 1 ? `fix round ${m.round - 1}` : "contributions"} asked again of ${who} after the absence`, { round: m.round, details: bounded(issueLines(m.issues)) })
          : m.round > 1
          ? entry(step, "fix-round", `fix round ${m.round - 1}: ${who} asked to fix the model`, { round: m.round, details: bounded(issueLines(m.issues)) })
          : entry(step, "contribution-request", `contributions requested from ${who}`, { round: m.round }),
      );
    } else if (m.type === "SolutionRequest") {
      const round = m.round ?? 1;
      out.push(
        m.repeat
          ? entry(step, round > 1 ? "repair-round" : "solution-request", `solutions asked again of ${m.requestedAgents ? names(m.requestedAgents) : "every agent"} after the absence`, { round, details: bounded(issueLines(m.issues)) })
          : round > 1
          ? entry(step, "repair-round", `repair round ${round - 1}: ${names(m.requestedAgents ?? [])} asked to repair their plans`, { round, details: bounded(issueLines(m.issues)) })
          : entry(step, "solution-request", "the sound model went out with a request for solutions", { round }),
      );
    } else if (m.type === "SessionComplete") {
      out.push(entry(step, "complete", `session ${m.status}${m.reason ? `: ${m.reason}` : ""}`, { details: bounded(m.solutions.map((p) => `${p.agent}: ${p.verification?.verdict ?? "not checked"}`)) }));
    }
  }
  return out;
}
