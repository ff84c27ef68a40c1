/** Agent evidence written in batches: the newest row per identity and kind, at most once per delay, and at stop. */
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import type { EvidenceRow } from "../../src/agent-choice/evidence.js";
import { BatchedEvidence, EVIDENCE_FLUSH_MS, type EvidenceStore } from "../../src/agent-choice/evidence-batch.js";

const row = (over: Partial<EvidenceRow> = {}): EvidenceRow => ({
  identity: "occupant:a",
  nick: "ada",
  kind: "protocol",
  firstSeen: 1,
  lastSeen: 1,
  contributions: 1,
  proposals: 0,
  ...over,
});

/** A store that keeps rows by identity and kind, as the upsert does, and counts its transactions. */
class FakeStore implements EvidenceStore {
  readonly rows = new Map<string, EvidenceRow>();
  transactions = 0;
  failing = false;
  loadEvidence(): EvidenceRow[] {
    return [...this.rows.values()];
  }
  saveEvidenceRows(rows: readonly EvidenceRow[]): void {
    if (this.failing) throw new Error("disk full");
    this.transactions++;
    for (const r of rows) this.rows.set(`${r.identity} ${r.kind}`, r);
  }
}

const silent = pino({ level: "silent" });

describe("BatchedEvidence", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes nothing at once, then the newest row per identity and kind in one transaction after the delay", () => {
    const store = new FakeStore();
    const batch = new BatchedEvidence(store, silent);
    for (let n = 1; n <= 10; n++) batch.saveEvidence(row({ lastSeen: n, contributions: n }));
    batch.saveEvidence(row({ identity: "occupant:b", nick: "bea" }));
    batch.saveEvidence(row({ kind: "consensus" }));
    expect(store.transactions).toBe(0);
    vi.advanceTimersByTime(EVIDENCE_FLUSH_MS - 1);
    expect(store.transactions).toBe(0);
    vi.advanceTimersByTime(1);
    expect(store.transactions).toBe(1);
    expect(store.rows.get("occupant:a protocol")).toEqual(row({ lastSeen: 10, contributions: 10 }));
    expect(store.rows.size).toBe(3);
    expect(batch.waiting).toBe(0);
  });

  it("flush writes what is pending now, and a flush with nothing pending writes nothing", () => {
    const store = new FakeStore();
    const batch = new BatchedEvidence(store, silent);
    batch.flush();
    expect(store.transactions).toBe(0);
    batch.saveEvidence(row());
    batch.flush();
    expect(store.transactions).toBe(1);
    // The timer went with the flush: no second write.
    vi.advanceTimersByTime(EVIDENCE_FLUSH_MS * 2);
    expect(store.transactions).toBe(1);
  });

  it("a failed write keeps the rows; the next change is written with them", () => {
    const store = new FakeStore();
    const batch = new BatchedEvidence(store, silent);
    batch.saveEvidence(row());
    store.failing = true;
    vi.advanceTimersByTime(EVIDENCE_FLUSH_MS);
    expect(batch.waiting).toBe(1);
    store.failing = false;
    batch.saveEvidence(row({ identity: "occupant:b" }));
    vi.advanceTimersByTime(EVIDENCE_FLUSH_MS);
    expect([...store.rows.keys()].sort()).toEqual(["occupant:a protocol", "occupant:b protocol"]);
    expect(batch.waiting).toBe(0);
  });

  it("does not keep the process alive", () => {
    const batch = new BatchedEvidence(new FakeStore(), silent);
    const unref = vi.spyOn(globalThis, "setTimeout");
    batch.saveEvidence(row());
    const timer = unref.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    unref.mockRestore();
  });

  it("whatever the order of changes, the store ends with each identity and kind's last row (property)", () => {
    const change = fc.record({ identity: fc.constantFrom("occupant:a", "occupant:b", "nick:c"), kind: fc.constantFrom("protocol", "consensus", "person" as const), lastSeen: fc.nat() });
    const step = fc.oneof(change.map((c) => ({ save: c })), fc.constant({ tick: true as const }));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const store = new FakeStore();
        const batch = new BatchedEvidence(store, silent);
        const last = new Map<string, EvidenceRow>();
        for (const s of steps) {
          if ("tick" in s) vi.advanceTimersByTime(EVIDENCE_FLUSH_MS);
          else {
            const r = row({ identity: s.save.identity, kind: s.save.kind, lastSeen: s.save.lastSeen });
            batch.saveEvidence(r);
            last.set(`${r.identity} ${r.kind}`, r);
          }
        }
        batch.flush();
        expect(store.rows).toEqual(last);
      }),
    );
  });
});
