import { describe, expect, it } from "vitest";
import { clip } from "../../src/base/text.js";
import { forbiddenCodePoints } from "../support/forbidden-chars.js";

describe("clip", () => {
  it("shortens to at most max characters, ending in …", () => {
    expect(clip("one  two\nthree", 20)).toBe("one two three");
    expect(clip("abcdefghij", 5)).toBe("abcd…");
  });

  it("never cuts a surrogate pair in half", () => {
    for (let max = 2; max <= 12; max++) {
      const clipped = clip("ab\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}", max);
      expect(forbiddenCodePoints(clipped), `max ${max}: ${JSON.stringify(clipped)}`).toEqual([]);
      expect(clipped.length).toBeLessThanOrEqual(max);
    }
  });
});
