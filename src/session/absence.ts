/**
 * An absence of the coordinator that overlapped an open window (a restart, a takeover by
 * another instance, a lost connection): what agents said meanwhile may be lost, because a
 * room gives back only what it kept, and a stock server keeps no message without a body,
 * which is how most agents send their protocol messages. So the rule here, for the `absence`
 * input the shell gives after it is back:
 *
 *  - A contribution window (round 1 or a fix round) or a solution window (round 1 or a repair
 *    round) that was open during the absence is asked again, unless the room is known to keep
 *    agents' protocol messages (`kept`) and what it gave back reached the last message taken
 *    in before (`reachedBack`): the same round's request goes out again, marked as a repeat,
 *    to the agents the window still awaits (to everyone when none is known), and the window
 *    is extended by the time it was open while the coordinator was away (bounded by its own
 *    length, since that time can be no longer), counted from the later of its end and the
 *    return. Answers already in stand; a resubmission replaces an earlier one as always.
 *  - A Chair's debate is asked again only when what the room gave back did not reach back:
 *    a Chair's lines have a body, which every server keeps as history.
 *  - The same absence reported again (by another room of the session) changes nothing.
 *
 * Part of the pure session core: the repeat is an effect of a logged input, so a replay
 * repeats exactly what was repeated live.
 */
import { sessionWording as say } from "./report.js";
import { debateInvitation } from "./selection-report.js";
import { sameAgent } from "./identity.js";
import { knownMissing, missingAgents, missingProposers, setDeadline, type WindowKind } from "./windows.js";
import { nameTable } from "./name-table.js";
import { repairIssues } from "./verdicts.js";
import type { Step } from "./step-context.js";
import type { Session } from "./types.js";
import type { Input } from "./step-io.js";

type AbsenceInput = Extract<Input, { kind: "absence" }>;

/** Applies an absence to the session (see the module comment). */
export function onAbsence(session: Session, input: AbsenceInput, s: Step): void {
  const { from, to } = input;
  if (!(to > from) || (session.absentUntil !== undefined && from < session.absentUntil)) {
    s.log("debug", "absence already taken into account", { sessionId: session.id, from, to });
    return;
  }
  session.absentUntil = to;
  const deadline = session.deadline;
  if (session.phase === "selecting" && session.selection?.stage === "debating" && deadline?.kind === "selection") {
    if (!input.reachedBack) repeatDebate(session, from, to, deadline.at, s);
    return;
  }
  const kind = openWindowKind(session);
  if (!kind || (input.kept && input.reachedBack)) {
    s.log("debug", "absence overlapped no window that must be asked again", { sessionId: session.id, phase: session.phase, kept: input.kept, reachedBack: input.reachedBack });
    return;
  }
  const endsAt = session.windowEndsAt ?? deadline?.at ?? to;
  const opened = Math.max(from, session.windowOpenedAt ?? from);
  const lost = Math.min(to, endsAt) - opened;
  if (lost <= 0) {
    s.log("debug", "the window opened after the absence", { sessionId: session.id, kind });
    return;
  }
  const newEnd = Math.max(endsAt, to) + Math.min(lost, windowLength(session, kind));
  session.windowEndsAt = newEnd;
  setDeadline(session, kind, newEnd, s);
  const asked = kind === "contributions" ? repeatContributionRequest(session, s, newEnd - s.now) : repeatSolutionRequest(session, s, newEnd - s.now);
  s.log("info", "asked again after an absence", {
    sessionId: session.id,
    window: kind,
    round: kind === "contributions" ? session.round : (session.solutionRound ?? 1),
    absentMs: to - from,
    extendedMs: newEnd - endsAt,
    agents: asked ?? "everyone",
    why: input.kept ? "what the room gave back does not reach back to before the absence" : "the room is not known to keep agents' protocol messages",
  });
}

/** The window agents are answering in now, if any: collecting or reasoning with its deadline pending. */
function openWindowKind(session: Session): WindowKind | undefined {
  const kind = session.deadline?.kind;
  if (session.phase === "collecting" && kind === "contributions") return kind;
  if (session.phase === "reasoning" && kind === "reasoning") return kind;
  return undefined;
}

function windowLength(session: Session, kind: WindowKind): number {
  return kind === "contributions" ? session.settings.contributionTimeoutMs : session.settings.reasoningTimeoutMs;
}

/**
 * The current round's contribution request again, to the agents still awaited (everyone when
 * none is known); a fix round's issues go again to those of them asked to fix. Returns who
 * was asked (undefined: everyone).
 */
function repeatContributionRequest(session: Session, s: Step, openMs: number): string[] | undefined {
  const missing = missingAgents(session);
  const asked = missing.length > 0 ? missing : undefined;
  const fixRound = session.round > 1;
  const issues = fixRound ? nameTable(Object.entries(session.fixRequests).filter(([agent]) => asked === undefined || asked.some((a) => sameAgent(a, agent)))) : null;
  s.broadcast(
    {
      type: "ModelContributionRequest",
      sessionId: session.id,
      problemDescription: session.problem,
      round: session.round,
      requestedAgents: asked ?? session.requestedAgents,
      issues,
      repeat: true,
    },
    say.repeatBody(session, "contributions", openMs),
  );
  return asked;
}

/**
 * The current solution request again (with the model, and in a repair round its issues), to
 * the proposers still awaited by what is known of them (everyone when none is). Returns who
 * was asked (undefined: everyone).
 */
function repeatSolutionRequest(session: Session, s: Step, openMs: number): string[] | undefined {
  const known = knownMissing(session, "reasoning");
  const repairing = (session.solutionRound ?? 1) > 1 ? missingProposers(session) : [];
  const asked = known.length > 0 ? known : repairing.length > 0 ? repairing : undefined;
  const round = session.solutionRound ?? 1;
  const issues = round > 1 ? repairIssuesOf(session, asked) : undefined;
  s.broadcast(
    {
      type: "SolutionRequest",
      sessionId: session.id,
      model: session.model?.modelTurtle ?? "",
      ...(round > 1 ? { round } : {}),
      ...(asked !== undefined ? { requestedAgents: asked } : {}),
      ...(issues ? { issues } : {}),
      repeat: true,
    },
    say.repeatBody(session, "reasoning", openMs),
  );
  return asked;
}

/** A repair round's issues for the proposers asked again, as the round's request gave them. */
function repairIssuesOf(session: Session, asked: readonly string[] | undefined): Record<string, string[]> {
  return nameTable(Object.entries(repairIssues(session)).filter(([agent]) => asked === undefined || asked.some((a) => sameAgent(a, agent))));
}

/** The debate's invitation again, and its deadline extended as a window's is. */
function repeatDebate(session: Session, from: number, to: number, deadlineAt: number, s: Step): void {
  const opened = Math.max(from, session.startedAt);
  const lost = Math.min(to, deadlineAt) - opened;
  if (lost <= 0) return;
  const newEnd = Math.max(deadlineAt, to) + Math.min(lost, session.settings.debateTimeoutMs);
  const available = (session.selection?.room?.candidates ?? []).map((c) => c.nick);
  s.invite(debateInvitation(session.id, session.problem, available));
  setDeadline(session, "selection", newEnd, s);
  s.log("info", "asked again after an absence", { sessionId: session.id, window: "debate", absentMs: to - from, extendedMs: newEnd - deadlineAt, why: "what the room gave back does not reach back to before the absence" });
}
