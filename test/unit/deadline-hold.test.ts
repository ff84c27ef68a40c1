/** Deadlines wait while the coordinator catches up on a room (host/deadline-timers.ts). */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeadlineTimers } from "../../src/host/deadline-timers.js";

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
});
afterEach(() => vi.useRealTimers());

function timers(maxHoldMs = 120_000) {
  const fired: Array<[string, number]> = [];
  const t = new DeadlineTimers(() => Date.now(), (id, at) => fired.push([id, at]), maxHoldMs);
  return { t, fired };
}

describe("held deadlines", () => {
  it("fire as usual when not held", () => {
    const { t, fired } = timers();
    t.schedule("a", 1000);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([["a", 1000]]);
  });

  it("while held, wait; fireDue fires those due by an instant, release the rest, oldest first", () => {
    const { t, fired } = timers();
    t.hold();
    t.schedule("late", 3000);
    t.schedule("early", 1000);
    t.schedule("middle", 2000);
    vi.advanceTimersByTime(5000);
    expect(fired).toEqual([]);
    t.fireDue(2000);
    expect(fired).toEqual([["early", 1000], ["middle", 2000]]);
    t.release();
    expect(fired).toEqual([["early", 1000], ["middle", 2000], ["late", 3000]]);
    t.release();
    expect(fired).toHaveLength(3);
  });

  it("a held deadline that is cancelled or replaced never fires", () => {
    const { t, fired } = timers();
    t.hold();
    t.schedule("a", 1000);
    t.schedule("b", 1000);
    vi.advanceTimersByTime(1500);
    t.cancel("a");
    t.schedule("b", 9000);
    t.release();
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(9000);
    expect(fired).toEqual([["b", 9000]]);
  });

  it("is held no longer than its bound, even if never released", () => {
    const { t, fired } = timers(10_000);
    t.hold();
    t.schedule("a", 1000);
    vi.advanceTimersByTime(10_999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([["a", 1000]]);
  });
});

describe("held deadlines set in the past", () => {
  it("a deadline set while held at an instant already past waits at once, for the next fireDue", () => {
    const { t, fired } = timers();
    vi.setSystemTime(5000);
    t.hold();
    t.schedule("a", 4000);
    // No turn of the event loop: a caught-up answer set it, the next one is about to be taken in.
    t.fireDue(4500);
    expect(fired).toEqual([["a", 4000]]);
  });

  it("fireDue also fires an armed deadline whose instant has passed but whose timer has not run", () => {
    const { t, fired } = timers();
    t.schedule("a", 1000);
    t.hold();
    vi.setSystemTime(2000); // the clock moved; the timer has not had its turn
    t.fireDue(1500);
    expect(fired).toEqual([["a", 1000]]);
  });
});
