/**
 * The session host and its model workers, made from the configuration: the settings the
 * session core runs by, the limits on live sessions and contributions in parts, and where
 * the host's messages leave.
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import { defaultWorkerCount, ModelWorker } from "../model-workers/model-worker.js";
import { partRefusalReason, type RefusalReason } from "../ops/refusals.js";
import type { AgentChooser } from "../agent-choice/agent-chooser.js";
import { partsLimits } from "../host/contribution-parts.js";
import { renderContextOf } from "../host/outgoing.js";
import { SessionHost } from "../host/session-host.js";
import { embeddedStore, type CoordinatorStore } from "./coordinator-store.js";
import type { XmppConnection } from "../xmpp/connection.js";

/** What the host and its workers are made from. */
export interface HostParts {
  config: Config;
  log: Logger;
  now: () => number;
  store: CoordinatorStore | undefined;
  connection: XmppConnection;
  /** Asked lazily: the chooser may be made after the host. */
  chooser: () => AgentChooser;
  refused: (reason: RefusalReason) => void;
}

/** The model workers, sized and bounded by the configuration. */
export function modelWorkerOf({ config, store, refused }: HostParts): ModelWorker {
  const embedded = embeddedStore(store);
  return new ModelWorker({
    shapesPath: config.mfr.shapesPath,
    timeoutMs: config.mfr.validationTimeoutMs,
    workers: config.mfr.modelWorkers ?? defaultWorkerCount(),
    maxQueued: config.limits.maxQueuedModelJobs,
    onQueueFull: () => refused("workers-busy"),
    // A read-only store takes no blobs (isReadonly): the texts then stay inline, as before.
    // So does the shared database: its writes are the owner's, fenced, on the main thread.
    ...(embedded && !embedded.isReadonly ? { storePath: embedded.path } : {}),
  });
}

/** The session host over those workers, sending on the room connection. */
export function sessionHostOf(parts: HostParts, models: ModelWorker): SessionHost {
  const { config, log, now, store, connection, refused } = parts;
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
    outlet: {
      send: async (stanza, options) => {
        await connection.send(stanza, options);
      },
      settled: () => connection.settled(),
    },
    log,
    now,
    ...(store ? { journal: store } : {}),
    deadlineRoom: (session) => parts.chooser().deadlineRoom(session),
    parts: partsLimits(config.limits.maxTriplesPerContribution, config.limits.maxInboundBytes),
    onPartRefused: (refusal) => refused(partRefusalReason(refusal)),
  });
}
