/**
 * How the coordinator's parts are made from the configuration: the agent chooser, the session
 * host sending on the room connection, and the checks that keep the room connection honest.
 * Each takes the parts it needs as they are, so nothing made here calls back into the entry.
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import type { OurRooms } from "../config/our-rooms.js";
import { partRefusalReason, type RefusalReason } from "../ops/refusals.js";
import { AgentChooser } from "../agent-choice/agent-chooser.js";
import type { BatchedEvidence } from "../agent-choice/evidence-batch.js";
import { partsLimits } from "../host/contribution-parts.js";
import type { CoordinatorStore } from "../host/coordinator-store.js";
import type { ModelService } from "../host/model-service.js";
import { renderContextOf } from "../host/outgoing.js";
import { SessionHost } from "../host/session-host.js";
import type { XmppConnection } from "../xmpp/connection.js";
import { DEFAULT_KEEP_ALIVE, Periodic, type KeepAliveTiming } from "../xmpp/keep-alive.js";
import type { Rooms } from "../xmpp/rooms.js";

/** The agent chooser: the catalog, the evidence it learns from, and disco#info of the primary room's occupants. */
export function chooserOf(config: Config, log: Logger, now: () => number, connection: XmppConnection, ourRooms: OurRooms, evidence: BatchedEvidence | undefined): AgentChooser {
  return new AgentChooser({
    agentsDir: config.agentsDir,
    ownProfile: config.profilePath,
    ownNick: config.nick,
    chairNick: config.mfr.chairNick,
    enableDebate: config.mfr.enableDebate,
    log,
    now,
    discover: (nick) => connection.discoFeatures(`${ourRooms.primary}/${nick}`),
    ...(evidence ? { journal: evidence } : {}),
  });
}

/** What the session host is made from. */
export interface HostParts {
  config: Config;
  log: Logger;
  now: () => number;
  store: CoordinatorStore | undefined;
  connection: XmppConnection;
  models: ModelService;
  chooser: AgentChooser;
  refused: (reason: RefusalReason) => void;
}

/** The session host over the model workers, sending on the room connection. */
export function sessionHostOf({ config, log, now, store, connection, models, chooser, refused }: HostParts): SessionHost {
  return new SessionHost({
    render: renderContextOf(config),
    settings: {
      contributionTimeoutMs: config.mfr.contributionTimeoutMs,
      validationTimeoutMs: config.mfr.validationTimeoutMs,
      reasoningTimeoutMs: config.mfr.reasoningTimeoutMs,
      maxFixRounds: config.mfr.maxFixRounds,
      maxRepairRounds: config.mfr.maxRepairRounds,
      maxTriplesPerContribution: config.limits.maxTriplesPerContribution,
      debateTimeoutMs: config.mfr.debateTimeoutMs,
      quietPeriodMs: config.mfr.quietPeriodMs,
      validationClockStartsInWorker: true,
      awaitExpectedAgents: true,
    },
    maxLiveSessions: config.limits.maxLiveSessions,
    maxLiveSessionsPerPerson: config.limits.maxLiveSessionsPerPerson,
    models,
    // The room connection itself: what a step sends goes straight to it.
    outlet: connection,
    log,
    now,
    ...(store ? { journal: store } : {}),
    deadlineRoom: (session) => chooser.deadlineRoom(session),
    parts: partsLimits(config.limits.maxTriplesPerContribution, config.limits.maxInboundBytes),
    onPartRefused: (refusal) => refused(partRefusalReason(refusal)),
  });
}

/** The room connection's checks: the server answers, and every room still counts us; a socket found dead is dropped and reconnects, and every room is joined again then. */
export function roomChecksOf(connection: XmppConnection, rooms: Rooms, timing: Partial<KeepAliveTiming> | undefined): Periodic {
  const every = { ...DEFAULT_KEEP_ALIVE, ...timing };
  return new Periodic(async () => {
    if (await connection.probe(every.probeTimeoutMs)) await rooms.check(every);
  }, every.keepAliveMs);
}
