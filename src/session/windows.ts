/**
 * When the contribution and solution windows close: at their timeout at the latest; early
 * once everyone expected has answered; and early after a quiet period without a new answer,
 * counted from the first answer, but only while nobody the coordinator expects is still
 * missing (settings.awaitExpectedAgents): an agent known to answer is awaited up to the
 * timeout however slow it is, and the quiet period keeps a window from waiting its full
 * timeout for agents that are not known to exist.
 */
import { sameAgent } from "./identity.js";
import type { Step } from "./step-context.js";
import type { DeadlineKind, Session } from "./types.js";

/** The session's one pending deadline (the shell arms a timer for it). */
export function setDeadline(session: Session, kind: DeadlineKind, at: number, s: Step): void {
  session.deadline = { kind, at };
  s.emit({ kind: "schedule", sessionId: session.id, at });
}

/** The session waits without a deadline (the shell cancels the timer). */
export function clearDeadline(session: Session, s: Step): void {
  if (session.deadline === null) return;
  session.deadline = null;
  s.emit({ kind: "unschedule", sessionId: session.id });
}

/** The two windows in which agents answer: contributions (and fix rounds), and solutions (and repair rounds). */
export type WindowKind = "contributions" | "reasoning";

/** Opens a contribution or solution window that times out `timeoutMs` from now. */
export function openWindow(session: Session, kind: WindowKind, timeoutMs: number, s: Step): void {
  session.windowOpenedAt = s.now;
  session.windowEndsAt = s.now + timeoutMs;
  setDeadline(session, kind, session.windowEndsAt, s);
}

/**
 * An answer arrived in the open window: a quiet period from now closes it, unless its timeout
 * comes first, or (settings.awaitExpectedAgents) an agent the window awaits has not answered.
 */
export function answerArrived(session: Session, s: Step): void {
  const quiet = session.settings.quietPeriodMs;
  const deadline = session.deadline;
  if (!quiet || !deadline || (deadline.kind !== "contributions" && deadline.kind !== "reasoning")) return;
  if (session.settings.awaitExpectedAgents && knownMissing(session, deadline.kind).length > 0) return;
  const at = Math.min(session.windowEndsAt ?? deadline.at, s.now + quiet);
  if (at !== deadline.at) setDeadline(session, deadline.kind, at, s);
}

/**
 * The agents a window awaits by what the coordinator knows of them and that have not answered
 * in it: for contributions, the expected agents (chosen, or shown to be agents by a profile,
 * Lingue disco features or protocol traffic); for solutions, the proposers known to answer
 * solution requests and the planners (in a repair round, the proposers asked to repair).
 * Contributors merely presumed to propose (nobody has proposed before) are awaited by
 * "everyone answered" but do not hold off the quiet period.
 */
export function knownMissing(session: Session, kind: WindowKind): string[] {
  if (kind === "contributions") return missingAgents(session);
  const missing = missingProposers(session);
  // A repair round awaits the proposers of invalid plans: each has answered in this session.
  if ((session.solutionRound ?? 1) > 1) return missing;
  const known = [...(session.expectedProposers ?? []), ...(session.expectedSolvers ?? [])];
  return missing.filter((a) => known.some((k) => sameAgent(k, a)));
}

/** Why a window closed, for the operator's log. */
export type WindowCloser = "everyone answered" | "quiet period" | "timeout";

/**
 * A window closed: one info line with the session id (operators follow a session through its
 * windows in the log without reading the room), and the window kept as the session's last
 * closed one, so a late answer can be told which window it missed. A deadline closes it by
 * its timeout when it is the window's upper bound, otherwise by the quiet period.
 */
export function windowClosed(session: Session, kind: WindowKind, closedBy: WindowCloser, s: Step): void {
  session.closedWindows = {
    ...session.closedWindows,
    [kind]: {
      round: kind === "contributions" ? session.round : (session.solutionRound ?? 1),
      ...(session.windowOpenedAt !== undefined && session.windowOpenedAt !== null ? { openedAt: session.windowOpenedAt } : {}),
      at: s.now,
    },
  };
  if (kind === "contributions") {
    s.log("info", "contribution window closed", {
      sessionId: session.id,
      round: session.round,
      closedBy,
      contributions: Object.keys(session.contributions).length,
      missing: missingAgents(session),
    });
  } else {
    s.log("info", "solution window closed", {
      sessionId: session.id,
      round: session.solutionRound ?? 1,
      closedBy,
      proposals: session.proposals.length,
      missing: missingProposers(session),
    });
  }
}

/** Whether a window's deadline firing at `at` is its timeout or its quiet period. */
export function closerOfDeadline(session: Session, at: number): WindowCloser {
  return session.windowEndsAt !== undefined && session.windowEndsAt !== null && at < session.windowEndsAt ? "quiet period" : "timeout";
}

/** Agents asked in the current round who have not answered in it. */
export function missingAgents(session: Session): string[] {
  const answered = Object.values(session.contributions)
    .filter((c) => c.round === session.round)
    .map((c) => c.agent);
  return session.expectedAgents.filter((a) => !answered.some((b) => sameAgent(a, b)));
}

/** Agents whose proposals the solution window waits for: those known to propose, else every contributor. */
export function awaitedProposers(session: Session): string[] {
  const known = session.expectedProposers;
  const contributors = known ? session.solvers.filter((a) => known.some((k) => sameAgent(k, a))) : session.solvers;
  // Planners that never model are awaited too (the reference solver, say): they answer every request.
  const planners = (session.expectedSolvers ?? []).filter((a) => !contributors.some((c) => sameAgent(c, a)));
  return [...contributors, ...planners];
}

/** Awaited proposers that have not proposed in the current solution round yet. */
export function missingProposers(session: Session): string[] {
  const round = session.solutionRound ?? 1;
  return (session.awaitedProposers ?? session.solvers).filter((a) => !session.proposals.some((p) => sameAgent(p.agent, a) && (p.round ?? 1) === round));
}
