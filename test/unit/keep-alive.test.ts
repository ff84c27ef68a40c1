import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Periodic, selfPingVerdict, type PingAnswer } from "../../src/xmpp/keep-alive.js";

/** The RFC 6120 stanza error conditions, and some a server might invent. */
const CONDITIONS = [
  "bad-request", "conflict", "feature-not-implemented", "forbidden", "gone", "internal-server-error", "item-not-found",
  "jid-malformed", "not-acceptable", "not-allowed", "not-authorized", "policy-violation", "recipient-unavailable",
  "redirect", "registration-required", "remote-server-not-found", "remote-server-timeout", "resource-constraint",
  "service-unavailable", "subscription-required", "undefined-condition", "unexpected-request",
];
const IN = new Set(["service-unavailable", "feature-not-implemented"]);
const UNREACHABLE = new Set(["remote-server-not-found", "remote-server-timeout"]);

describe("selfPingVerdict: what the answer to a self-ping (XEP-0410 3.2) says", () => {
  it("a result is in; no answer, or none possible, is unknown", () => {
    expect(selfPingVerdict({ kind: "result" })).toBe("in");
    expect(selfPingVerdict({ kind: "timeout" })).toBe("unknown");
    expect(selfPingVerdict({ kind: "offline" })).toBe("unknown");
  });

  it("an error is in where it shows the ping reached us, unknown where the room is out of reach, and out otherwise", () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...CONDITIONS), fc.string({ maxLength: 30 })), (condition) => {
        const answer: PingAnswer = { kind: "error", condition };
        const expected = IN.has(condition) ? "in" : UNREACHABLE.has(condition) ? "unknown" : "out";
        expect(selfPingVerdict(answer)).toBe(expected);
      }),
    );
    // What Prosody answers a ping to an occupant JID from someone who is not an occupant, and one to a room that is gone.
    expect(selfPingVerdict({ kind: "error", condition: "not-acceptable" })).toBe("out");
    expect(selfPingVerdict({ kind: "error", condition: "item-not-found" })).toBe("out");
  });
});

describe("Periodic: a check every so often, never two at once", () => {
  afterEach(() => void vi.useRealTimers());

  it("runs the check each period, skips a period while the last check still runs, and stops", async () => {
    vi.useFakeTimers();
    let running = 0;
    let most = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    const periodic = new Periodic(async () => {
      runs++;
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => (release = resolve));
      running--;
    }, 100);
    periodic.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(1);
    // Three periods pass while the first check waits: none starts beside it.
    await vi.advanceTimersByTimeAsync(300);
    expect(runs).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
    expect(most).toBe(1);
    release();
    periodic.stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(2);
  });

  it("stop waits for the check under way, so a shutdown does not race it", async () => {
    vi.useFakeTimers();
    let release: () => void = () => undefined;
    let finished = false;
    const periodic = new Periodic(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
    }, 100);
    periodic.start();
    await vi.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(50);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);
  });

  it("a check that throws does not stop the next one", async () => {
    vi.useFakeTimers();
    let runs = 0;
    const periodic = new Periodic(async () => {
      runs++;
      throw new Error("no answer");
    }, 50);
    periodic.start();
    await vi.advanceTimersByTimeAsync(200);
    periodic.stop();
    expect(runs).toBe(4);
  });
});
