import { describe, expect, it } from "vitest";
import { ErrorBoundary } from "../../src/inbound/error-boundary.js";
import type { InboundStage } from "../../src/ops/inbound-stages.js";
import { OperationsMetrics } from "../../src/ops/metrics.js";
import { xml } from "../../src/xmpp/stanza.js";
import { keptLog, keptOutlet } from "./helpers.js";

const stanza = xml("message", { from: "room@muc.example/alice", id: "m-42", type: "groupchat" }, xml("body", {}, "mfr-list"));

function boundary() {
  const { log, lines } = keptLog();
  const counted: InboundStage[] = [];
  return { boundary: new ErrorBoundary({ log, count: (stage) => counted.push(stage) }), lines, counted };
}

describe("the inbound error boundary", () => {
  it("counts what a stage throws under the stage, logs it with the stanza's id, and lets the next message through", async () => {
    const { boundary: b, lines, counted } = boundary();
    const ok = await b.run(
      () => ({ stage: "route", stanza, line: "room-connection" }),
      async () => {
        throw new Error("boom");
      },
    );
    expect(ok).toBe(false);
    expect(counted).toEqual(["route"]);
    const error = lines.find((l) => l.level === 50);
    expect(error).toMatchObject({ msg: "failed to handle a message", stage: "route", id: "m-42", from: "room@muc.example/alice" });
    expect((error?.err as { message: string }).message).toBe("boom");
    // The process goes on: the next message is handled.
    let handled = false;
    expect(await b.run(() => ({ stage: "route", stanza, line: "room-connection" }), async () => void (handled = true))).toBe(true);
    expect(handled).toBe(true);
    expect(counted).toEqual(["route"]);
  });

  it("answers nothing itself: a stage that replied and then threw leaves exactly its one reply", async () => {
    const { boundary: b } = boundary();
    const outlet = keptOutlet();
    await b.run(
      () => ({ stage: "identify", stanza, line: "room-connection" }),
      async () => {
        await outlet.to({ kind: "room", room: "room@muc.example" }, "Only occupants of the room can do that.");
        throw new Error("after the reply");
      },
    );
    await b.run(
      () => ({ stage: "admit", stanza, line: "room-connection" }),
      async () => {
        throw new Error("before any reply");
      },
    );
    expect(outlet.said).toHaveLength(1);
  });

  it("catches a synchronous throw too, and names the line a message came on", async () => {
    const { boundary: b, lines, counted } = boundary();
    expect(b.guard(() => ({ stage: "dispatch", stanza }), () => JSON.parse("{"))).toBe(false);
    await b.run(() => ({ stage: "read", stanza, line: "direct-line" }), () => Promise.reject(new Error("rejected")));
    expect(counted).toEqual(["dispatch", "read"]);
    expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual(["failed to handle a stanza", "failed to handle a message on the direct line"]);
  });

  it("is counted in mfr_inbound_errors_total, by stage, every stage shown from the start", async () => {
    const metrics = new OperationsMetrics({ liveSessions: () => 0, queuedModelJobs: () => 0, connected: () => true }, { processMetrics: false });
    const { log } = keptLog();
    const b = new ErrorBoundary({ log, count: (stage) => metrics.inboundError(stage) });
    await b.run(() => ({ stage: "identify", stanza, line: "room-connection" }), () => Promise.reject(new Error("x")));
    const text = await metrics.text();
    expect(text).toContain('mfr_inbound_errors_total{stage="identify"} 1');
    expect(text).toContain('mfr_inbound_errors_total{stage="route"} 0');
  });
});
