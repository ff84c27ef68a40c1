/** The host's one stream of session steps: every applied input, in order, with the session around it. */
import pino from "pino";
import { describe, expect, it } from "vitest";
import { SessionHost, type ModelService, type SessionStep } from "../../src/shell/session-host.js";
import type { Participant } from "../../src/session/types.js";

const NO_MODELS: ModelService = { check: () => Promise.reject(new Error("unused")), analyse: () => Promise.reject(new Error("unused")) };

function host(): SessionHost {
  return new SessionHost({
    render: { room: "room@conference.localhost", logRoom: undefined, maxStanzaBytes: 64 * 1024 },
    settings: { contributionTimeoutMs: 60_000, validationTimeoutMs: 5_000, reasoningTimeoutMs: 60_000, maxFixRounds: 1, maxTriplesPerContribution: 100, debateTimeoutMs: 60_000 },
    maxLiveSessions: 10,
    models: NO_MODELS,
    outlet: { send: async () => undefined },
    log: pino({ level: "silent" }),
    now: () => 1_000,
  });
}

describe("session steps", () => {
  it("emits each applied input with the session before and after, and a failing listener harms no one", async () => {
    const h = host();
    const steps: SessionStep[] = [];
    h.onStep(() => {
      throw new Error("a broken listener");
    });
    const stop = h.onStep((s) => steps.push(s));
    const alice: Participant = { nick: "alice", jid: undefined, identity: "occupant:ALICE" };
    const started = h.start("Plan a picnic", alice, { expectedAgents: [] });
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    h.cancel(started.sessionId, alice);
    expect(steps.map((s) => s.input.kind)).toEqual(["start", "cancel"]);
    expect(steps[0]?.before).toBeUndefined();
    expect(steps[0]?.after?.problem).toBe("Plan a picnic");
    expect(steps[1]?.before?.phase).toBe(steps[0]?.after?.phase);
    expect(steps[1]?.after?.phase).toBe("complete");
    expect(steps[1]?.effects.some((e) => e.kind === "finished")).toBe(true);
    stop();
    h.start("Another", alice, { expectedAgents: [] });
    expect(steps).toHaveLength(2);
    await h.close();
  });
});
