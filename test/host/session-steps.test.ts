/** The host's one stream of session steps: every applied input, in order, with the session around it. */
import { describe, expect, it } from "vitest";
import type { SessionStep } from "../../src/host/session-host.js";
import { testHost } from "../support/test-host.js";
import type { Participant } from "../../src/session/types.js";

describe("session steps", () => {
  it("emits each applied input with the session before and after, and a failing listener harms no one", async () => {
    const h = testHost();
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
