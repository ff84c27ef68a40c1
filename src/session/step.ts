/**
 * The session core: `step(state, input, now) → { state, effects }`. Deterministic and free
 * of I/O, clocks and timers; every protocol rule lives here.
 */
import {
  contributionStallReport,
  noContributionsReason,
  nextStepsAfterViolations,
  sessionWording as say,
  violationsReason,
} from "./report.js";
import { heldByAnother, maySteer, rebindOnBasisChange, sameAgent, sameParticipant } from "./identity.js";
import { onIdentityBasis } from "./identity-basis.js";
import { onAbsence } from "./absence.js";
import { beginCollecting, complete, dedupe, requestContributions } from "./lifecycle.js";
import { onApproval, onChoice, onDebateLine, onDeparture, onSelectionDeadline, startSelection } from "./selection-rules.js";
import { Step } from "./step-context.js";
import { seconds } from "../base/text.js";
import { answerArrived, clearDeadline, closerOfDeadline, windowClosed, missingAgents, setDeadline } from "./windows.js";
import { finishReasoning, onProposal, requestSolutions } from "./repair-rounds.js";
import type { AnalysisOutcome, ModelAnalysis, Requester, Session } from "./types.js";
import type { Broadcast, Effect, Input, SessionStepResult, Sessions, StepResult } from "./step-io.js";
import { copyNameTable, nameTable } from "./name-table.js";

/** Late contributions kept per session (they are not merged; the cap bounds memory). */
const MAX_LATE = 20;
/** Rejected-contribution notes kept per session. */
const MAX_REJECTED = 50;
/** Validation results carried in one ModelValidationResult; the rest are counted. */
const MAX_RESULTS_SENT = 100;
/** Issues listed per agent in a fix request. */
const MAX_ISSUES_PER_AGENT = 20;
/** Times validation may start over in one round because contributions changed meanwhile. */
const MAX_REVALIDATIONS = 3;
/** The core waits this much longer than the worker's own limit before giving up on it. */
const VALIDATION_GRACE_MS = 2000;

/** The state before any input: no sessions. Live running and replay both start from it. */
export function emptySessions(): Sessions {
  return { byId: {} };
}

/**
 * The session with this id, if there is one. Ids arrive from the room, so the record is
 * read for its own entries only: `byId["constructor"]` or `byId["__proto__"]` would
 * otherwise find what every object inherits, and a made-up id would pass for a session.
 */
export function sessionIn(state: Sessions, id: string): Session | undefined {
  return Object.hasOwn(state.byId, id) ? state.byId[id] : undefined;
}

/** The next state of all sessions: the one session the input is for takes its step (`stepSession`). */
export function step(state: Sessions, input: Input, now: number): StepResult {
  const existing = sessionIn(state, input.sessionId);
  const { session, effects } = stepSession(existing, input, now);
  if (session === existing || session === undefined) return { state, effects };
  return { state: { byId: { ...state.byId, [session.id]: session } }, effects };
}

/**
 * One session's step: an input only ever concerns the session it names, so this is the
 * whole core. `existing` is never changed; the session after the step is a new object, or
 * `existing` itself when the input changed nothing. (The live host keeps its sessions in one
 * record that it updates in place: copying all of them per input, as `step` does, cost 62 µs
 * per input with 600 sessions live, quadratic in a burst.)
 */
export function stepSession(existing: Session | undefined, input: Input, now: number): SessionStepResult {
  const s = new Step(now);

  if (input.kind === "start") {
    if (existing) {
      s.log("warn", "session id already in use; start ignored", { sessionId: input.sessionId });
      return { session: existing, effects: s.effects };
    }
    return { session: start(input, s), effects: s.effects };
  }

  if (!existing) {
    if (input.kind === "contribution" || input.kind === "proposal") s.tellAgent(input.from, say.unknownSession(input.sessionId));
    s.log("debug", "input for an unknown session", { sessionId: input.sessionId, kind: input.kind });
    return { session: undefined, effects: s.effects };
  }

  const session = draft(existing);
  switch (input.kind) {
    case "contribution":
      onContribution(session, input, s);
      break;
    case "proposal":
      onProposal(session, input, s);
      break;
    case "analysis":
      onAnalysis(session, input.version, input.outcome, s);
      break;
    case "analysis-started":
      onAnalysisStarted(session, input.version, s);
      break;
    case "deadline":
      onDeadline(session, input, s);
      break;
    case "cancel":
      onCancel(session, input.by, s);
      break;
    case "debate":
      onDebateLine(session, input, s);
      break;
    case "choice":
      onChoice(session, input, s);
      break;
    case "approval":
      onApproval(session, input, s);
      break;
    case "departure":
      onDeparture(session, input, s);
      break;
    case "identity-basis":
      onIdentityBasis(session, input, s);
      break;
    case "absence":
      onAbsence(session, input, s);
      break;
  }
  return { session, effects: s.effects };
}

/** A shallow copy whose collections may be changed without touching the previous state. */
function draft(session: Session): Session {
  return {
    ...session,
    contributions: copyNameTable(session.contributions),
    rejected: [...session.rejected],
    late: [...session.late],
    validations: [...session.validations],
    proposals: [...session.proposals],
    expectedAgents: [...session.expectedAgents],
    solvers: [...session.solvers],
    selection: session.selection && {
      ...session.selection,
      notes: [...session.selection.notes],
      chosen: [...session.selection.chosen],
      reasons: { ...session.selection.reasons },
      awaitingApproval: [...session.selection.awaitingApproval],
    },
  };
}

function start(input: Extract<Input, { kind: "start" }>, s: Step): Session {
  const session: Session = {
    id: input.sessionId,
    problem: input.problem,
    startedBy: input.by,
    startedAt: s.now,
    settings: input.settings,
    phase: "collecting",
    selection: null,
    round: 1,
    requestedAgents: null,
    invitedAgents: null,
    expectedAgents: [],
    contributions: nameTable(),
    rejected: [],
    late: [],
    contributionsVersion: 0,
    analysingVersion: null,
    validations: [],
    fixRequests: nameTable(),
    model: null,
    solutionRequestedAt: null,
    solvers: [],
    proposals: [],
    deadline: null,
    ...(input.expectedProposers ? { expectedProposers: input.expectedProposers } : {}),
    ...(input.expectedSolvers?.length ? { expectedSolvers: input.expectedSolvers } : {}),
    completion: null,
  };
  s.log("info", "session started", { sessionId: session.id, by: input.by.nick, choose: input.choose?.method ?? null });
  const approvalRequired = input.approvalRequired ?? [];
  if (input.choose || approvalRequired.length > 0) {
    startSelection(session, input, s);
    return session;
  }
  session.requestedAgents = input.requestedAgents;
  beginCollecting(session, input.requestedAgents, input.expectedAgents, s);
  return session;
}

function onContribution(session: Session, input: Extract<Input, { kind: "contribution" }>, s: Step): void {
  const nick = input.from.nick;
  const other = heldByAnother(session, input.from);
  if (other) {
    s.tellAgent(input.from, say.heldByAnother(session, nick, "contribution"));
    s.log("warn", "contribution under a nick that another identity used earlier", { sessionId: session.id, nick, earlier: other.agentIdentity ?? other.agentJid, now: input.from.identity ?? input.from.jid });
    return;
  }
  rebindOnBasisChange(session, input.from, s);
  if (session.phase === "complete" || session.phase === "reasoning") {
    s.tellAgent(input.from, say.contributionTooLate(session, input.check.ok, s.now));
    if (session.phase === "reasoning" && input.check.ok && session.late.length < MAX_LATE) {
      session.late.push(contributionOf(session, input, input.check, s.now));
    }
    s.log("info", "late contribution", { sessionId: session.id, agent: nick, phase: session.phase });
    return;
  }

  const key = agentKey(session, nick);
  const previous = key ? session.contributions[key] : undefined;
  if (session.phase === "validating" && (session.revalidations ?? 0) >= MAX_REVALIDATIONS) {
    s.tellAgent(input.from, say.contributionWhileValidating(session, previous !== undefined));
    s.log("info", "contribution during a much-restarted validation refused", { sessionId: session.id, agent: nick });
    return;
  }

  if (!input.check.ok) {
    const { message, line, column } = input.check;
    if (session.rejected.length < MAX_REJECTED) {
      const where = `${input.parts?.refusedPart !== undefined ? `part ${input.parts.refusedPart}/${input.parts.n} ` : ""}${line !== null ? `line ${line}${column !== null ? `:${column}` : ""}` : ""}`.trim();
      session.rejected.push({ agent: nick, receivedAt: s.now, round: session.round, reason: `${where ? `${where}: ` : ""}${message}` });
    }
    s.tellAgent(input.from, say.contributionUnparsable(session, message, line, column, previous !== undefined, input.check.refused === true, input.parts));
    s.log("info", "unparsable contribution", { sessionId: session.id, agent: nick, line, column, ...(input.parts ? { part: input.parts.refusedPart ?? null, parts: input.parts.n } : {}) });
    return;
  }

  const contribution = contributionOf(session, input, input.check, s.now);
  if (key && key !== nick) delete session.contributions[key];
  session.contributions[nick] = contribution;
  session.contributionsVersion++;
  s.tellAgent(input.from, say.contributionAccepted(session, contribution, previous !== undefined, input.parts?.n));
  s.log("info", "contribution accepted", { sessionId: session.id, agent: nick, round: session.round, triples: contribution.tripleCount, replaced: previous !== undefined, ...(input.parts ? { parts: input.parts.n } : {}) });

  if (session.phase === "collecting" && session.expectedAgents.length > 0 && missingAgents(session).length === 0) {
    windowClosed(session, "contributions", "everyone answered", s);
    startAnalysis(session, s);
  } else if (session.phase === "collecting") {
    answerArrived(session, s);
  }
  // In `validating`, the newer version is picked up when the running analysis returns.
}

function contributionOf(session: Session, input: Extract<Input, { kind: "contribution" }>, check: Extract<Input, { kind: "contribution" }>["check"] & { ok: true }, now: number) {
  // Asked in any round counts: existing peers answer every request, fix rounds included.
  const requested = session.invitedAgents === null || session.invitedAgents.some((a) => sameAgent(a, input.from.nick));
  return {
    agent: input.from.nick,
    agentJid: input.from.jid,
    ...(input.from.identity ? { agentIdentity: input.from.identity } : {}),
    turtle: input.turtle,
    receivedAt: now,
    round: session.round,
    tripleCount: check.tripleCount,
    counts: check.counts,
    requested,
  };
}

function startAnalysis(session: Session, s: Step): void {
  session.phase = "validating";
  session.analysingVersion = session.contributionsVersion;
  if (session.settings.validationClockStartsInWorker) {
    // No deadline while the job waits for a free worker: the clock starts with the work
    // (`analysis-started`); the shell's bounded queue bounds the wait.
    clearDeadline(session, s);
  } else {
    setDeadline(session, "validation", s.now + session.settings.validationTimeoutMs + VALIDATION_GRACE_MS, s);
  }
  s.emit(analysisRequest(session, session.contributionsVersion));
}

/** A worker began the analysis the session waits for: from now on, the validation timeout runs. */
function onAnalysisStarted(session: Session, version: number, s: Step): void {
  if (session.phase !== "validating" || version !== session.analysingVersion || !session.settings.validationClockStartsInWorker) {
    s.log("debug", "start of a stale analysis ignored", { sessionId: session.id, version, phase: session.phase });
    return;
  }
  setDeadline(session, "validation", s.now + session.settings.validationTimeoutMs + VALIDATION_GRACE_MS, s);
}

/** The model work for a session's contributions, oldest first, tagged with the version it answers. */
export function analysisRequest(session: Session, version: number): Extract<Effect, { kind: "analyse" }> {
  return {
    kind: "analyse",
    sessionId: session.id,
    version,
    problem: session.problem,
    contributions: Object.values(session.contributions)
      .sort((a, b) => a.receivedAt - b.receivedAt)
      .map((c) => ({ agent: c.agent, turtle: c.turtle })),
  };
}

function onAnalysis(session: Session, version: number, outcome: AnalysisOutcome, s: Step): void {
  if (session.phase !== "validating" || version !== session.analysingVersion) {
    s.log("debug", "stale analysis ignored", { sessionId: session.id, version, phase: session.phase });
    return;
  }
  if (outcome.ok && version < session.contributionsVersion) {
    // Contributions changed while the worker ran; analyse the newer set instead.
    s.log("info", "contributions changed during validation; validating again", { sessionId: session.id });
    session.revalidations = (session.revalidations ?? 0) + 1;
    startAnalysis(session, s);
    return;
  }
  session.analysingVersion = null;
  session.validations.push({ round: session.round, at: s.now, outcome });
  logValidationOutcome(session, outcome, s);

  if (!outcome.ok) {
    s.broadcast(validationResult(session, null, outcome.error), `Validation of ${session.id} could not finish: ${outcome.error}`);
    complete(session, outcome.timedOut ? "timed-out" : "failed", `Validation could not finish: ${outcome.error}.`, s);
    return;
  }

  const analysis = outcome.analysis;
  const result = validationResult(session, analysis, null);
  if (analysis.conforms) {
    // One event, one line: the solution request says the model is sound.
    s.broadcast(result, undefined);
    requestSolutions(session, analysis, s);
    return;
  }
  if (session.round <= session.settings.maxFixRounds) {
    startFixRound(session, analysis, result, s);
    return;
  }
  s.broadcast(result, say.violationsBody(session, analysis.violations, analysis.warnings, null, analysis.findings));
  complete(session, "failed", `${violationsReason(session, analysis.violations)} ${analysis.summary} ${nextStepsAfterViolations()}`, s);
}

/** The outcome of a round's validation, for the operator: one info line with the session id. */
function logValidationOutcome(session: Session, outcome: AnalysisOutcome, s: Step): void {
  if (outcome.ok) {
    const { conforms, violations, warnings, tripleCount } = outcome.analysis;
    s.log("info", "validation result", { sessionId: session.id, round: session.round, conforms, violations, warnings, triples: tripleCount });
  } else {
    s.log("info", "validation could not finish", { sessionId: session.id, round: session.round, error: outcome.error, timedOut: outcome.timedOut });
  }
}

function validationResult(session: Session, analysis: ModelAnalysis | null, error: string | null): Broadcast {
  const findings = analysis?.findings ?? [];
  const sent = findings.slice(0, MAX_RESULTS_SENT);
  return {
    type: "ModelValidationResult",
    sessionId: session.id,
    round: session.round,
    conforms: analysis?.conforms ?? false,
    summary: analysis?.summary ?? `Validation could not finish: ${error ?? "unknown error"}`,
    results: sent.map((f) => ({
      severity: f.severity,
      focusNode: f.focusNode,
      ...(f.path ? { path: f.path } : {}),
      message: f.message,
      ...(f.agents.length ? { agent: f.agents[0], agents: f.agents } : {}),
    })),
    omitted: findings.length - sent.length,
  };
}

function startFixRound(session: Session, analysis: ModelAnalysis, result: Broadcast, s: Step): void {
  const everyone = Object.keys(session.contributions);
  const issues = nameTable<string[]>();
  for (const f of analysis.findings) {
    if (f.severity !== "Violation") continue;
    // A violation nobody owns (e.g. "the model has no Entity") is everyone's to fix.
    const owners = f.agents.length ? f.agents : everyone;
    for (const owner of owners) {
      const list = (issues[owner] ??= []);
      const line = `${f.message}${f.focusNode ? ` (${f.focusNode}${f.path ? `, ${f.path}` : ""})` : ""}`;
      if (list.length < MAX_ISSUES_PER_AGENT && !list.includes(line)) list.push(line);
    }
  }
  if (Object.keys(issues).length === 0) {
    // Not conforming without a Violation to point at: everyone gets the summary to act on.
    for (const agent of everyone) issues[agent] = [analysis.summary];
  }
  session.round++;
  session.revalidations = 0;
  session.fixRequests = issues;
  session.requestedAgents = Object.keys(issues);
  if (session.invitedAgents !== null) session.invitedAgents = dedupe([...session.invitedAgents, ...Object.keys(issues)]);
  session.expectedAgents = Object.keys(issues);
  session.phase = "collecting";
  s.log("info", "fix round", { sessionId: session.id, fixRound: session.round - 1, of: session.settings.maxFixRounds, round: session.round, agents: Object.keys(issues) });
  // The validation result's line announces the fix round and names the first violations; the
  // full list of who must fix what goes to the log room.
  s.broadcast(result, say.violationsBody(session, analysis.violations, analysis.warnings, Object.keys(issues).length, analysis.findings));
  s.say(say.fixDetail(session), "log");
  requestContributions(session, s);
}

function onDeadline(session: Session, input: Extract<Input, { kind: "deadline" }>, s: Step): void {
  const at = input.at;
  const deadline = session.deadline;
  if (!deadline || deadline.at !== at || s.now < at || session.phase === "complete") {
    s.log("debug", "stale deadline ignored", { sessionId: session.id, at });
    return;
  }
  session.deadline = null;
  s.log("info", "deadline reached", { sessionId: session.id, deadline: deadline.kind, phase: session.phase });
  if (deadline.kind === "contributions" || deadline.kind === "reasoning") windowClosed(session, deadline.kind, closerOfDeadline(session, at), s);
  switch (deadline.kind) {
    case "selection":
      onSelectionDeadline(session, input, s);
      return;
    case "contributions": {
      const stalled = contributionStallReport(session);
      if (stalled) s.say(stalled);
      if (Object.keys(session.contributions).length === 0) {
        complete(session, "failed", noContributionsReason(session), s);
      } else {
        startAnalysis(session, s);
      }
      return;
    }
    case "validation": {
      session.analysingVersion = null;
      // A ModelValidationResult is always sent, also when the worker never answered.
      const error = `the model worker did not answer within ${seconds(session.settings.validationTimeoutMs)}`;
      session.validations.push({ round: session.round, at: s.now, outcome: { ok: false, error, timedOut: true } });
      s.broadcast(validationResult(session, null, error), `Validation of ${session.id} could not finish: ${error}`);
      complete(session, "timed-out", `Validation did not finish within ${seconds(session.settings.validationTimeoutMs)}.`, s);
      return;
    }
    case "reasoning":
      finishReasoning(session, s);
      return;
  }
}

function onCancel(session: Session, by: Requester, s: Step): void {
  if (session.phase === "complete") {
    s.tell(by.nick, say.alreadyComplete(session));
    return;
  }
  if (!maySteer(session, by)) {
    s.tell(by.nick, say.notAllowed(session, "cancel"));
    s.log("info", "cancel refused", { sessionId: session.id, by: by.nick });
    return;
  }
  complete(session, "cancelled", `Cancelled by ${by.nick}.`, s);
  // The person who started it hears of it, whoever it was that cancelled.
  if (!sameParticipant(by, session.startedBy)) s.tell(session.startedBy.nick, say.cancelledByOther(session, by));
}


/** The key an agent's contribution is stored under (nicks compare case-insensitively). */
function agentKey(session: Session, nick: string): string | undefined {
  return Object.keys(session.contributions).find((k) => sameAgent(k, nick));
}

