import { describe, expect, it } from "vitest";
import { SessionStore } from "../../src/store/session-store.js";
import { T0, cancel, completedSession, start, tempDir } from "./helpers.js";

const MINUTE = 60_000;

/** Five archived sessions completed 10..50 minutes before `now`, each with events and an artefact, plus one live session. */
function populated(): { store: SessionStore; now: number } {
  const store = SessionStore.open(tempDir());
  const now = T0 + 60 * MINUTE;
  for (let i = 1; i <= 5; i++) {
    const id = `old-${i}`;
    const completedAt = now - (60 - i * 10) * MINUTE; // old-1 completed 50 min ago … old-5 10 min ago
    store.append(id, start(id), completedAt - 1000);
    store.append(id, cancel(id), completedAt);
    store.saveArtefact(id, "validation", "{}");
    store.archive(completedSession(id, completedAt - 1000, completedAt));
  }
  // Live, and started long before everything else: age must not matter for live sessions.
  store.append("live", start("live"), T0 - 24 * 60 * MINUTE);
  store.saveArtefact("live", "model-trig", "");
  return { store, now };
}

describe("retention", () => {
  it("prunes archived sessions older than maxAgeMs, with their events and artefacts", () => {
    const { store, now } = populated();
    expect(store.prune({ maxAgeMs: 25 * MINUTE, now })).toBe(3);
    expect(store.listArchived(10).map((s) => s.id)).toEqual(["old-5", "old-4"]);
    expect(store.eventsOf("old-1")).toEqual([]);
    expect(store.artefacts("old-1")).toEqual([]);
    expect(store.eventsOf("old-5")).toHaveLength(2);
    expect(store.artefacts("old-5")).toHaveLength(1);
    expect(store.liveEvents().map((e) => e.sessionId)).toEqual(["live"]);
    expect(store.artefacts("live")).toHaveLength(1);
    store.close();
  });

  it("keeps only the newest maxCount archived sessions", () => {
    const { store, now } = populated();
    expect(store.prune({ maxCount: 2, now })).toBe(3);
    expect(store.listArchived(10).map((s) => s.id)).toEqual(["old-5", "old-4"]);
    expect(store.countArchived()).toBe(2);
    expect(store.liveEvents().map((e) => e.sessionId)).toEqual(["live"]);
    store.close();
  });

  it("never removes live sessions, even with both limits at zero", () => {
    const { store, now } = populated();
    expect(store.prune({ maxAgeMs: 0, maxCount: 0, now })).toBe(5);
    expect(store.countArchived()).toBe(0);
    expect(store.liveEvents().map((e) => [e.sessionId, e.input.kind])).toEqual([["live", "start"]]);
    expect(store.artefacts("live")).toHaveLength(1);
    store.close();
  });

  it("leaves an archived id alone once it has live events again", () => {
    const store = SessionStore.open(tempDir());
    store.archive(completedSession("reused", T0));
    store.append("reused", start("reused"), T0 + 10 * MINUTE);
    expect(store.prune({ maxCount: 0, now: T0 + 20 * MINUTE })).toBe(0);
    expect(store.liveEvents()).toHaveLength(1);
    store.close();
  });

  it("does nothing without limits and rejects nonsense limits", () => {
    const { store, now } = populated();
    expect(store.prune({ now })).toBe(0);
    expect(() => store.prune({ maxCount: -1, now })).toThrow(RangeError);
    expect(() => store.prune({ maxAgeMs: Number.NaN, now })).toThrow(RangeError);
    expect(store.countArchived()).toBe(5);
    store.close();
  });
});
