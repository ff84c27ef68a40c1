/**
 * The vocabulary of the session core: what a session is and what it holds (what can happen
 * to it and what it asks for are in ./step-io.ts). Plain data only, so sessions can be
 * logged, replayed and compared in tests.
 */

// Findings come from the model layer unchanged (attributed to agents there).
import type { FormalModel, FormalSummary, Verification } from "../formal/index.js";
import type { Severity, ValidationFinding } from "../rdf/validate.js";
import type { RoomView } from "./room-view.js";
export type { Severity, ValidationFinding };
export type { Candidate, EvidenceKind, RoomView } from "./room-view.js";

/** A session's id as people type it (`amber-fox-42`, see session-id.ts); unique among live and archived sessions. */
export type SessionId = string;

/** Where a session is in the protocol. Every phase but `complete` has a deadline. */
export type Phase = "selecting" | "collecting" | "validating" | "reasoning" | "complete";

/**
 * How a session ended, set once (lifecycle.ts `complete`). `solved` follows `isSolved`
 * (verdicts.ts): a valid plan where the model has a formal part, else a claim of success.
 */
export type CompletionStatus = "solved" | "failed" | "timed-out" | "cancelled";

/** Per-session copy of the settings, fixed at start so a replay behaves the same. */
export interface SessionSettings {
  contributionTimeoutMs: number;
  validationTimeoutMs: number;
  reasoningTimeoutMs: number;
  maxFixRounds: number;
  /** Rounds in which proposers of invalid plans are asked to repair them; absent in older logs (none). */
  maxRepairRounds?: number;
  /** Most triples a contribution may have; enforced by the checker, recorded for reports. */
  maxTriplesPerContribution: number;
  /** How long choosing agents may take: the debate, a clarification, an approval. */
  debateTimeoutMs: number;
  /**
   * After the first answer in a contribution or solution window, this long without a new
   * one closes the window early (the timeout stays the upper bound). Absent in logs written
   * before it existed: then only the timeout and "everyone expected answered" close a window.
   */
  quietPeriodMs?: number;
  /**
   * The validation deadline counts work, not waiting: it is set when a model worker begins the
   * job (an `analysis-started` input), not when validation is asked for, so a job waiting for
   * a free worker cannot time out (the shell bounds that wait with a bounded queue). Absent in
   * logs written before it existed: the deadline is set when validation is asked for.
   */
  validationClockStartsInWorker?: boolean;
  /**
   * The quiet period closes a window only when no agent the window awaits by what the
   * coordinator knows (windows.ts `knownMissing`) is still missing: those are awaited up to
   * the timeout. Absent in logs written before it existed: the quiet period closed a window
   * after the first answer whoever was still missing.
   */
  awaitExpectedAgents?: boolean;
}

/**
 * What a room identifies its occupants by: the prefix of their identity keys (see
 * xmpp/occupant-identity.ts). A room that is re-created, or reconfigured, may change it.
 */
export type IdentityBasis = "jid" | "occupant" | "nick";

/** Someone in the room, as identified by the shell. */
export interface Participant {
  nick: string;
  /** Real bare JID when the room reveals it. */
  jid: string | undefined;
  /**
   * Who this is beyond the nick (see xmpp/occupant-identity.ts): the XEP-0421 occupant id,
   * the real JID, or the nick's lineage in the room. Absent in logs written before it existed.
   */
  identity?: string | undefined;
  /**
   * The room the input came through, when it is not the primary room (a phase room): private
   * answers go through it, since the agent may sit there only.
   */
  room?: string | undefined;
}

/** Someone asking to steer a session, with the standing the shell found at the time. */
export interface Requester extends Participant {
  /** A room moderator (or owner/admin), or on mfr:allowCommandsFrom; absent for everyone else. */
  standing?: "moderator" | "allow-listed" | undefined;
}

/** What one agent added, by kind of model item. */
export interface ItemCounts {
  entities: number;
  stateVariables: number;
  actions: number;
  constraints: number;
  goals: number;
}

/** The result of checking one contribution's syntax on arrival (done off the event loop by the shell). */
export type ContributionCheck =
  | { ok: true; tripleCount: number; counts: ItemCounts }
  /** `refused`: readable, but against a rule (a limit, no statements); otherwise a syntax error. */
  | { ok: false; message: string; line: number | null; column: number | null; refused?: true };

/** How a contribution sent in parts arrived (see the contribution input). */
export interface ContributionParts {
  n: number;
  refusedPart?: number;
}

/**
 * An accepted model contribution: one per agent in `Session.contributions` (keyed by nick), a
 * later one from the same agent replacing it. `receivedAt` is the step's `now` (ms since the
 * epoch); contributions are merged oldest first.
 */
export interface Contribution {
  agent: string;
  agentJid: string | undefined;
  agentIdentity?: string | undefined;
  turtle: string;
  receivedAt: number;
  round: number;
  tripleCount: number;
  counts: ItemCounts;
  /** False when the agent was not among those asked. */
  requested: boolean;
}

/** A contribution that could not be used (syntax error or refused), kept for reports; at most 50 per session. */
export interface RejectedContribution {
  agent: string;
  receivedAt: number;
  round: number;
  reason: string;
}


/** What the model worker says about the merged contributions of one round. */
export interface ModelAnalysis {
  conforms: boolean;
  violations: number;
  warnings: number;
  findings: ValidationFinding[];
  summary: string;
  /** The merged model as Turtle (what solvers receive). */
  modelTurtle: string;
  tripleCount: number;
  /**
   * Its formal part as the core knows it: a bounded summary and the digest of the formal
   * model, which stays in the model worker (plans are checked there; see the proposal input).
   * Absent in logs written before plans were checked in the worker.
   */
  formalSummary?: FormalSummary;
  /**
   * Logs written before plans were checked in the worker only: the formal model itself, which
   * the core then checks plans against as it did when they were logged. Never set on the
   * live path (copying it to the main thread stalled the event loop).
   */
  formal?: FormalModel;
}

/** The model worker's answer for one analysis: the analysis, or why there is none (`timedOut` when the worker ran out of time). */
export type AnalysisOutcome = { ok: true; analysis: ModelAnalysis } | { ok: false; error: string; timedOut: boolean };

/** One validation of a round, in order, for the report: the round, when it ended (ms since the epoch; a timeout too), and its outcome. */
export interface ValidationRecord {
  round: number;
  at: number;
  outcome: AnalysisOutcome;
}

/**
 * What an agent says of its solution, as it sent it: claims, not evidence. Where the plan can be
 * checked against the model, `Proposal.verification` decides; unknown fields are kept.
 */
export interface SolutionBody {
  success: boolean;
  message: string;
  plan?: string[];
  bindings?: string[];
  satisfiesGoals?: Array<{ goal: string; satisfied: boolean }>;
  executionError?: string;
  /** Anything else the agent sent, kept and shown. */
  [extra: string]: unknown;
}

/** An agent's proposed solution: at most one per agent per session, a later one replacing it. */
export interface Proposal {
  agent: string;
  agentJid: string | undefined;
  agentIdentity?: string | undefined;
  receivedAt: number;
  solution: SolutionBody;
  /** The coordinator's own check of the plan against the model (its claims are not evidence). */
  verification?: Verification;
  /** The solution round it answered (1, or a repair round); absent in older logs (1). */
  round?: number;
}

/** How and when (ms since the epoch) a session ended; `summary` is the text of the SessionComplete message. */
export interface Completion {
  status: CompletionStatus;
  at: number;
  reason: string | undefined;
  summary: string;
}

/** One numbered choice offered when selection needs a person to decide. */
export interface SelectionOption {
  number: number;
  agent: string;
  reason: string;
}

/** What selection from the room decided (see selection-match.ts). */
export type SelectionOutcome =
  | { kind: "chosen"; agents: string[]; reasons: Record<string, string> }
  | { kind: "unclear"; options: SelectionOption[]; why: string }
  /** Nothing to go by: every occupant that might be an agent is asked (none: anyone who answers). */
  | { kind: "everyone"; agents: string[]; why: string };

/** How the agents of a session are being chosen, while the session is `selecting`. */
export interface Selection {
  stage: "debating" | "clarifying" | "approving";
  /** The Chair running the debate, when there is one. */
  chair: string | null;
  /**
   * Who spoke as the Chair: pinned when the debate opens (the occupant under the Chair's
   * nick then) or by the first Chair line; only this identity may end the debate.
   */
  chairPin?: Participant | null;
  /** The room as most recently seen (at start, or with a later input); a fallback is chosen from it. */
  room?: RoomView | null;
  /** Logs written before the room was data: the selection computed at start. */
  fallback?: SelectionOutcome;
  /** Positions, supports and objections heard in the debate (bounded). */
  notes: Array<{ from: string; kind: string; text: string }>;
  /** Numbered options of a clarification question. */
  options: SelectionOption[];
  /** Agents chosen so far, with one line of why for each. */
  chosen: string[];
  reasons: Record<string, string>;
  /** Chosen agents that act in the world and wait for `approve`/`reject`. */
  awaitingApproval: string[];
  /** Every agent known to need approval (from their profiles, at start). */
  approvalRequired: string[];
  /** How the choice was made, for the summary. */
  method: string;
}

/** A contribution or solution window that closed: its round, when it opened (absent in older logs) and when it closed. */
export interface ClosedWindow {
  round: number;
  openedAt?: number;
  at: number;
}

/** What a deadline ends: the agent selection, or the contribution, validation or solution window. */
export type DeadlineKind = "selection" | "contributions" | "validation" | "reasoning";

/** A session's one pending deadline (ms since the epoch); a `deadline` input with another `at` is stale and ignored. */
export interface Deadline {
  kind: DeadlineKind;
  at: number;
}

/**
 * One MFR session, plain data: changed only by the core's step (a new object when an input
 * changes it; see step.ts) and archived as it is. Fields marked absent in older logs stay
 * optional, so old logs replay and old archives still read.
 */
export interface Session {
  id: SessionId;
  problem: string;
  startedBy: Participant;
  startedAt: number;
  settings: SessionSettings;
  phase: Phase;
  /** Set while agents are being chosen (debate / selection / approval); kept afterwards for reports. */
  selection: Selection | null;
  /** 1 for the first contribution request; each fix round adds one. */
  round: number;
  /** Agents asked in this round, or null when every agent was invited. */
  requestedAgents: string[] | null;
  /** Agents asked in any round so far, or null when every agent was invited at the start. */
  invitedAgents: string[] | null;
  /** Agents whose contributions close the window early in this round. */
  expectedAgents: string[];
  contributions: Record<string, Contribution>;
  rejected: RejectedContribution[];
  /** Contributions that arrived after the model was closed: kept, not merged. */
  late: Contribution[];
  /** Bumped on every accepted contribution, so a stale analysis can be recognised. */
  contributionsVersion: number;
  /** The version the running analysis is working on. */
  analysingVersion: number | null;
  /**
   * How often validation started over in this round because contributions changed while it
   * ran; bounded, so replacing a contribution again and again cannot keep a session
   * validating forever. Absent in logs written before it existed (read as 0).
   */
  revalidations?: number;
  validations: ValidationRecord[];
  /** The per-agent issues sent in the latest fix round. */
  fixRequests: Record<string, string[]>;
  model: ModelAnalysis | null;
  solutionRequestedAt: number | null;
  /** Agents asked for solutions: every contributor. */
  solvers: string[];
  proposals: Proposal[];
  deadline: Deadline | null;
  /** 1 in the first solution window; each repair round adds one. Absent in older logs (1). */
  solutionRound?: number;
  /** Agents known to answer SolutionRequests, from the start input; null or absent: unknown. */
  expectedProposers?: string[] | null;
  /** Agents present at the start that propose without modelling; awaited in the solution window. */
  expectedSolvers?: string[];
  /** When the open contribution or solution window times out at the latest (its upper bound). */
  windowEndsAt?: number | null;
  /** When the open (or last) contribution or solution window opened. Absent in older logs. */
  windowOpenedAt?: number | null;
  /** The last contribution window and the last solution window that closed: round, when it opened and closed (for a late answer). */
  closedWindows?: { contributions?: ClosedWindow; reasoning?: ClosedWindow };
  /**
   * The end of the last absence of the coordinator this session was told of (an `absence`
   * input): an absence reported again by another of its rooms, which began before this, is
   * the same one. Absent when there was none.
   */
  absentUntil?: number;
  /**
   * Agents whose proposals close the solution window early once all have answered: those
   * known to answer SolutionRequests, or every contributor when that is not known.
   */
  awaitedProposers?: string[];
  /**
   * The identity basis of the session's room as the shell last announced it (an
   * `identity-basis` input): what was held under a nick on another basis may be re-bound to
   * whoever speaks under that nick on this one (see identity.ts). Absent when no change was
   * announced (older logs, or the room never changed while the session ran).
   */
  identityBasis?: IdentityBasis;
  completion: Completion | null;
}
