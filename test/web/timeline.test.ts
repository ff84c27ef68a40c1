/** Timelines come from session steps only: the live stream and a replay of the logged inputs give the same one. */
import { describe, expect, it } from "vitest";
import type { SessionStep } from "../../src/host/session-host.js";
import type { Participant } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import { stepsFromEvents } from "../../src/web/session-steps.js";
import { timelineOf } from "../../src/web/timeline.js";
import { testHost } from "../support/test-host.js";

describe("timeline", () => {
  it("is the same from the live steps and from the logged inputs replayed by the core", async () => {
    let now = 1_000;
    const logged: Array<{ input: Input; at: number }> = [];
    const host = testHost({ now: () => now });
    const steps: SessionStep[] = [];
    host.onStep((s) => {
      steps.push(s);
      logged.push({ input: s.input, at: s.at });
    });
    const alice: Participant = { nick: "alice", jid: undefined, identity: "occupant:ALICE" };
    const started = host.start("Plan a <b>picnic</b>", alice, { expectedAgents: [] });
    if (!started.ok) throw new Error(started.reason);
    now += 500;
    host.apply({ kind: "proposal", sessionId: started.sessionId, from: { nick: "early", jid: undefined }, solution: { success: true, message: "too soon" } });
    now += 500;
    host.cancel(started.sessionId, alice);
    await host.close();

    const live = steps.flatMap(timelineOf);
    expect(live.map((e) => e.kind)).toEqual(["request", "contribution-request", "proposal", "cancel", "complete"]);
    expect(live[0]?.text).toBe("alice started the session: Plan a <b>picnic</b>");
    expect(live[2]?.text).toContain("not taken");
    expect(live.at(-1)?.text).toMatch(/^session cancelled/);
    expect(stepsFromEvents(logged).flatMap(timelineOf)).toEqual(live);
  });
});
