/**
 * host/retention.ts: the archive is pruned once at start and then every hour (by the
 * configured age, in days, and count, as of the clock's now), never after `stop`; a failed
 * prune is logged as an error and tried again at the next hour; the timer never keeps the
 * process alive.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionStore } from "../../src/store/index.js";
import { Retention } from "../../src/host/retention.js";
import { keptLog } from "../inbound/helpers.js";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

type PruneArgs = { maxAgeMs: number; maxCount: number; now: number };

/** A store whose prune records its arguments and answers from `results` (a function throws). */
function fakeStore(results: Array<number | (() => never)> = []) {
  const asked: PruneArgs[] = [];
  const store = {
    prune: (args: PruneArgs) => {
      asked.push(args);
      const r = results.shift() ?? 0;
      return typeof r === "function" ? r() : r;
    },
  } as unknown as SessionStore;
  return { store, asked };
}

describe("Retention: prunes at start, then every hour, until stop", () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it("prunes at once at start, with the configured age in ms and count, as of now", () => {
    const { store, asked } = fakeStore();
    const r = new Retention(store, { maxAgeDays: 7, maxCount: 50 }, keptLog().log, () => Date.now());
    r.start();
    expect(asked).toEqual([{ maxAgeMs: 7 * DAY, maxCount: 50, now: 1_000_000 }]);
    r.stop();
  });

  it("prunes again each hour, not before, with the clock's time then", () => {
    const { store, asked } = fakeStore();
    const r = new Retention(store, { maxAgeDays: 1, maxCount: 3 }, keptLog().log, () => Date.now());
    r.start();
    vi.advanceTimersByTime(HOUR - 1);
    expect(asked).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(asked).toHaveLength(2);
    expect(asked[1]?.now).toBe(1_000_000 + HOUR);
    vi.advanceTimersByTime(5 * HOUR);
    expect(asked).toHaveLength(7);
    r.stop();
  });

  it("prunes no more after stop", () => {
    const { store, asked } = fakeStore();
    const r = new Retention(store, { maxAgeDays: 1, maxCount: 3 }, keptLog().log, () => Date.now());
    r.start();
    vi.advanceTimersByTime(HOUR);
    r.stop();
    vi.advanceTimersByTime(10 * HOUR);
    expect(asked).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stop before start does nothing", () => {
    const { store, asked } = fakeStore();
    new Retention(store, { maxAgeDays: 1, maxCount: 3 }, keptLog().log, () => Date.now()).stop();
    expect(asked).toEqual([]);
  });

  it("the timer does not keep the process alive", () => {
    const { store } = fakeStore();
    const r = new Retention(store, { maxAgeDays: 1, maxCount: 3 }, keptLog().log, () => Date.now());
    r.start();
    const timer = (r as unknown as { timer: NodeJS.Timeout }).timer;
    expect(timer.hasRef()).toBe(false);
    r.stop();
  });

  it("says what it pruned (only when something went), logs a failure as an error and tries again at the next hour", () => {
    const { log, lines } = keptLog();
    const { store, asked } = fakeStore([
      0,
      () => {
        throw new Error("disk full");
      },
      4,
    ]);
    const r = new Retention(store, { maxAgeDays: 1, maxCount: 3 }, log, () => Date.now());
    expect(() => r.start()).not.toThrow();
    expect(lines).toEqual([]);
    expect(() => vi.advanceTimersByTime(HOUR)).not.toThrow();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[50, "pruning the archive failed"]]);
    vi.advanceTimersByTime(HOUR);
    expect(asked).toHaveLength(3);
    expect(lines[1]).toMatchObject({ level: 30, msg: "archived sessions pruned", pruned: 4 });
    r.stop();
  });
});
