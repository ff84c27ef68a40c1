/**
 * Transitions shared by the rules: deadlines, asking for contributions, and the one way a
 * session ends.
 */
import { roomSummary, sessionDetail, sessionSummary, sessionWording as say } from "./report.js";
import { rankedProposals } from "./ranking.js";
import { openWindow } from "./windows.js";
import type { Step } from "./step-context.js";
import type { CompletionStatus, Session } from "./types.js";


/** Enters the contribution window of round 1 with the chosen agents (null: everyone). */
export function beginCollecting(session: Session, agents: string[] | null, expected: string[], s: Step): void {
  session.phase = "collecting";
  session.round = 1;
  session.requestedAgents = agents;
  session.invitedAgents = agents;
  session.expectedAgents = dedupe(agents ?? expected);
  requestContributions(session, s);
}

/**
 * Asks for contributions to the current round and opens its window (contributionTimeoutMs).
 * Round 1 carries the line that says the session started; a fix round's request carries the
 * issues to fix and the line that opens the round (the validation result's line before it
 * says what is wrong). Both have a body, since many client libraries hand a bot only
 * messages with one.
 */
export function requestContributions(session: Session, s: Step): void {
  const fixRound = session.round > 1;
  s.broadcast(
    {
      type: "ModelContributionRequest",
      sessionId: session.id,
      problemDescription: session.problem,
      round: session.round,
      requestedAgents: session.requestedAgents,
      issues: fixRound ? session.fixRequests : null,
    },
    fixRound ? say.fixRequestBody(session, Object.keys(session.fixRequests).length) : say.requestBody(session),
  );
  openWindow(session, "contributions", session.settings.contributionTimeoutMs, s);
}

/** The one way a session ends: SessionComplete goes out exactly once. */
export function complete(session: Session, status: CompletionStatus, reason: string | undefined, s: Step): void {
  if (session.phase === "complete") return;
  session.phase = "complete";
  session.deadline = null;
  session.completion = { status, at: s.now, reason, summary: "" };
  const summary = sessionSummary(session, s.now);
  session.completion.summary = summary;
  s.emit({ kind: "unschedule", sessionId: session.id });
  // The last line of a session, for people: the SessionComplete's body (docs/protocol.md: a body is
  // one line for humans), not a message of its own, which the room would carry to every
  // occupant again. The full summary is in the payload, the detail in the log room.
  s.broadcast({ type: "SessionComplete", sessionId: session.id, status, solutions: rankedProposals(session), summary, reason }, roomSummary(session, s.now));
  s.say(sessionDetail(session, s.now), "log");
  s.emit({ kind: "finished", sessionId: session.id });
  s.log("info", "session complete", { sessionId: session.id, status, reason });
}

/** The list without repeats, compared case-insensitively (nicks); the first spelling and the order are kept. */
export function dedupe(list: readonly string[]): string[] {
  const seen = new Set<string>();
  return list.filter((a) => (seen.has(a.toLowerCase()) ? false : (seen.add(a.toLowerCase()), true)));
}
