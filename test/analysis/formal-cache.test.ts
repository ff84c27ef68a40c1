/** The formal models one worker thread holds: bounded by their JSON's size, least recently used out first, the newest always kept. */
import { describe, expect, it } from "vitest";
import { NO_FORMAL_MODEL } from "../../src/formal/index.js";
import { FormalModelCache } from "../../src/analysis/formal-cache.js";

describe("FormalModelCache", () => {
  it("lets the least recently used models go to stay within its size, and always keeps the newest", () => {
    const cache = new FormalModelCache(100);
    cache.remember("a", NO_FORMAL_MODEL, 40);
    cache.remember("b", NO_FORMAL_MODEL, 40);
    expect(cache.get("a")).toBe(NO_FORMAL_MODEL);
    // "b" is now the least recently used: it goes to make room.
    cache.remember("c", NO_FORMAL_MODEL, 40);
    expect(cache.digests).toEqual(["a", "c"]);
    // Larger than the whole bound: kept alone.
    cache.remember("huge", NO_FORMAL_MODEL, 500);
    expect(cache.digests).toEqual(["huge"]);
    expect(cache.get("a")).toBeUndefined();
  });
});
