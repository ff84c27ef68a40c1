/**
 * base/text.ts (clip is in test/unit/clip.test.ts): one style of lists ("a, b and c",
 * "nobody" for none), of durations ("800 ms", "1.5 s", "42 s", "2 min 5 s": tenths only under
 * ten seconds, never 60 s), and of counts ("1 goal", "2 goals").
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ago, inTime, inline, names, plural, quoted, seconds } from "../../src/base/text.js";

describe("names: nobody, a, a and b, a, b and c", () => {
  it("says the examples", () => {
    expect(names([])).toBe("nobody");
    expect(names(["a"])).toBe("a");
    expect(names(["a", "b"])).toBe("a and b");
    expect(names(["a", "b", "c"])).toBe("a, b and c");
  });

  it("names every item once, in order, joined by commas and one final 'and' (property)", () => {
    const word = fc.stringMatching(/^[A-Za-z0-9_.@-]{1,8}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 2, maxLength: 8 }), (list) => {
        const text = names(list);
        const at = text.lastIndexOf(" and ");
        expect(text.slice(at + " and ".length)).toBe(list[list.length - 1]);
        expect(text.slice(0, at).split(", ")).toEqual(list.slice(0, -1));
      }),
    );
  });
});

/** The shapes a duration takes (a no-break space between number and unit, and between the parts). */
const DURATION = /^(\d+)\u00a0ms$|^(\d+(?:\.\d)?)\u00a0s$|^(\d+)\u00a0min(?:\u00a0(\d+)\u00a0s)?$|^(\d+)\u00a0h(?:\u00a0(\d+)\u00a0min)?$/;

/** The duration a text says, in ms. */
function durationOf(text: string): number {
  const m = DURATION.exec(text);
  if (!m) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  if (m[1] !== undefined) return Number(m[1]);
  if (m[2] !== undefined) return Number(m[2]) * 1000;
  if (m[3] !== undefined) return (Number(m[3]) * 60 + Number(m[4] ?? 0)) * 1000;
  return (Number(m[5]) * 60 + Number(m[6] ?? 0)) * 60_000;
}

describe("seconds: ms under a second, tenths only under ten seconds, whole seconds, minutes, hours", () => {
  const say = (ms: number) => seconds(ms).replace(/\u00a0/g, " ");

  it("says the examples", () => {
    expect(say(0)).toBe("0 ms");
    expect(say(800)).toBe("800 ms");
    expect(say(999)).toBe("999 ms");
    expect(say(1_000)).toBe("1 s");
    expect(say(1_500)).toBe("1.5 s");
    expect(say(9_940)).toBe("9.9 s");
    expect(say(10_000)).toBe("10 s");
    expect(say(42_400)).toBe("42 s");
    expect(say(59_400)).toBe("59 s");
    expect(say(59_900)).toBe("1 min");
    expect(say(60_000)).toBe("1 min");
    expect(say(125_000)).toBe("2 min 5 s");
    expect(say(3_600_000)).toBe("1 h");
    expect(say(4_830_000)).toBe("1 h 21 min");
    // Rounded once: 5 h 1 min 29.5 s is nearer 5 h 1 min (a property run once found "5 h 2 min").
    expect(say(18_089_500)).toBe("5 h 1 min");
  });

  it("keeps a number with its unit: a no-break space, never a plain one, so a client never wraps between them", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 48 * 3600 * 1000 }), (ms) => {
        expect(seconds(ms)).not.toContain(" ");
        expect(seconds(ms)).toMatch(DURATION);
      }),
    );
  });

  it("is close to the duration, never shows 60 s, a zero part or tenths from ten seconds on (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 55_000, max: 65_000 }), fc.integer({ min: 0, max: 120_000 }), fc.integer({ min: 0, max: 10 * 60 * 60 * 1000 })), (ms) => {
        const text = seconds(ms);
        expect(text).not.toMatch(/(^|\u00a0)0\u00a0(s|min)$|\b60\u00a0s|\.0\u00a0s$|^\d\d\.\d/);
        const within = ms < 10_000 ? 50 : ms < 3_600_000 ? 500 : 30_000;
        expect(Math.abs(durationOf(text) - ms)).toBeLessThanOrEqual(within);
      }),
    );
  });

  it("never says a later duration is shorter (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 24 * 3_600_000 }), fc.integer({ min: 0, max: 24 * 3_600_000 }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(durationOf(seconds(lo))).toBeLessThanOrEqual(durationOf(seconds(hi)));
      }),
    );
  });
});

describe("quoted, inline, inTime, ago: someone's words and instants inside our sentences", () => {
  it("quotes without the quoted sentence's own full stop, so no sentence reads '.\".'", () => {
    expect(quoted("Deliver 3 crates at a time.", 100)).toBe('"Deliver 3 crates at a time"');
    expect(quoted("Really?!", 100)).toBe('"Really"');
    expect(quoted("two\nlines", 100)).toBe('"two lines"');
  });

  it("keeps a text a little longer than the bound whole rather than cutting its last words", () => {
    const problem = "Deliver 3 crates from the depot to the warehouse with one truck that carries at most 2 crates at a time.";
    expect(quoted(problem, 100)).toBe(`"${problem.slice(0, -1)}"`);
    expect(quoted("x ".repeat(200), 100).length).toBeLessThanOrEqual(102);
  });

  it("sets a reason inside a sentence: first letter lowered (not for acronyms), final stop dropped", () => {
    expect(inline("The proposal has no plan to check.")).toBe("the proposal has no plan to check");
    expect(inline("PDDL is not parsed.")).toBe("PDDL is not parsed");
  });

  it("says instants as delays", () => {
    expect(inTime(5_000, 0).replace(/\u00a0/g, " ")).toBe("in 5 s");
    expect(inTime(0, 10)).toBe("now");
    expect(ago(0, 90_000).replace(/\u00a0/g, " ")).toBe("1 min 30 s ago");
    expect(ago(0, 10)).toBe("just now");
  });
});

describe("plural: the singular for exactly one, else the plural", () => {
  it("says the examples", () => {
    expect(plural(1, "goal")).toBe("1 goal");
    expect(plural(0, "goal")).toBe("0 goals");
    expect(plural(2, "goal")).toBe("2 goals");
    expect(plural(3, "entity", "entities")).toBe("3 entities");
    expect(plural(1, "entity", "entities")).toBe("1 entity");
  });

  it("uses the singular exactly when n is 1 (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 10_000 }), (n) => {
        expect(plural(n, "box", "boxes")).toBe(n === 1 ? "1 box" : `${n} boxes`);
      }),
    );
  });
});
