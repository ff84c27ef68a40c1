import { describe, expect, it } from "vitest";
import { FloodGuard } from "../../src/inbound/flood-guard.js";

describe("FloodGuard", () => {
  it("throttles a sender past its rate, tells it once, and lets others through", () => {
    const guard = new FloodGuard(10);
    const t = 1_000_000;
    for (let i = 0; i < 10; i++) expect(guard.admit("flooder", t)).toBe("ok");
    expect(guard.admit("flooder", t)).toBe("throttled-first");
    expect(guard.admit("flooder", t)).toBe("throttled");
    expect(guard.admit("someone-else", t)).toBe("ok");
  });

  it("refills over time", () => {
    const guard = new FloodGuard(60);
    for (let i = 0; i < 60; i++) guard.admit("a", 0);
    expect(guard.admit("a", 0)).toBe("throttled-first");
    expect(guard.admit("a", 1000)).toBe("ok"); // one token per second at 60/min
  });

  it("keeps its table of senders bounded", () => {
    const guard = new FloodGuard(1, 3);
    guard.admit("a", 0);
    expect(guard.admit("a", 0)).toBe("throttled-first");
    guard.admit("b", 0);
    guard.admit("c", 0);
    guard.admit("d", 0); // evicts "a"
    expect(guard.admit("a", 0)).toBe("ok");
  });

  it("time that runs backwards refills nothing, and does not take tokens away", () => {
    const guard = new FloodGuard(2);
    expect(guard.admit("a", 60_000)).toBe("ok");
    // An earlier instant (a message the room stamped before): no refill, and one token left.
    expect(guard.admit("a", 1_000)).toBe("ok");
    expect(guard.admit("a", 2_000)).toBe("throttled-first");
    // Refills count from the latest instant seen.
    expect(guard.admit("a", 90_000)).toBe("ok");
  });
});
