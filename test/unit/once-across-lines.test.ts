import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OnceAcrossLines, type Line } from "../../src/xmpp/direct-line.js";

const LINES: readonly Line[] = ["room-connection", "direct-line"];
const other = (line: Line): Line => (line === "room-connection" ? "direct-line" : "room-connection");
const sender = fc.constantFrom("alice@example.org/a", "bob@example.org/b", "carol@example.org/c");
const msg = (from: string, id: string | undefined, body = "help") => ({ from, id, body });

describe("OnceAcrossLines: a 1:1 message the server gave to both lines is handled once", () => {
  it("keeps exactly one copy of each message delivered on both lines, in any interleaving", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(sender, fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom("help", "mfr-list")), {
          selector: ([from, id]) => `${from} ${id}`,
          maxLength: 30,
        }),
        fc.array(fc.constantFrom(...LINES), { minLength: 30, maxLength: 30 }),
        fc.infiniteStream(fc.boolean()),
        (messages, firstLines, coin) => {
          // Both copies of every message, shuffled by a seeded walk over the pending ones.
          const pending = messages.flatMap(([from, id, body], i) => {
            const first = firstLines[i] as Line;
            return [{ m: msg(from, id, body), line: first, key: i }, { m: msg(from, id, body), line: other(first), key: i }];
          });
          const arrivals: typeof pending = [];
          while (pending.length) arrivals.push(pending.splice(coin.next().value ? 0 : pending.length - 1, 1)[0] as (typeof pending)[number]);
          const once = new OnceAcrossLines();
          const kept = arrivals.filter((a, t) => once.first(a.m, a.line, 1000 + t));
          expect(kept.map((a) => a.key).sort((x, y) => x - y)).toEqual(messages.map((_, i) => i));
        },
      ),
    );
  });

  it("never drops anything that came on one line only, ids reused or not", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(sender, fc.option(fc.constantFrom("1", "2", "x"), { nil: undefined })), { maxLength: 50 }), fc.constantFrom(...LINES), (messages, line) => {
        const once = new OnceAcrossLines();
        expect(messages.every(([from, id], t) => once.first(msg(from, id), line, t))).toBe(true);
      }),
    );
  });

  it("keeps messages without an id or with an overlong one, another text under a reused id, and a copy after the window", () => {
    const once = new OnceAcrossLines(60_000);
    const alice = "alice@example.org/a";
    expect(once.first(msg(alice, undefined), "direct-line", 0)).toBe(true);
    expect(once.first(msg(alice, undefined), "room-connection", 1)).toBe(true);
    expect(once.first(msg(alice, "m1"), "direct-line", 0)).toBe(true);
    expect(once.first(msg(alice, "m1"), "room-connection", 10)).toBe(false);
    expect(once.first(msg(alice, "m1", "mfr-list"), "room-connection", 10)).toBe(true);
    expect(once.first(msg("bob@example.org/b", "m1"), "room-connection", 10)).toBe(true);
    expect(once.first(msg(alice, "m1"), "room-connection", 60_011)).toBe(true);
    const long = "x".repeat(129);
    expect(once.first(msg(alice, long), "direct-line", 70_000)).toBe(true);
    expect(once.first(msg(alice, long), "room-connection", 70_001)).toBe(true);
  });

  it("forgets by last arrival: an entry refreshed on its own line does not keep older ones past the window", () => {
    const once = new OnceAcrossLines(60_000);
    const bot = "bot@example.org/b";
    // A bot that reuses id "1" on the direct line, refreshing that entry; another message behind it.
    expect(once.first(msg(bot, "1"), "direct-line", 0)).toBe(true);
    expect(once.first(msg(bot, "2"), "direct-line", 1)).toBe(true);
    expect(once.first(msg(bot, "1"), "direct-line", 50_000)).toBe(true);
    // Past the window of "2" (but not of the refreshed "1"): "2" on the other line is a new message.
    expect(once.first(msg(bot, "2"), "room-connection", 61_000)).toBe(true);
    expect(once.first(msg(bot, "1"), "room-connection", 61_000)).toBe(false);
  });

  it("holds at most its capacity", () => {
    const once = new OnceAcrossLines(60_000, 3);
    for (let i = 0; i < 10; i++) once.first(msg("alice@example.org/a", `m${i}`), "direct-line", i);
    expect(once.first(msg("alice@example.org/a", "m0"), "room-connection", 20)).toBe(true);
    expect(once.first(msg("alice@example.org/a", "m9"), "room-connection", 20)).toBe(false);
  });
});
