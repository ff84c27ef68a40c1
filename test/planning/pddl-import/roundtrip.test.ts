/**
 * The PDDL import and the PDDL export (src/planning/pddl-export/pddl.ts) as each other's inverse, as
 * properties:
 * (i) importing an exported model gives the model back (objects with their types, actions,
 *     initial state as a set, goals, constraints), for imported IPC problems and for the
 *     project's own formal models where the export needs no renaming or type predicates;
 * (ii) the round trip accepts exactly the plans the original does: random walks of applicable
 *     actions and their mutations (a step dropped, swapped, duplicated, replaced, an argument
 *     changed) get the same verdict at the same step from the simulator on both.
 * fast-check runs with fixed seeds and modest counts.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import type { Condition, Effect } from "../../../src/formal/expression.js";
import { readFormalModel } from "../../../src/formal/model.js";
import type { FormalModel } from "../../../src/formal/model.js";
import { toPddl } from "../../../src/planning/pddl-export/pddl.js";
import { simulatePlan } from "../../../src/formal/simulate.js";
import { hasType } from "../../../src/formal/state.js";
import { BASE } from "../../formal/helpers.js";
import { RICH_DOMAIN, RICH_PROBLEM, imported } from "./fixtures.js";
import { ipcFolders, ipcProblems } from "./ipc.js";

/** Effects as the export writes them: nested `and`s opened (the order of updates kept). */
function flatEffects(effects: readonly Effect[]): Effect[] {
  return effects.flatMap((e) => (e.kind === "and" ? flatEffects(e.parts) : [e]));
}

/** Preconditions as the export writes them: the parts of top-level `and`s, in order, under one `and`. */
function flatConditions(conditions: readonly Condition[]): Condition[] {
  return conditions.flatMap((c) => (c.kind === "and" && c.parts.length > 0 ? flatConditions(c.parts) : [c]));
}

/** A model as the round trip must keep it. */
function essence(model: FormalModel): unknown {
  return {
    objects: model.objects.map((o) => ({ symbol: o.symbol, types: o.types.filter((t) => t !== "object").sort() })),
    actions: model.actions.map((a) => ({ name: a.name, parameters: a.parameters, preconditions: flatConditions(a.preconditions), effects: flatEffects(a.effects), informal: a.informal })),
    initialState: [...new Set(model.initialState.map((f) => JSON.stringify(f)))].sort(),
    goals: flatConditions(model.goals.map((g) => g.condition)),
    constraints: model.constraints.map((c) => c.condition),
  };
}

/** The model read back from the export of `model`. */
function roundTrip(model: FormalModel): { back: FormalModel; renamed: number } {
  const files = toPddl(model, { name: "round-trip" });
  return { back: imported(files.domain, files.problem).model, renamed: files.renamed.length };
}

/** The IPC problems the round trips start from: the first two of each domain. */
const IPC = ipcFolders().flatMap((folder) => ipcProblems(folder, 2).map((p) => ({ name: `${folder}/${p.instance}`, model: imported(p.domain, p.problem).model })));

/** Known plans beside a project model (`NAME.plans.json`). */
interface KnownPlans {
  valid: string[][];
  invalid: { plan: string[]; step: number }[];
}

/** The project's own formal models (test fixtures and benchmark problems), read as a session reads them, with their known plans. */
function projectModels(): { name: string; model: FormalModel; plans: KnownPlans | undefined }[] {
  const dirs = [new URL("../../fixtures/formal/", import.meta.url), new URL("../../../bench/problems/", import.meta.url)];
  return dirs.flatMap((dir) =>
    readdirSync(fileURLToPath(dir))
      .filter((f) => f.endsWith(".ttl"))
      .sort()
      .map((f) => {
        const plans = new URL(`${f.slice(0, -".ttl".length)}.plans.json`, dir);
        return {
          name: f,
          model: readFormalModel(new Parser({ baseIRI: BASE }).parse(readFileSync(new URL(f, dir), "utf8"))),
          plans: existsSync(plans) ? (JSON.parse(readFileSync(plans, "utf8")) as KnownPlans) : undefined,
        };
      }),
  );
}

/** Whether the export of `model` is an identity up to normal forms: no renaming, no action left out, no type predicates. */
function exportsAsItIs(model: FormalModel): boolean {
  const files = toPddl(model, { name: "round-trip" });
  return files.renamed.length === 0 && !/; action \S+ is left out/.test(files.domain) && !/\(is-/.test(files.domain);
}

describe("import ∘ export gives the model back", () => {
  it("for every imported IPC problem tried, and the rich example", () => {
    const all = [...IPC, { name: "rich", model: imported(RICH_DOMAIN, RICH_PROBLEM).model }];
    expect(all.length).toBe(33);
    for (const { name, model } of all) {
      const { back, renamed } = roundTrip(model);
      expect(renamed, name).toBe(0);
      expect(essence(back), name).toEqual(essence(model));
    }
  });

  it("for the project's formal models that the export writes without renaming or type predicates", () => {
    // Renamed symbols, left-out actions and (is-TYPE …) predicates are the export's documented changes: not an identity.
    const fitting = projectModels().filter((m) => exportsAsItIs(m.model));
    for (const { name, model } of fitting) expect(essence(roundTrip(model).back), name).toEqual(essence(model));
    expect(fitting.map((m) => m.name)).toContain("blocksworld.ttl");
    expect(fitting.length).toBeGreaterThanOrEqual(3);
  });
});

/** One applicable step, chosen by `choice` among the groundings that the simulator accepts after `prefix`; undefined when none of the tried ones is. */
function applicableStep(model: FormalModel, prefix: readonly string[], choice: number): string | undefined {
  const runnable = model.actions.filter((a) => a.informal.length === 0);
  for (let attempt = 0; attempt < 24; attempt += 1) {
    const seed = choice * 31 + attempt * 7919;
    const action = runnable[seed % runnable.length];
    if (action === undefined) return undefined;
    const args = action.parameters.map((p, i) => {
      const candidates = model.objects.filter((o) => hasType(o, p.type));
      return candidates[Math.floor(seed / (i + 1) + i * 13) % Math.max(1, candidates.length)]?.symbol ?? "none";
    });
    const step = `(${[action.name, ...args].join(" ")})`;
    const verdict = simulatePlan(model, [...prefix, step]);
    // Applicable when nothing failed up to this step (a goal not reached yet is fine).
    if (verdict.step === undefined || verdict.step > prefix.length + 1) return step;
  }
  return undefined;
}

/** A random walk of applicable steps from the initial state, driven by `choices`. */
function walk(model: FormalModel, choices: readonly number[]): string[] {
  const plan: string[] = [];
  for (const c of choices) {
    const step = applicableStep(model, plan, c);
    if (step === undefined) break;
    plan.push(step);
  }
  return plan;
}

type Mutation = { kind: "drop" | "duplicate" | "swap" | "replace" | "argument"; at: number; other: number };

function mutate(model: FormalModel, plan: readonly string[], m: Mutation): string[] {
  const out = [...plan];
  if (out.length === 0) return out;
  const i = m.at % out.length;
  const j = m.other % out.length;
  switch (m.kind) {
    case "drop":
      out.splice(i, 1);
      break;
    case "duplicate":
      out.splice(i, 0, out[i] as string);
      break;
    case "swap":
      [out[i], out[j]] = [out[j] as string, out[i] as string];
      break;
    case "replace":
      out[i] = out[j] as string;
      break;
    case "argument": {
      const parts = (out[i] as string).slice(1, -1).split(" ");
      if (parts.length > 1) parts[1 + (m.other % (parts.length - 1))] = model.objects[m.other % model.objects.length]?.symbol ?? "none";
      out[i] = `(${parts.join(" ")})`;
      break;
    }
  }
  return out;
}

const verdictOf = (model: FormalModel, plan: readonly string[]): { verdict: string; step: number | undefined } => {
  const v = simulatePlan(model, plan);
  return { verdict: v.verdict, step: v.step };
};

describe("the round trip accepts exactly the plans the original accepts", () => {
  it("on the project's formal models: their known valid and invalid plans, and each mutated", () => {
    let checked = 0;
    for (const { name, model, plans } of projectModels()) {
      if (plans === undefined || !exportsAsItIs(model)) continue;
      const { back } = roundTrip(model);
      for (const plan of plans.valid) expect(verdictOf(back, plan), name).toEqual({ verdict: "valid", step: undefined });
      for (const { plan, step } of plans.invalid) expect(verdictOf(back, plan), name).toEqual({ verdict: "invalid", step });
      for (const plan of plans.valid) {
        for (const kind of ["drop", "duplicate", "swap", "argument"] as const) {
          const mutated = mutate(model, plan, { kind, at: 1, other: 2 });
          expect(verdictOf(back, mutated), `${name}: ${mutated.join(" ")}`).toEqual(verdictOf(model, mutated));
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  const subjects = [{ name: "rich", model: imported(RICH_DOMAIN, RICH_PROBLEM).model }, ...IPC.filter((_, i) => i % 2 === 0)];
  const mutation = fc.record({ kind: fc.constantFrom("drop", "duplicate", "swap", "replace", "argument"), at: fc.nat(), other: fc.nat() }) as fc.Arbitrary<Mutation>;

  const seen = { midPlan: 0, atGoal: 0, valid: 0 };
  const tally = (v: { verdict: string; step: number | undefined }, plan: readonly string[]): void => {
    if (v.verdict === "valid") seen.valid += 1;
    else if (v.step === plan.length + 1) seen.atGoal += 1;
    else seen.midPlan += 1;
  };

  it("rich example: a plan that reaches the goal is valid on both", () => {
    const model = imported(RICH_DOMAIN, RICH_PROBLEM).model;
    const plan = ["(load p1 t1 depot)", "(drive t1 depot shop)", "(unload-all t1 shop)", "(drive t1 shop depot)"];
    expect(verdictOf(roundTrip(model).back, plan)).toEqual({ verdict: "valid", step: undefined });
    expect(verdictOf(model, plan)).toEqual({ verdict: "valid", step: undefined });
  });

  for (const { name, model } of subjects) {
    it(`${name}: random walks and their mutations, same verdict at the same step`, () => {
      const { back } = roundTrip(model);
      let walked = 0;
      fc.assert(
        fc.property(fc.array(fc.nat({ max: 100_000 }), { minLength: 1, maxLength: 6 }), fc.array(mutation, { maxLength: 3 }), (choices, mutations) => {
          const plan = walk(model, choices);
          walked += plan.length;
          expect(verdictOf(back, plan), plan.join(" ")).toEqual(verdictOf(model, plan));
          tally(verdictOf(model, plan), plan);
          let mutated = plan;
          for (const m of mutations) {
            mutated = mutate(model, mutated, m);
            expect(verdictOf(back, mutated), mutated.join(" ")).toEqual(verdictOf(model, mutated));
            tally(verdictOf(model, mutated), mutated);
          }
        }),
        { seed: 3030, numRuns: 12 },
      );
      // The walks did go somewhere: applicable steps were found.
      expect(walked).toBeGreaterThan(0);
    });
  }

  it("met failures inside plans and at the goal, not only one kind of verdict", () => {
    expect(seen.midPlan).toBeGreaterThan(10);
    expect(seen.atGoal).toBeGreaterThan(10);
  });
});
