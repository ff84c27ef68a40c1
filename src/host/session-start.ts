/**
 * How a session begins: whether it may start now, and the start input the core is given.
 *
 * The rules it keeps: at most `maxLiveSessions` sessions run at once, and at most
 * `maxLiveSessionsPerPerson` of them started by one person (the same identity, as
 * session/identity.ts decides); a start beyond either is refused with a reason, not queued.
 */
import { sameParticipant } from "../session/identity.js";
import type { Participant, RoomView, Session, SessionSettings } from "../session/types.js";
import type { ChooseAgents, Input } from "../session/step-io.js";

/** How a session begins: who is expected, and how agents are chosen first (see the core's start input). */
export interface SessionPlan {
  expectedAgents: string[];
  /** Agents known to answer SolutionRequests (they proposed before); null when unknown. */
  expectedProposers?: string[] | null;
  /** Agents that propose without modelling: the solution window waits for them too. */
  expectedSolvers?: string[];
  requestedAgents?: string[] | null;
  approvalRequired?: string[];
  choose?: (sessionId: string) => ChooseAgents;
  /** The room as the shell sees it now (who may be asked, and why each is taken for an agent). */
  room?: RoomView;
}

/** The caps on live sessions (SessionHostOptions). */
export interface StartLimits {
  maxLiveSessions: number;
  maxLiveSessionsPerPerson?: number;
}

/** Why `by` may not start a session while `live` are running; undefined when they may. */
export function startRefusal(live: readonly Session[], by: Participant, limits: StartLimits): string | undefined {
  if (live.length >= limits.maxLiveSessions) {
    return `${limits.maxLiveSessions} sessions are already running; wait for one to finish or cancel one.`;
  }
  const perPerson = limits.maxLiveSessionsPerPerson;
  const own = live.filter((s) => sameParticipant(s.startedBy, by));
  if (perPerson !== undefined && own.length >= perPerson) {
    return `you already have ${own.length} sessions running (${own.map((s) => s.id).join(", ")}), the most one person may; wait for one to finish or cancel one.`;
  }
  return undefined;
}

/** The core's start input for a session of `plan`: only what the plan says is set. */
export function startInputOf(sessionId: string, problem: string, by: Participant, settings: SessionSettings, plan: SessionPlan): Input {
  return {
    kind: "start",
    sessionId,
    problem,
    by,
    settings,
    expectedAgents: plan.expectedAgents,
    requestedAgents: plan.requestedAgents ?? null,
    ...(plan.expectedProposers !== undefined ? { expectedProposers: plan.expectedProposers } : {}),
    ...(plan.expectedSolvers?.length ? { expectedSolvers: plan.expectedSolvers } : {}),
    ...(plan.choose ? { choose: plan.choose(sessionId) } : {}),
    ...(plan.approvalRequired?.length ? { approvalRequired: plan.approvalRequired } : {}),
    ...(plan.room ? { room: plan.room } : {}),
  };
}
