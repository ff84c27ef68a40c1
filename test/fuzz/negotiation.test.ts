/**
 * ModelNegotiation payloads come from any peer: whatever the text, decodeNegotiation gives a
 * typed value or an error sentence, and what it accepts survives the log (JSON.stringify)
 * and the session store (structuredClone).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_JSON_ARRAY_LENGTH, MAX_JSON_DEPTH, MAX_JSON_OBJECT_KEYS, MAX_JSON_VALUES } from "../../src/protocol/bounded-json.js";
import { SOLUTION_EXTRA_LIMITS } from "../../src/protocol/extra-fields.js";
import { decodeNegotiation, type NegotiationDecode } from "../../src/protocol/negotiation.js";
import { MFR } from "../../src/base/vocab.js";

const PROTOCOL_FIELDS = new Set(["success", "message", "plan", "bindings", "satisfiesGoals", "executionError"]);

const messageType = fc.constantFrom(
  "SolutionProposal",
  `${MFR}SolutionProposal`,
  "mfr:PlanExecutionResult",
  "ActionSchema",
  `${MFR}ModelContributionRequest`,
  "SomethingElse",
  "",
);
const attributeType = fc.option(fc.oneof(messageType, fc.string()), { nil: undefined });

/** The contract of the decoder, whatever went in. */
function expectTotal(decoded: NegotiationDecode): void {
  if (!decoded.ok) {
    expect(typeof decoded.error).toBe("string");
    expect(decoded.error.length).toBeGreaterThan(0);
    // It is sent back to the peer in one chat line.
    expect(decoded.error.length).toBeLessThanOrEqual(400);
    expect(decoded.error).not.toMatch(/\[object Object\]/);
    expect(decoded.sessionId === undefined || decoded.sessionId.length <= 100).toBe(true);
    return;
  }
  expect(() => JSON.stringify(decoded.message)).not.toThrow();
  expect(() => structuredClone(decoded.message)).not.toThrow();
  if (decoded.message.type === "SolutionProposal") {
    const extras = Object.entries(decoded.message.solution).filter(([key]) => !PROTOCOL_FIELDS.has(key));
    expect(extras.length).toBeLessThanOrEqual(SOLUTION_EXTRA_LIMITS.maxFields);
    expect(JSON.stringify(Object.fromEntries(extras)).length).toBeLessThanOrEqual(SOLUTION_EXTRA_LIMITS.maxChars + 2 * SOLUTION_EXTRA_LIMITS.maxFields + 2);
  }
}

const proposal = (solution: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ messageType: `${MFR}SolutionProposal`, sessionId: "s1", solution, ...extra });

/** Arrays and objects nested inside each other; depth and width come from fast-check's size. */
const { jsonTree } = fc.letrec<{ jsonTree: unknown }>((tie) => ({
  jsonTree: fc.oneof(
    { depthSize: "large", maxDepth: 48 },
    fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean(), fc.constant(null)),
    fc.array(tie("jsonTree"), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie("jsonTree"), { maxKeys: 3 }),
  ),
}));

/** Up to 48 arrays and objects around a tree, so that its depth reaches past the limit as often as not. */
const wrapper = fc.oneof(
  fc.tuple(fc.string({ maxLength: 6 }), jsonTree).map(([key, sibling]) => (inner: unknown) => ({ [key]: inner, sibling })),
  fc.tuple(jsonTree, jsonTree).map(([before, after]) => (inner: unknown) => [before, inner, after]),
);
const deepTree = fc.tuple(jsonTree, fc.array(wrapper, { maxLength: 48, size: "max" })).map(([tree, wrappers]) => wrappers.reduce((inner, wrap) => wrap(inner), tree));

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === "object" && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

/** `depth` arrays and objects around a string, written out as text (never built as a value). */
function nestedText(depth: number, objects: boolean): string {
  const open = objects ? '{"k":' : "[";
  const close = objects ? "}" : "]";
  return `${open.repeat(depth)}"leaf"${close.repeat(depth)}`;
}

/** The message, messageType, sessionId, solution, success, message and the extra array itself. */
const VALUES_AROUND_EXTRA = 7;

/** Arrays of zeros that hold `count` values in all, themselves included, none too long. */
function arraysHolding(count: number): number[][] {
  const arrays: number[][] = [];
  for (let left = count; left > 0; ) {
    const items = Math.min(MAX_JSON_ARRAY_LENGTH - 1, left - 1);
    arrays.push(new Array<number>(items).fill(0));
    left -= items + 1;
  }
  return arrays;
}

describe("decodeNegotiation is total (fuzz)", () => {
  it("on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: fc.constantFrom("{", "}", "[", "]", '"', ":", ",", "\\", "1", "a") })), attributeType, (text, type) => {
        expectTotal(decodeNegotiation(text, type));
      }),
      { numRuns: 2000 },
    );
  });

  it("on arbitrary JSON texts and values, bare and as the fields of a message", () => {
    fc.assert(
      fc.property(fc.json(), fc.jsonValue(), messageType, attributeType, (text, value, type, attribute) => {
        expectTotal(decodeNegotiation(text, attribute));
        expectTotal(decodeNegotiation(JSON.stringify(value, null, 2), attribute));
        expectTotal(decodeNegotiation(JSON.stringify({ messageType: type, sessionId: value }), attribute));
        expectTotal(decodeNegotiation(JSON.stringify({ messageType: type, sessionId: "s1", solution: value, actions: value }), attribute));
        expectTotal(decodeNegotiation(proposal({ success: true, message: value, plan: value, bindings: value, satisfiesGoals: value, executionError: value }), undefined));
      }),
      { numRuns: 1000 },
    );
  });

  it("on deep and wide trees: accepted exactly when they stay within the depth limit", () => {
    fc.assert(
      fc.property(deepTree, (tree) => {
        const decoded = decodeNegotiation(proposal({ success: true, message: "m", extra: tree }), undefined);
        expectTotal(decoded);
        // The tree sits three levels down: the message, the solution, the field.
        const tooDeep = 2 + depthOf(tree) > MAX_JSON_DEPTH;
        expect(decoded.ok).toBe(!tooDeep);
        if (tooDeep) expect(decoded).toMatchObject({ ok: false, error: expect.stringMatching(/^solution\.extra.* is nested deeper than 32 levels$/) });
      }),
      { numRuns: 500 },
    );
  });

  it("on a valid proposal with a random extra field: kept (bounded), never a crash", () => {
    fc.assert(
      fc.property(
        fc.string().filter((key) => !PROTOCOL_FIELDS.has(key)),
        fc.jsonValue(),
        (key, value) => {
          const decoded = decodeNegotiation(proposal({ success: true, message: "ok", [key]: value }), undefined);
          expectTotal(decoded);
          if (!decoded.ok || decoded.message.type !== "SolutionProposal") throw new Error(`refused: ${decoded.ok ? decoded.message.type : decoded.error}`);
          const sent = JSON.parse(JSON.stringify(value)) as unknown;
          // zod drops a "__proto__" key; anything else small is kept as sent.
          if (key !== "__proto__" && JSON.stringify(sent).length <= 500) expect(decoded.message.solution[key]).toEqual(sent);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("on a valid proposal with an extra field nested 33 to 10,000 deep: a typed error naming the field", () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_JSON_DEPTH - 1, max: 10_000 }), fc.boolean(), (depth, objects) => {
        const text = `{"messageType":"SolutionProposal","sessionId":"s1","solution":{"success":true,"message":"ok","extra":${nestedText(depth, objects)}}}`;
        expect(decodeNegotiation(text, undefined)).toEqual({ ok: false, error: expect.stringMatching(/^solution\.extra\[?.* is nested deeper than 32 levels$/), sessionId: undefined });
      }),
      { numRuns: 200, examples: [[10_000, false], [10_000, true], [MAX_JSON_DEPTH - 1, false]] },
    );
  });

  it("on arrays, objects and totals around each limit: accepted exactly up to it", () => {
    const around = (limit: number) => fc.integer({ min: limit - 3, max: limit + 3 });
    fc.assert(
      fc.property(fc.constantFrom("array", "object", "values"), around(MAX_JSON_ARRAY_LENGTH), around(MAX_JSON_OBJECT_KEYS), around(MAX_JSON_VALUES), (kind, items, keys, values) => {
        // An ActionSchema's actions hold 1,000 at most; the extra field of a proposal has no limit of its own.
        const solution = (extra: unknown) => proposal({ success: true, message: "m", extra });
        const [text, fits] =
          kind === "array"
            ? [solution(new Array<number>(items).fill(0)), items <= MAX_JSON_ARRAY_LENGTH]
            : kind === "object"
              ? [solution(Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 0]))), keys <= MAX_JSON_OBJECT_KEYS]
              : [solution(arraysHolding(values - VALUES_AROUND_EXTRA)), values <= MAX_JSON_VALUES];
        const decoded = decodeNegotiation(text, undefined);
        expectTotal(decoded);
        expect(decoded.ok).toBe(fits);
      }),
      { numRuns: 60 },
    );
  });
});
