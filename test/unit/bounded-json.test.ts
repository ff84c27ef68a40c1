import { describe, expect, it } from "vitest";
import { DEFAULT_JSON_LIMITS, MAX_JSON_DEPTH, MAX_JSON_STRING_LENGTH, pathText, readBoundedJson } from "../../src/protocol/bounded-json.js";

function refusal(text: string, limits = {}) {
  const read = readBoundedJson(text, { limits, subject: "the payload" });
  if (read.ok) throw new Error("expected a refusal");
  return read.error;
}

const nested = (depth: number, open = "[", close = "]") => `${open.repeat(depth)}${close.repeat(depth)}`;

describe("readBoundedJson", () => {
  it("reads ordinary JSON, pretty-printed or not", () => {
    const value = { sessionId: "s1", solution: { success: true, plan: ["a", "b"], satisfiesGoals: [{ goal: "g", satisfied: true }] } };
    expect(readBoundedJson(JSON.stringify(value, null, 4))).toEqual({ ok: true, value });
    expect(readBoundedJson(nested(MAX_JSON_DEPTH))).toMatchObject({ ok: true });
  });

  it("refuses nesting past the depth limit before parsing, and says where", () => {
    const deep = `{"solution":{"extra":${nested(10_000)}}}`;
    const error = refusal(deep);
    expect(error).toMatchObject({ kind: "limit", limit: "maxDepth" });
    expect(error.message).toBe("solution.extra[0][0][0][0]… is nested deeper than 32 levels");
    expect(refusal(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ limit: "maxDepth", path: "[0][0][0][0][0][0]…" });
    expect(refusal(nested(3), { maxDepth: 2 }).message).toBe("[0][0] is nested deeper than 2 levels");
    expect(refusal(`{"a":1,"b":{"c":{}}}`, { maxDepth: 2 }).message).toBe("b.c is nested deeper than 2 levels");
    expect(refusal(`[{}, [0, 1, {"x": []}]]`, { maxDepth: 3 }).message).toBe("[1][2].x is nested deeper than 3 levels");
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ a: "[[[[{{{{", b: 'say \\"[[[[" and \\\\', c: ["]]]]"] });
    expect(readBoundedJson(text, { limits: { maxDepth: 2 } })).toMatchObject({ ok: true });
  });

  it("names the limit and the place for long arrays, long strings, wide objects and many values", () => {
    expect(refusal(JSON.stringify({ plan: ["a", "b", "c"] }), { maxArrayLength: 2 }).message).toBe("plan is an array of 3 items, more than the 2 allowed");
    expect(refusal(JSON.stringify({ plan: ["a", "bcdef"] }), { maxStringLength: 4 }).message).toBe("plan[1] is a string of 5 characters, more than the 4 allowed");
    expect(refusal(JSON.stringify({ x: { abcde: 1 } }), { maxStringLength: 4 }).message).toBe("x has a key of 5 characters, more than the 4 allowed");
    expect(refusal(JSON.stringify({ a: 1, b: 2, c: 3 }), { maxObjectKeys: 2 }).message).toBe("the payload is an object with 3 keys, more than the 2 allowed");
    expect(refusal(JSON.stringify([[1, 2], [3]]), { maxValues: 4 })).toMatchObject({ limit: "maxValues", path: "", message: "the payload holds more than 4 values in all" });
  });

  it("lets a model-sized string through: an echoed SolutionRequest carries the whole Turtle model", () => {
    expect(readBoundedJson(JSON.stringify({ model: "x".repeat(200_000) }))).toMatchObject({ ok: true });
    expect(refusal(JSON.stringify({ model: "x".repeat(MAX_JSON_STRING_LENGTH + 1) }))).toMatchObject({ limit: "maxStringLength", path: "model" });
  });

  it("reports bad JSON as a syntax error, never an exception", () => {
    expect(refusal("{ not json")).toMatchObject({ kind: "syntax", message: expect.stringMatching(/^the payload is not valid JSON \(/) });
    expect(refusal("")).toMatchObject({ kind: "syntax" });
    expect(refusal('{"a": "unclosed')).toMatchObject({ kind: "syntax" });
  });

  it("shows odd keys quoted and clips long paths", () => {
    expect(pathText(["solution", "odd key", 3, "x"])).toBe('solution["odd key"][3].x');
    expect(pathText(["k".repeat(50)])).toBe(`["${"k".repeat(40)}…"]`);
    expect(pathText(["a", "b", "c", "d", "e", "f", "g"])).toBe("a.b.c.d.e.f…");
    expect(pathText([])).toBe("");
  });

  it("exports limits a real peer never reaches", () => {
    expect(DEFAULT_JSON_LIMITS).toEqual({ maxDepth: 32, maxArrayLength: 10_000, maxStringLength: 262_144, maxObjectKeys: 1_000, maxValues: 50_000 });
  });
});
