/**
 * A SessionHost for unit tests: the room and settings every such test uses, silent logs, no
 * network, a fixed clock; a test passes only what it is about.
 */
import pino from "pino";
import { SessionHost, type ModelService, type SessionHostOptions } from "../../src/host/session-host.js";

/** Model work a test does not expect: any call fails the step that made it. */
export const NO_MODELS: ModelService = { check: () => Promise.reject(new Error("unused")), analyse: () => Promise.reject(new Error("unused")), verify: () => Promise.reject(new Error("unused")) };

export function testHost(overrides: Partial<SessionHostOptions> = {}): SessionHost {
  return new SessionHost({
    render: { room: "room@conference.localhost", logRoom: undefined, maxStanzaBytes: 64 * 1024 },
    settings: { contributionTimeoutMs: 60_000, validationTimeoutMs: 5_000, reasoningTimeoutMs: 60_000, maxFixRounds: 1, maxTriplesPerContribution: 100, debateTimeoutMs: 60_000 },
    maxLiveSessions: 10,
    models: NO_MODELS,
    outlet: { send: async () => undefined },
    log: pino({ level: "silent" }),
    now: () => 1_000,
    ...overrides,
  });
}
