/** The assembler of contributions in parts: order, senders kept apart, bounds, and the joined Turtle. */
import fc from "fast-check";
import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import { ContributionAssembler, joinParts, partsLimits, type PartsLimits } from "../../src/host/contribution-parts.js";
import { readPartNumber } from "../../src/protocol/part-number.js";

const WIDE: PartsLimits = { maxParts: 1000, maxBytesPerContribution: 1_000_000, maxPendingPerSender: 4, maxPending: 64, maxPendingBytes: 4_000_000 };
const alice = { sessionId: "s1", sender: "occupant:alice" };
const mallory = { sessionId: "s1", sender: "occupant:mallory" };
const partText = (who: string, k: number) => `<#${who}-${k}> a <#Thing> .\n`;

describe("readPartNumber", () => {
  it("reads k/n with 1 ≤ k ≤ n ≤ 1000, and says what is wrong otherwise", () => {
    expect(readPartNumber(" 2 / 5 ")).toEqual({ ok: true, part: { k: 2, n: 5 } });
    expect(readPartNumber("1/1000")).toEqual({ ok: true, part: { k: 1, n: 1000 } });
    expect(readPartNumber("1/1001")).toEqual({ ok: false, error: "a contribution may come in at most 1000 parts" });
    expect(readPartNumber("0/3")).toEqual({ ok: false, error: "the part number must be between 1 and 3" });
    expect(readPartNumber("4/3")).toEqual({ ok: false, error: "the part number must be between 1 and 3" });
    for (const bad of ["", "3", "a/b", "1/2/3", "-1/2", "1.5/2"]) expect(readPartNumber(bad).ok).toBe(false);
  });
});

describe("ContributionAssembler", () => {
  it("any arrival order of parts 2..n after 1/n assembles the same union, complete at the last part only", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }).chain((n) => fc.tuple(fc.constant(n), fc.shuffledSubarray(Array.from({ length: n - 1 }, (_, i) => i + 2), { minLength: n - 1, maxLength: n - 1 }))),
        ([n, order]) => {
          const a = new ContributionAssembler<string>(WIDE);
          const arrivals = [1, ...order];
          const outcomes = arrivals.map((k) => a.offer(alice, "alice", { k, n }, partText("alice", k)));
          expect(outcomes.slice(0, -1).every((o) => o.kind === "waiting")).toBe(true);
          const last = outcomes.at(-1);
          expect(last?.kind).toBe("complete");
          expect(last?.kind === "complete" && last.parts).toEqual(Array.from({ length: n }, (_, i) => partText("alice", i + 1)));
          expect(a.size).toBe(0);
          expect(a.bytes).toBe(0);
        },
      ),
    );
  });

  it("interleaved senders never mix: each completes with its own parts only, and a stranger's part never completes another's", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }).chain((n) =>
          fc.tuple(
            fc.constant(n),
            // Each sender's parts 2..n in some order, interleaved with the other's.
            fc.shuffledSubarray([...Array.from({ length: n - 1 }, (_, i) => ["alice", i + 2] as const), ...Array.from({ length: n - 1 }, (_, i) => ["bob", i + 2] as const)], {
              minLength: 2 * (n - 1),
              maxLength: 2 * (n - 1),
            }),
          ),
        ),
        ([n, order]) => {
          const a = new ContributionAssembler<string>(WIDE);
          const bob = { sessionId: "s1", sender: "occupant:bob" };
          const keys = { alice, bob };
          a.offer(alice, "alice", { k: 1, n }, partText("alice", 1));
          a.offer(bob, "bob", { k: 1, n }, partText("bob", 1));
          // A third occupant sends "part 2" of the same session: refused, nobody's series changes.
          expect(a.offer(mallory, "mallory", { k: 2, n }, partText("mallory", 2))).toMatchObject({ kind: "refused", reason: "no-first-part" });
          const completed: Record<string, string[]> = {};
          for (const [who, k] of order) {
            const o = a.offer(keys[who], who, { k, n }, partText(who, k));
            if (o.kind === "complete") completed[o.from] = o.parts;
          }
          expect(completed).toEqual({
            alice: Array.from({ length: n }, (_, i) => partText("alice", i + 1)),
            bob: Array.from({ length: n }, (_, i) => partText("bob", i + 1)),
          });
        },
      ),
    );
  });

  it("a new part 1/n starts over; a part sent again replaces its earlier copy", () => {
    const a = new ContributionAssembler<string>(WIDE);
    a.offer(alice, "alice", { k: 1, n: 3 }, "old 1");
    a.offer(alice, "alice", { k: 2, n: 3 }, "old 2");
    const restart = a.offer(alice, "alice", { k: 1, n: 2 }, "new 1");
    expect(restart).toMatchObject({ kind: "waiting", received: 1, n: 2, restarted: { received: 2, n: 3 } });
    a.offer(alice, "alice", { k: 2, n: 2 }, "first try");
    // Complete already: a further "2/2" finds no series open.
    expect(a.offer(alice, "alice", { k: 2, n: 2 }, "again")).toMatchObject({ kind: "refused", reason: "no-first-part" });
    a.offer(alice, "alice", { k: 1, n: 3 }, "a");
    a.offer(alice, "alice", { k: 3, n: 3 }, "c (first)");
    a.offer(alice, "alice", { k: 3, n: 3 }, "c");
    expect(a.offer(alice, "alice", { k: 2, n: 3 }, "b")).toMatchObject({ kind: "complete", parts: ["a", "b", "c"] });
    expect(a.bytes).toBe(0);
  });

  it("a part without its part 1, or with another n, refuses the series once; later parts are quiet until a new 1/n", () => {
    const a = new ContributionAssembler<string>(WIDE);
    expect(a.offer(alice, "alice", { k: 2, n: 3 }, "x")).toMatchObject({ kind: "refused", reason: "no-first-part", pending: undefined });
    expect(a.isQuiet(alice, { k: 3, n: 3 })).toBe(true);
    expect(a.offer(alice, "alice", { k: 3, n: 3 }, "x")).toMatchObject({ kind: "ignored" });
    expect(a.isQuiet(alice, { k: 1, n: 3 })).toBe(false);
    a.offer(alice, "alice", { k: 1, n: 3 }, "1");
    a.offer(alice, "alice", { k: 2, n: 3 }, "2");
    expect(a.offer(alice, "alice", { k: 3, n: 4 }, "3")).toMatchObject({ kind: "refused", reason: "other-count", pending: { received: 2, n: 3 } });
    expect(a.offer(alice, "alice", { k: 3, n: 3 }, "3")).toMatchObject({ kind: "ignored" });
    expect(a.bytes).toBe(0);
  });

  it("a part that failed its check refuses the series and says what was pending", () => {
    const a = new ContributionAssembler<string>(WIDE);
    a.offer(alice, "alice", { k: 1, n: 3 }, "1");
    expect(a.refuse(alice, "alice", 3)).toEqual({ sessionId: "s1", from: "alice", received: 1, n: 3 });
    expect(a.isQuiet(alice, { k: 3, n: 3 })).toBe(true);
    expect(a.bytes).toBe(0);
  });

  it("one series holds at most maxBytesPerContribution; past it the series is dropped", () => {
    const a = new ContributionAssembler<string>({ ...WIDE, maxBytesPerContribution: 100 });
    a.offer(alice, "alice", { k: 1, n: 3 }, "x".repeat(60));
    expect(a.offer(alice, "alice", { k: 2, n: 3 }, "y".repeat(50))).toMatchObject({ kind: "refused", reason: "too-large", pending: { received: 1, n: 3 } });
    expect(a.bytes).toBe(0);
    // Replacing a part counts its new size, not both.
    a.offer(alice, "alice", { k: 1, n: 2 }, "x".repeat(60));
    expect(a.offer(alice, "alice", { k: 1, n: 2 }, "x".repeat(90))).toMatchObject({ kind: "waiting" });
    expect(a.bytes).toBe(90);
  });

  it("bounds per sender, in all and in bytes drop the least recently fed series, never the one just fed", () => {
    const limits: PartsLimits = { maxParts: 1000, maxBytesPerContribution: 100, maxPendingPerSender: 2, maxPending: 3, maxPendingBytes: 150 };
    const a = new ContributionAssembler<string>(limits);
    const key = (sender: string, sessionId: string) => ({ sessionId, sender });
    a.offer(key("alice", "s1"), "alice", { k: 1, n: 2 }, "a");
    a.offer(key("alice", "s2"), "alice", { k: 1, n: 2 }, "a");
    const third = a.offer(key("alice", "s3"), "alice", { k: 1, n: 2 }, "a");
    expect(third.evicted).toEqual([{ sessionId: "s1", from: "alice", received: 1, n: 2 }]);
    a.offer(key("bob", "s1"), "bob", { k: 1, n: 2 }, "b");
    const carol = a.offer(key("carol", "s1"), "carol", { k: 1, n: 2 }, "c");
    expect(carol.evicted.map((e) => [e.from, e.sessionId])).toEqual([["alice", "s2"]]);
    expect(a.size).toBe(3);
    const big = a.offer(key("dave", "s1"), "dave", { k: 1, n: 2 }, "d".repeat(100));
    expect(big.kind).toBe("waiting");
    expect(a.bytes).toBeLessThanOrEqual(150);
    expect(a.size).toBeLessThanOrEqual(3);
  });

  it("refused markers count against the bounds too, so a flood of stray parts cannot grow it", () => {
    const a = new ContributionAssembler<string>({ ...WIDE, maxPending: 10 });
    for (let i = 0; i < 1000; i++) a.offer({ sessionId: `s${i}`, sender: `occupant:${i}` }, "x", { k: 2, n: 3 }, "x");
    expect(a.size).toBe(10);
  });

  it("a session's series are dropped when it stops taking contributions; only those holding parts are reported", () => {
    const a = new ContributionAssembler<string>(WIDE);
    a.offer(alice, "alice", { k: 1, n: 3 }, "1");
    a.offer(mallory, "mallory", { k: 2, n: 3 }, "stray");
    a.offer({ sessionId: "s2", sender: "occupant:alice" }, "alice", { k: 1, n: 2 }, "1");
    expect(a.hasSession("s1")).toBe(true);
    expect(a.dropSession("s1")).toEqual([{ sessionId: "s1", from: "alice", received: 1, n: 3 }]);
    expect(a.hasSession("s1")).toBe(false);
    expect(a.size).toBe(1);
  });

  it("the default bounds follow mfr:maxTriplesPerContribution, never below one inbound message", () => {
    expect(partsLimits(100_000, 224 * 1024)).toEqual({ maxParts: 1000, maxBytesPerContribution: 25_600_000, maxPendingPerSender: 4, maxPending: 64, maxPendingBytes: 102_400_000 });
    expect(partsLimits(10, 224 * 1024).maxBytesPerContribution).toBe(224 * 1024);
  });
});

describe("joinParts", () => {
  const base = "http://purl.org/stuff/mfr/session/s1/";
  const parse = (turtle: string) =>
    new Parser({ baseIRI: base, format: "text/turtle" })
      .parse(turtle)
      .map((q) => `${q.subject.termType === "BlankNode" ? "_" : q.subject.value} ${q.predicate.value} ${q.object.termType === "BlankNode" ? "_" : q.object.value}`)
      .sort();

  it("reads as the parts read alone: an @base or a prefix in one part does not change the next; a comment at the end does not swallow it", () => {
    const parts = [
      "@base <http://elsewhere.example/> .\n@prefix ex: <http://one.example/> .\n<#a> ex:p ex:x . # no newline at the end",
      "@prefix ex: <http://two.example/> .\n<#b> ex:p ex:x .",
    ];
    expect(parse(joinParts(parts, base))).toEqual([...parse(parts[0] ?? ""), ...parse(parts[1] ?? "")].sort());
    expect(parse(joinParts(parts, base))).toContain(`${base}#b http://two.example/p http://two.example/x`);
  });

  it("a blank-node label is one node across the parts of a contribution (scoped to the contribution)", () => {
    const quads = new Parser({ baseIRI: base, format: "text/turtle" }).parse(joinParts(["_:b0 <#p> <#x> .", "_:b0 <#q> <#y> ."], base));
    expect(quads).toHaveLength(2);
    expect(quads[0]?.subject.value).toBe(quads[1]?.subject.value);
    expect(quads[0]?.subject.termType).toBe("BlankNode");
  });
});
