import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OnceAcrossLines, type Line } from "../../src/xmpp/direct-line.js";

const LINES: readonly Line[] = ["room-connection", "direct-line"];
const other = (line: Line): Line => (line === "room-connection" ? "direct-line" : "room-connection");
const sender = fc.constantFrom("alice@example.org/a", "bob@example.org/b", "carol@example.org/c");

describe("OnceAcrossLines: a 1:1 message the server gave to both lines is handled once", () => {
  it("keeps exactly one copy of each message delivered on both lines, in any interleaving", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(sender, fc.string({ minLength: 1, maxLength: 8 })), { selector: ([from, id]) => `${from} ${id}`, maxLength: 30 }),
        fc.array(fc.constantFrom(...LINES), { minLength: 30, maxLength: 30 }),
        fc.infiniteStream(fc.boolean()),
        (messages, firstLines, coin) => {
          // Both copies of every message, shuffled by a seeded walk over the pending ones.
          const pending = messages.flatMap(([from, id], i) => {
            const first = firstLines[i] as Line;
            return [{ from, id, line: first, key: i }, { from, id, line: other(first), key: i }];
          });
          const arrivals: typeof pending = [];
          while (pending.length) arrivals.push(pending.splice(coin.next().value ? 0 : pending.length - 1, 1)[0] as (typeof pending)[number]);
          const once = new OnceAcrossLines();
          const kept = arrivals.filter((m, t) => once.first(m.from, m.id, m.line, 1000 + t));
          expect(kept.map((m) => m.key).sort((a, b) => a - b)).toEqual(messages.map((_, i) => i));
        },
      ),
    );
  });

  it("never drops anything that came on one line only, ids reused or not", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(sender, fc.option(fc.constantFrom("1", "2", "x"), { nil: undefined })), { maxLength: 50 }), fc.constantFrom(...LINES), (messages, line) => {
        const once = new OnceAcrossLines();
        expect(messages.every(([from, id], t) => once.first(from, id, line, t))).toBe(true);
      }),
    );
  });

  it("keeps messages without an id or with an overlong one, and a copy that comes after the window", () => {
    const once = new OnceAcrossLines(60_000);
    expect(once.first("alice@example.org/a", undefined, "direct-line", 0)).toBe(true);
    expect(once.first("alice@example.org/a", undefined, "room-connection", 1)).toBe(true);
    expect(once.first("alice@example.org/a", "m1", "direct-line", 0)).toBe(true);
    expect(once.first("alice@example.org/a", "m1", "room-connection", 10)).toBe(false);
    expect(once.first("bob@example.org/b", "m1", "room-connection", 10)).toBe(true);
    expect(once.first("alice@example.org/a", "m1", "room-connection", 60_011)).toBe(true);
    // An id longer than clients make is not remembered (what is held stays small).
    const long = "x".repeat(129);
    expect(once.first("alice@example.org/a", long, "direct-line", 70_000)).toBe(true);
    expect(once.first("alice@example.org/a", long, "room-connection", 70_001)).toBe(true);
  });

  it("holds at most its capacity", () => {
    const once = new OnceAcrossLines(60_000, 3);
    for (let i = 0; i < 10; i++) once.first("alice@example.org/a", `m${i}`, "direct-line", i);
    // m0 was forgotten to make room; m9 is remembered.
    expect(once.first("alice@example.org/a", "m0", "room-connection", 20)).toBe(true);
    expect(once.first("alice@example.org/a", "m9", "room-connection", 20)).toBe(false);
  });
});
