import { describe, expect, it } from "vitest";
import { SOLUTION_EXTRA_LIMITS, boundExtraFields } from "../../src/protocol/extra-fields.js";

const KNOWN = new Set(["success", "message"]);
const limits = { maxFields: 3, maxChars: 200, maxFieldChars: 100 };

describe("boundExtraFields", () => {
  it("keeps known fields as they are and small extras as sent", () => {
    const record = { success: true, message: "m".repeat(500), confidence: 0.8, tool: "prolog" };
    expect(boundExtraFields(record, KNOWN, limits)).toEqual(record);
  });

  it("keeps the start of a long string and says how much was left out", () => {
    const kept = boundExtraFields({ success: true, reasoning: "r".repeat(1000), confidence: 0.8 }, KNOWN, limits);
    expect(kept.reasoning).toMatch(/^r+… \(\d+ more characters left out\)$/);
    expect(JSON.stringify(kept.reasoning).length + "reasoning".length + 2).toBeLessThanOrEqual(limits.maxFieldChars);
    expect(kept.confidence).toBe(0.8);
  });

  it("replaces a large structure by a note and leaves out fields past the count", () => {
    const kept = boundExtraFields({ success: true, state: { a: "x".repeat(500) }, b: 1, c: 2, d: 3 }, KNOWN, limits);
    expect(kept).toEqual({ success: true, state: "(left out: 508 characters of JSON)", b: 1, c: 2 });
  });

  it("keeps all extras within the total budget", () => {
    const record: Record<string, unknown> = { success: true };
    for (let i = 0; i < 40; i++) record[`field${i}`] = "y".repeat(2000);
    const kept = boundExtraFields(record, KNOWN, SOLUTION_EXTRA_LIMITS);
    const { success: _success, ...extras } = kept;
    expect(Object.keys(extras).length).toBeLessThanOrEqual(SOLUTION_EXTRA_LIMITS.maxFields);
    expect(JSON.stringify(extras).length).toBeLessThanOrEqual(SOLUTION_EXTRA_LIMITS.maxChars + 20);
  });

  it("never splits a surrogate pair", () => {
    const kept = boundExtraFields({ note: "😀".repeat(100) }, KNOWN, limits);
    expect(kept.note).toMatch(/^(😀)+… /u);
  });

  it("keeps a key named __proto__ as plain data", () => {
    const record = JSON.parse('{"success": true, "__proto__": {"polluted": 1}}') as Record<string, unknown>;
    const kept = boundExtraFields(record, KNOWN, limits);
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
