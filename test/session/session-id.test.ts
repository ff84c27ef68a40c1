/**
 * Session ids people can read aloud and type (src/session/session-id.ts): `adjective-noun-NN`,
 * never one that is taken, the same ids for the same random numbers, and an id even when
 * every short one is taken.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newSessionId } from "../../src/session/session-id.js";

/** A `random` that returns the given values in turn, then starts over. */
function sequence(values: readonly number[]): () => number {
  let at = 0;
  return () => values[at++ % values.length] as number;
}

const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe("newSessionId", () => {
  it("is two lowercase words and a number from 10 to 99, decided by `random` alone", () => {
    fc.assert(
      fc.property(fc.array(unit, { minLength: 3, maxLength: 9 }), (values) => {
        const id = newSessionId(sequence(values), () => false);
        expect(id).toMatch(/^[a-z]+-[a-z]+-[1-9][0-9]$/);
        expect(newSessionId(sequence(values), () => false)).toBe(id);
      }),
      { numRuns: 300 },
    );
  });

  it("spans its lists: the lowest and the highest draw give different ids", () => {
    expect(newSessionId(() => 0, () => false)).toBe("amber-badger-10");
    expect(newSessionId(() => 0.999999, () => false)).toBe("vivid-yak-99");
  });

  it("never returns a taken id, and asks `taken` again for each new try", () => {
    fc.assert(
      fc.property(fc.array(unit, { minLength: 3, maxLength: 30 }), fc.integer({ min: 0, max: 40 }), (values, takenTries) => {
        const asked: string[] = [];
        const id = newSessionId(sequence(values), (candidate) => {
          asked.push(candidate);
          return asked.length <= takenTries;
        });
        expect(asked.at(-1)).toBe(id);
        expect(asked).toHaveLength(takenTries + 1);
      }),
      { numRuns: 200 },
    );
  });

  it("falls back to a longer suffix when every short try is taken, and still avoids taken ids", () => {
    const short = /^[a-z]+-[a-z]+-[1-9][0-9]$/;
    let longTries = 0;
    const id = newSessionId(Math.random, (candidate) => {
      if (short.test(candidate)) return true;
      longTries++;
      return longTries < 3;
    });
    expect(id).not.toMatch(short);
    expect(id).toMatch(/^[a-z]+-[a-z]+-[0-9a-z]+$/);
    expect(longTries).toBe(3);
  });
});
