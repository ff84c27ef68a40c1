/**
 * session/text.ts (clip is in test/unit/clip.test.ts): one style of lists ("a, b and c",
 * "nobody" for none), of durations ("800 ms", "1.5 s", "42 s", "2 min 5 s": tenths only under
 * ten seconds, never 60 s), and of counts ("1 goal", "2 goals").
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { names, plural, seconds } from "../../src/session/text.js";

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

describe("seconds: ms under a second, tenths only under ten seconds, whole seconds, then minutes", () => {
  it("says the examples", () => {
    expect(seconds(0)).toBe("0 ms");
    expect(seconds(800)).toBe("800 ms");
    expect(seconds(999)).toBe("999 ms");
    expect(seconds(1_000)).toBe("1 s");
    expect(seconds(1_500)).toBe("1.5 s");
    expect(seconds(9_940)).toBe("9.9 s");
    expect(seconds(10_000)).toBe("10 s");
    expect(seconds(42_400)).toBe("42 s");
    expect(seconds(59_400)).toBe("59 s");
    expect(seconds(59_900)).toBe("1 min 0 s");
    expect(seconds(125_000)).toBe("2 min 5 s");
  });

  it("is one of the four shapes, close to the duration, and never shows 60 s or tenths from ten seconds on (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 55_000, max: 65_000 }), fc.integer({ min: 0, max: 120_000 }), fc.integer({ min: 0, max: 10 * 60 * 60 * 1000 })), (ms) => {
        const text = seconds(ms);
        let back: number;
        let within: number;
        const m = /^(\d+) ms$|^(\d+(?:\.\d)?) s$|^(\d+) min (\d+) s$/.exec(text);
        expect(m, text).not.toBeNull();
        if (m?.[1] !== undefined) {
          expect(ms).toBeLessThan(1000);
          [back, within] = [Number(m[1]), 0];
        } else if (m?.[2] !== undefined) {
          expect(ms).toBeGreaterThanOrEqual(1000);
          if (m[2].includes(".")) expect(ms).toBeLessThan(10_000);
          expect(Number(m[2])).toBeLessThan(60);
          [back, within] = [Number(m[2]) * 1000, ms < 10_000 ? 50 : 500];
        } else {
          const secs = Number(m?.[4]);
          expect(secs).toBeLessThan(60);
          [back, within] = [(Number(m?.[3]) * 60 + secs) * 1000, 500];
        }
        expect(Math.abs(back - ms)).toBeLessThanOrEqual(within);
      }),
    );
  });

  // Known bug (reported, not fixed here: tests only): just under a whole second, toFixed(1)
  // rounds up to ".0", so 1_999 ms reads "2.0 s" and 9_960 ms "10.0 s", tenths from ten seconds
  // on. `it.fails` keeps the suite green while the bug stands and fails once it is fixed:
  // then make this a plain `it`.
  it("never shows a tenth of .0 nor tenths at ten seconds (1_999 ms reads '2 s', 9_960 ms '10 s')", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000, max: 10_999 }), (ms) => {
        expect(seconds(ms)).not.toMatch(/\.0 s$|^1\d\.\d s$/);
      }),
    );
  });

  it("never says a later duration is shorter (property)", () => {
    const value = (text: string) => {
      const m = /^(\d+) ms$|^(\d+(?:\.\d)?) s$|^(\d+) min (\d+) s$/.exec(text);
      if (m?.[1] !== undefined) return Number(m[1]);
      if (m?.[2] !== undefined) return Number(m[2]) * 1000;
      return (Number(m?.[3]) * 60 + Number(m?.[4])) * 1000;
    };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3_600_000 }), fc.integer({ min: 0, max: 3_600_000 }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(value(seconds(lo))).toBeLessThanOrEqual(value(seconds(hi)));
      }),
    );
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
