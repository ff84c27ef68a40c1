/** One person cannot take every session slot. */
import pino from "pino";
import { describe, expect, it } from "vitest";
import { SessionHost, type ModelService } from "../../src/host/session-host.js";
import type { Participant } from "../../src/session/types.js";

const NO_MODELS: ModelService = { check: () => Promise.reject(new Error("unused")), analyse: () => Promise.reject(new Error("unused")), verify: () => Promise.reject(new Error("unused")) };

function host(): SessionHost {
  return new SessionHost({
    render: { room: "room@conference.localhost", logRoom: undefined, maxStanzaBytes: 64 * 1024 },
    settings: { contributionTimeoutMs: 60_000, validationTimeoutMs: 5_000, reasoningTimeoutMs: 60_000, maxFixRounds: 1, maxTriplesPerContribution: 100, debateTimeoutMs: 60_000 },
    maxLiveSessions: 10,
    maxLiveSessionsPerPerson: 2,
    models: NO_MODELS,
    outlet: { send: async () => undefined },
    log: pino({ level: "silent" }),
    now: () => 1_000,
  });
}

describe("live sessions per person", () => {
  it("the cap counts the identity, not the nick; others can still start; a finished one frees a slot", async () => {
    const h = host();
    const eve: Participant = { nick: "eve", jid: undefined, identity: "occupant:EVE" };
    const first = h.start("p1", eve, { expectedAgents: [] });
    h.start("p2", { ...eve, nick: "eve2" }, { expectedAgents: [] });
    const third = h.start("p3", { ...eve, nick: "eve3" }, { expectedAgents: [] });
    expect(third.ok).toBe(false);
    expect(!third.ok && third.reason).toMatch(/^you already have 2 sessions running .*the most one person may/);
    expect(h.start("p4", { nick: "eve", jid: undefined, identity: "occupant:OTHER" }, { expectedAgents: [] }).ok).toBe(true);
    if (first.ok) h.cancel(first.sessionId, eve);
    expect(h.start("p5", eve, { expectedAgents: [] }).ok).toBe(true);
    await h.close();
  });
});
