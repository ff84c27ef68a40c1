import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parsePlanStep } from "../../src/formal/plan-step.js";
import { simulatePlan } from "../../src/formal/simulate.js";
import { modelOf } from "./helpers.js";

describe("parsePlanStep", () => {
  it.each([
    ["book(Ann, S0900)", { action: "book", args: ["ann", "s0900"] }],
    ["  pick-up( a )  ", { action: "pick-up", args: ["a"] }],
    ["move(a b)", { action: "move", args: ["a", "b"] }],
    ["(Book ann s0900)", { action: "book", args: ["ann", "s0900"] }],
    ["wait()", { action: "wait", args: [] }],
    ["wait", { action: "wait", args: [] }],
    ["(wait)", { action: "wait", args: [] }],
  ])("reads %j", (text, step) => {
    expect(parsePlanStep(text)).toEqual(step);
  });

  it.each(["", "book(ann, s0900", "book(ann,, s0900)", "book(,ann)", "(book (ann) s)", "(book a) (b)", "Book Ann then rest", "((x))", "42", "{\"x\":1}"])("refuses %j", (text) => {
    expect(parsePlanStep(text)).toBeUndefined();
  });

  it("never throws", () => {
    fc.assert(fc.property(fc.string(), (text) => void parsePlanStep(text)));
  });

  it("reports a step that is not text as malformed", () => {
    const m = modelOf(`<#g> a mfr:Goal ; mfr:expression "(done)" .`);
    expect(simulatePlan(m, [{ x: 1 } as unknown as string])).toMatchObject({ verdict: "invalid", step: 1 });
  });
});

/** A chain: step k needs (done k-1) and makes (done k); the goal is the last one. */
function chain(length: number) {
  const actions = Array.from(
    { length },
    (_, k) => `<#s${k}> a mfr:Action ; mfr:actionName "s${k}" ; mfr:hasPrecondition [ mfr:expression "(done d${k})" ] ; mfr:hasEffect [ mfr:expression "(done d${k + 1})" ] .`,
  );
  const entities = Array.from({ length: length + 1 }, (_, k) => `<#d${k}> a mfr:Entity .`);
  return modelOf([...entities, ...actions, `<#p> mfr:initialState "(done d0)" .`, `<#g> a mfr:Goal ; mfr:expression "(done d${length})" .`].join("\n"));
}

describe("dropping an establishing step", () => {
  it("makes the plan invalid at the step that needed it, or at the goal", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 }))),
        ([n, dropped]) => {
          const model = chain(n);
          const plan = Array.from({ length: n }, (_, k) => `s${k}()`);
          expect(simulatePlan(model, plan).verdict).toBe("valid");
          const v = simulatePlan(model, plan.filter((_, k) => k !== dropped));
          // Without step `dropped`, the next step (now at the same place) lacks (done d<dropped+1>).
          expect(v).toMatchObject({ verdict: "invalid", step: dropped + 1, failed: `(done d${dropped + 1})` });
        },
      ),
      { numRuns: 60 },
    );
  });
});
