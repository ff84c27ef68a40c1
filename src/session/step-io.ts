/**
 * What goes into a step of the session core and what comes out: every input that can happen
 * to a session (each logged before it is applied), and the effects and broadcasts it asks the
 * shell to carry out. Apart from the session's own shape (./types.ts), since these change
 * with the protocol and that changes with what a session keeps.
 */
import type { Verification } from "../formal/index.js";
import type { RoomView } from "./room-view.js";
import type { AnalysisOutcome, CompletionStatus, ContributionCheck, ContributionParts, IdentityBasis, Participant, Proposal, Requester, SelectionOutcome, Session, SessionId, SessionSettings, Severity, SolutionBody } from "./types.js";

/**
 * How agents are chosen before a session collects: a Chair's debate (pinned to the identity
 * of the occupant under `chair` when known), or selection from the room. `invitation`,
 * `fallback` and `outcome` are what older logs carry, decided by the shell at start.
 */
export type ChooseAgents =
  | { method: "debate"; chair: string; chairIdentity?: string; invitation?: string; fallback?: SelectionOutcome }
  | { method: "catalog"; outcome?: SelectionOutcome };

/** Everything that can happen to sessions. Each input is logged before it is applied. */
export type Input =
  | {
      kind: "start";
      sessionId: SessionId;
      problem: string;
      by: Participant;
      settings: SessionSettings;
      /** Agents known to be present; the window closes early once all have contributed. */
      expectedAgents: string[];
      /** Set when agents were chosen beforehand; null invites everyone. */
      requestedAgents: string[] | null;
      /** Agents known to answer SolutionRequests (they proposed before); null when unknown. */
      expectedProposers?: string[] | null;
      /** Agents that propose without modelling (planners); absent in older logs. */
      expectedSolvers?: string[];
      /** How to choose agents first; absent: start collecting at once. */
      choose?: ChooseAgents;
      /** Agents (among those that may be asked) that act in the world and need a person's approval. */
      approvalRequired?: string[];
      /** The room when the session started: who may be asked, and why each is taken for an agent. */
      room?: RoomView;
    }
  /** A line of the Chair's debate, already parsed from its plain text. */
  | {
      kind: "debate";
      sessionId: SessionId;
      from: Participant;
      line:
        | { kind: "started" }
        | { kind: "position" | "support" | "objection"; text: string }
        /** `names` as the Chair wrote them; older logs carry `agents`/`ignored` resolved by the shell. */
        | { kind: "consensus"; text: string; names?: string[]; agents?: string[]; ignored?: string[] }
        | { kind: "no-consensus"; text: string };
      /** The room when the line arrived: the names are mapped onto it, a fallback is chosen from it. */
      room?: RoomView;
    }
  /** An occupant left the room while a session that might ask it was still choosing. */
  | { kind: "departure"; sessionId: SessionId; who: Participant; room: RoomView }
  /** `use 1,3` / `use all` in answer to a clarification. */
  | { kind: "choice"; sessionId: SessionId; by: Requester; choice: "all" | number[] }
  /** `approve <id>` / `reject <id>`. */
  | { kind: "approval"; sessionId: SessionId; by: Requester; approved: boolean }
  /**
   * A Turtle contribution with its check. `parts`: it came in `n` parts (docs/protocol.md), and
   * `turtle` is their union; with `refusedPart`, it is that one part, which failed its check
   * on arrival (the series it belonged to is dropped).
   */
  | { kind: "contribution"; sessionId: SessionId; from: Participant; turtle: string; check: ContributionCheck; parts?: ContributionParts }
  /**
   * `verification`: the check of the plan the shell had the model worker make, when the model
   * has a formal summary and the session takes proposals; the core records it as it is.
   * Absent in logs written before plans were checked in the worker.
   */
  | { kind: "proposal"; sessionId: SessionId; from: Participant; solution: SolutionBody; verification?: Verification }
  | { kind: "analysis"; sessionId: SessionId; version: number; outcome: AnalysisOutcome }
  /** A model worker began the analysis of `version` (its time budget starts now). */
  | { kind: "analysis-started"; sessionId: SessionId; version: number }
  /** `room`: the room when a debate's deadline fired, to fall back on. */
  | { kind: "deadline"; sessionId: SessionId; at: number; room?: RoomView }
  | { kind: "cancel"; sessionId: SessionId; by: Requester }
  /**
   * From now on, the room this session lives in identifies occupants on `basis` (the shell
   * saw it change, e.g. a room re-created after a server restart shows occupant ids where it
   * showed real JIDs). A change of basis is not a change of person: an agent's earlier
   * contribution or proposal may then be re-bound to its identity on the new basis.
   * `room`: the room whose basis changed, for the log.
   */
  | { kind: "identity-basis"; sessionId: SessionId; basis: IdentityBasis; room?: string }
  /**
   * The coordinator was away from the session's rooms from `from` to `to` (a restart, a
   * takeover by another instance, a lost connection), by its own clock, and the shell cannot
   * be sure it was given back everything agents said meanwhile: `kept` says whether the room
   * is known to keep agents' protocol messages without a body (the project's server module
   * says so), `reachedBack` whether what the room gave back reached the last message taken
   * in before. A window open then is asked again and extended (absence.ts).
   */
  | { kind: "absence"; sessionId: SessionId; from: number; to: number; kept: boolean; reachedBack: boolean; room?: string };

/** The protocol messages the core asks the shell to broadcast in the primary room. */
export type Broadcast =
  | {
      type: "ModelContributionRequest";
      sessionId: SessionId;
      problemDescription: string;
      round: number;
      requestedAgents: string[] | null;
      issues: Record<string, string[]> | null;
      /** The same round asked again after an absence of the coordinator (answers already in stand). */
      repeat?: true;
    }
  | {
      type: "ModelValidationResult";
      sessionId: SessionId;
      round: number;
      conforms: boolean;
      summary: string;
      results: Array<{ severity: Severity; focusNode: string; path?: string; message: string; agent?: string; agents?: string[] }>;
      /** How many results were left out to keep the message bounded. */
      omitted: number;
    }
  | {
      type: "SolutionRequest";
      sessionId: SessionId;
      model: string;
      /** 1 for the first request; each repair round adds one. */
      round?: number;
      /** Repair round: the proposers asked to repair. */
      requestedAgents?: string[];
      /** Repair round: for each, what failed (step, expression, state). */
      issues?: Record<string, string[]>;
      /** The same request asked again after an absence of the coordinator (proposals already in stand). */
      repeat?: true;
    }
  | {
      type: "SessionComplete";
      sessionId: SessionId;
      status: CompletionStatus;
      solutions: Proposal[];
      summary: string;
      reason: string | undefined;
    };

/**
 * What a step asks the shell to do, in order. The core does nothing itself: the shell sends,
 * schedules, runs analyses and logs; a replay may leave any of it out.
 */
export type Effect =
  /** A protocol message to the primary room, with a one-line body for people where one is due. */
  | { kind: "broadcast"; message: Broadcast; body: string | undefined }
  /**
   * A short answer for one participant. `privately`: for an agent, as a private message
   * (existing agents take a room line starting with their nick as a command); otherwise
   * said in the primary room as `nick: text`, which is how people are addressed.
   */
  | { kind: "tell"; nick: string; text: string; privately?: true; room?: string }
  /**
   * Human text for the primary room (or the log room for full detail), said with the status
   * mark (room-lines.ts); `forChairs`: the debate invitation, which Chairs must read, without it.
   */
  | { kind: "say"; room: "primary" | "log"; text: string; forChairs?: true }
  /** Run parse + merge + validate off the event loop and answer with an `analysis` input. */
  | { kind: "analyse"; sessionId: SessionId; version: number; problem: string; contributions: Array<{ agent: string; turtle: string }> }
  /** Call back with a `deadline` input at `at` (replaces the session's previous deadline). */
  | { kind: "schedule"; sessionId: SessionId; at: number }
  | { kind: "unschedule"; sessionId: SessionId }
  /** The session is complete; the shell may archive it. */
  | { kind: "finished"; sessionId: SessionId }
  | { kind: "log"; level: "debug" | "info" | "warn"; msg: string; data: Record<string, unknown> };

/** Every session the core knows, by id; read an id from outside with `sessionIn` (step.ts), never `byId[id]`. */
export interface Sessions {
  byId: Record<SessionId, Session>;
}

/** The result of `step`: the next state (the same object when nothing changed) and the effects to carry out. */
export interface StepResult {
  state: Sessions;
  effects: Effect[];
}

/** One session's step: the session after it (undefined when there is none), and what to do. */
export interface SessionStepResult {
  session: Session | undefined;
  effects: Effect[];
}
