import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { simulatePlan } from "../../src/formal/simulate.js";
import { fixture, modelOf } from "./helpers.js";

const model = modelOf(fixture("blocksworld.ttl"));
// Five lifts where the model allows four: the fifth, at step 9, breaks (<= (moves) 4).
const LIFT_FIVE = ["unstack(c, a)", "put-down(c)", "pick-up(b)", "put-down(b)", "pick-up(b)", "put-down(b)", "pick-up(b)", "put-down(b)", "pick-up(a)"];
const VALID = ["unstack(C, A)", "(put-down c)", "pick-up(a)", "stack(a, b)"];

describe("the Blocksworld model", () => {
  it("is read whole: objects, actions, initial state, constraints and goal", () => {
    expect(model.findings).toEqual([]);
    expect(model.objects.map((o) => o.symbol)).toEqual(["a", "b", "c", "table"]);
    expect(model.actions.map((a) => [a.name, a.parameters.map((p) => p.name).join(" "), a.informal])).toEqual([
      ["pick-up", "?x", []],
      ["put-down", "?x", []],
      ["stack", "?x ?y", []],
      ["unstack", "?x ?y", []],
    ]);
    expect(model.initialState).toHaveLength(8);
    expect(model.constraints).toHaveLength(2);
    expect(model.goals).toHaveLength(1);
    // The free-text constraint is only a comment; the state variable's "(moves)" is formal.
    expect(model.notMachineCheckable).toEqual([]);
  });

  it("accepts the valid plan, with a trace line per state", () => {
    const v = simulatePlan(model, VALID);
    expect(v).toMatchObject({ verdict: "valid" });
    expect(v.reason).toBe("All 4 steps are applicable, 2 constraints hold in every state and 1 goal holds at the end.");
    expect(v.trace).toHaveLength(5);
    expect(v.trace?.[1]).toBe("1 unstack(C, A): +(holding c) +(clear a) -(on c a) -(clear c) -(handempty) (moves)=1");
  });

  it.each([
    ["a dropped step", ["unstack(C, A)", "pick-up(a)", "stack(a, b)"], 2, "(handempty)"],
    ["swapped steps", ["(put-down c)", "unstack(C, A)", "pick-up(a)", "stack(a, b)"], 1, "(holding c)"],
    ["a wrong argument", ["unstack(C, A)", "(put-down c)", "pick-up(b)", "stack(a, b)"], 4, "(holding a)"],
    ["a second block lifted with the hand full", ["unstack(C, A)", "pick-up(b)"], 2, "(handempty)"],
    [
      "a step that breaks the invariant midway (a block on the fragile one)",
      ["unstack(c, a)", "put-down(c)", "pick-up(a)", "stack(a, c)", "unstack(a, c)", "stack(a, b)"],
      4,
      "(not (exists (?y - block) (on ?y c)))",
    ],
    ["a goal not reached", ["unstack(C, A)", "(put-down c)", "pick-up(a)"], 4, "(on a b)"],
    ["a numeric bound broken", LIFT_FIVE, 9, "(<= (moves) 4)"],
  ])("rejects %s at the right step with the false part", (_name, plan, step, failed) => {
    expect(simulatePlan(model, plan)).toMatchObject({ verdict: "invalid", step, failed });
  });

  it("says which constraint broke and the values involved", () => {
    const v = simulatePlan(model, ["unstack(c, a)", "put-down(c)", "pick-up(a)", "stack(a, c)"]);
    expect(v.reason).toContain("does not hold after step 4 (stack(a, c))");
    // An implication names the instance that made its consequent necessary.
    expect(v.reason).toContain("(not (exists (?y - block) (on ?y c))) is false (while (fragile c) holds)");
    const moves = simulatePlan(model, LIFT_FIVE);
    expect(moves.reason).toContain("(moves) is 5");
  });

  it.each([
    [["unstack(c, a)", "put-down(c)", "pick-up(d)"], 3, "no object"],
    [["unstack(c, a)", "fly(c)"], 2, "no action"],
    [["unstack(c)"], 1, "1 argument; it takes 2"],
    [["unstack(c, table)"], 1, "must be of type block; table is of type furniture"],
    [["unstack(c,, a)"], 1, "not of the form"],
  ])("rejects a step the model cannot run: %j", (plan, step, words) => {
    const v = simulatePlan(model, plan);
    expect(v).toMatchObject({ verdict: "invalid", step });
    expect(v.reason).toContain(words);
  });

  it("gives the same verdict when run again (determinism)", () => {
    const steps = ["unstack(c, a)", "put-down(c)", "pick-up(a)", "pick-up(b)", "stack(a, b)", "put-down(a)", "unstack(a, b)", "stack(c, b)"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...steps), { maxLength: 8 }), (plan) => {
        expect(simulatePlan(model, plan)).toEqual(simulatePlan(model, plan));
      }),
    );
    expect(simulatePlan(model, VALID)).toEqual(simulatePlan(modelOf(fixture("blocksworld.ttl")), VALID));
  });

  it("finds a dropped establishing step at the first step that needed it", () => {
    // Each step of the valid plan establishes a precondition of the next one.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: VALID.length - 2 }), (dropped) => {
        const plan = VALID.filter((_, i) => i !== dropped);
        const v = simulatePlan(model, plan);
        expect(v.verdict).toBe("invalid");
        expect(v.step).toBe(dropped + 1);
      }),
    );
  });
});
