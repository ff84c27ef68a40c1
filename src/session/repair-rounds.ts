/**
 * The reasoning phase of a session: the solution request, the proposals that answer it, and
 * the repair rounds that give the proposer of an invalid plan another chance. The rule it
 * keeps: only proposals made while reasoning count, one per agent (the latest), and repair
 * rounds are bounded by `maxRepairRounds`; after the last one the session completes on the
 * proposals it has. Part of the pure session core: no I/O, every effect goes through `Step`.
 */
import { noSolutionReason, sessionWording as say } from "./report.js";
import { heldByAnother, rebindOnBasisChange, sameAgent } from "./identity.js";
import { requestedProposers } from "./ranking.js";
import { complete } from "./lifecycle.js";
import type { Step } from "./step-context.js";
import { isSolved, proposalVerification, repairIssues } from "./verdicts.js";
import { answerArrived, awaitedProposers, windowClosed, missingProposers, openWindow } from "./windows.js";
import type { ModelAnalysis, Session } from "./types.js";
import type { Input } from "./step-io.js";
import { nameTable } from "./name-table.js";

/** The model conforms: ask every contributor for solutions to it and open the reasoning window. */
export function requestSolutions(session: Session, analysis: ModelAnalysis, s: Step): void {
  session.model = analysis;
  session.phase = "reasoning";
  session.solutionRequestedAt = s.now;
  session.solvers = Object.keys(session.contributions);
  session.awaitedProposers = awaitedProposers(session);
  s.broadcast({ type: "SolutionRequest", sessionId: session.id, model: analysis.modelTurtle }, say.solutionRequestBody(session, analysis.tripleCount, analysis.warnings));
  openWindow(session, "reasoning", session.settings.reasoningTimeoutMs, s);
}

/**
 * A proposal from an agent: taken only while reasoning, from the agent that holds the nick; a
 * newer proposal of the same agent replaces its earlier one. Reasoning ends once everyone awaited answered.
 */
export function onProposal(session: Session, input: Extract<Input, { kind: "proposal" }>, s: Step): void {
  const nick = input.from.nick;
  if (session.phase === "complete") {
    s.tellAgent(input.from, say.proposalTooLate(session, s.now));
    s.log("info", "proposal after completion ignored", { sessionId: session.id, agent: nick });
    return;
  }
  if (session.phase !== "reasoning") {
    s.tellAgent(input.from, say.proposalTooEarly(session));
    s.log("info", "proposal before the solution request ignored", { sessionId: session.id, agent: nick, phase: session.phase });
    return;
  }
  const other = heldByAnother(session, input.from);
  if (other) {
    s.tellAgent(input.from, say.heldByAnother(session, nick, "proposal"));
    s.log("warn", "proposal under a nick that another identity used earlier", { sessionId: session.id, nick, earlier: other.agentIdentity ?? other.agentJid, now: input.from.identity ?? input.from.jid });
    return;
  }
  rebindOnBasisChange(session, input.from, s);
  const index = session.proposals.findIndex((p) => sameAgent(p.agent, nick));
  const verification = proposalVerification(session, input);
  const proposal = {
    agent: nick,
    agentJid: input.from.jid,
    ...(input.from.identity ? { agentIdentity: input.from.identity } : {}),
    receivedAt: s.now,
    solution: input.solution,
    ...(verification ? { verification } : {}),
    ...((session.solutionRound ?? 1) > 1 ? { round: session.solutionRound } : {}),
  };
  if (index >= 0) session.proposals[index] = proposal;
  else session.proposals.push(proposal);
  s.log("info", "proposal received", { sessionId: session.id, agent: nick, success: input.solution.success, verdict: verification?.verdict ?? null, replaced: index >= 0 });

  const awaited = session.awaitedProposers ?? session.solvers;
  if (awaited.length > 0 && missingProposers(session).length === 0) {
    windowClosed(session, "reasoning", "everyone answered", s);
    finishReasoning(session, s);
  } else {
    answerArrived(session, s);
  }
}

/**
 * The reasoning window closed (everyone answered, or its deadline): a repair round for the
 * proposers of invalid plans while rounds are left, else the session completes, solved or failed.
 */
export function finishReasoning(session: Session, s: Step): void {
  const solved = isSolved(session);
  // An invalid plan's proposer gets the finding and another chance, a bounded number of times.
  // Once a valid plan exists, only the agents asked for solutions are worth the wait: a repaired
  // plan of theirs ranks first; a stranger's would not change the outcome.
  const requested = requestedProposers(session);
  const issues = nameTable(Object.entries(repairIssues(session)).filter(([agent]) => !solved || requested.some((a) => sameAgent(a, agent))));
  if (Object.keys(issues).length > 0 && (session.solutionRound ?? 1) <= (session.settings.maxRepairRounds ?? 0)) {
    startRepairRound(session, issues, s);
    return;
  }
  complete(session, solved ? "solved" : "failed", solved ? undefined : noSolutionReason(session), s);
}

function startRepairRound(session: Session, issues: Record<string, string[]>, s: Step): void {
  session.solutionRound = (session.solutionRound ?? 1) + 1;
  session.awaitedProposers = Object.keys(issues);
  s.log("info", "repair round", { sessionId: session.id, repairRound: session.solutionRound - 1, of: session.settings.maxRepairRounds ?? 0, round: session.solutionRound, agents: Object.keys(issues) });
  s.broadcast(
    { type: "SolutionRequest", sessionId: session.id, model: session.model?.modelTurtle ?? "", round: session.solutionRound, requestedAgents: Object.keys(issues), issues },
    say.repairBody(session, Object.keys(issues), isSolved(session)),
  );
  s.say(say.repairDetail(session, issues), "log");
  openWindow(session, "reasoning", session.settings.reasoningTimeoutMs, s);
}
