/**
 * The PDDL export's guarantee: what the files say and what the coordinator's simulator checks
 * agree. Every model of test/fixtures/formal/*.ttl and bench/problems/*.ttl (whatever is
 * there) is exported with its known plans (`<name>.plans.json` beside it) and mutations of
 * them, read back with test/support/pddl-reader.ts, and each plan is simulated on the
 * original model and, as its plan file says it, on the model read back: same verdict, same
 * step. Then the same over random plans and random small models.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import type { Atom, Condition, Effect, InitialFact, NumericExpression, Term, TypedVariable } from "../../src/formal/expression.js";
import { readFormalModel } from "../../src/formal/model.js";
import type { FormalAction, FormalModel, FormalObject } from "../../src/formal/model.js";
import { toPddl } from "../../src/planning/pddl-export/pddl.js";
import { simulatePlan } from "../../src/formal/simulate.js";
import { readPddl, readPlanFile } from "../support/pddl-reader.js";
import { BASE } from "./helpers.js";

interface KnownPlans {
  valid: string[][];
  invalid: { plan: string[]; step: number }[];
}

const DIRECTORIES = [new URL("../fixtures/formal/", import.meta.url), new URL("../../bench/problems/", import.meta.url)];

/** Every model file there is, with its plans when it has them. */
function models(): { name: string; turtle: string; plans: KnownPlans | undefined; bench: boolean }[] {
  return DIRECTORIES.flatMap((dir) => {
    const path = fileURLToPath(dir);
    if (!existsSync(path)) return [];
    return readdirSync(path)
      .filter((f) => f.endsWith(".ttl"))
      .sort()
      .map((f) => {
        const plansPath = `${path}${f.slice(0, -".ttl".length)}.plans.json`;
        return {
          name: `${path.includes("bench") ? "bench/problems" : "fixtures/formal"}/${f}`,
          turtle: readFileSync(`${path}${f}`, "utf8"),
          plans: existsSync(plansPath) ? (JSON.parse(readFileSync(plansPath, "utf8")) as KnownPlans) : undefined,
          bench: path.includes("bench"),
        };
      });
  });
}

/** The formal model of a Turtle file, parsed as Turtle (whatever directives it uses) against a session base. */
function modelOf(turtle: string): FormalModel {
  return readFormalModel(new Parser({ baseIRI: BASE, format: "text/turtle" }).parse(turtle));
}

/** Each step dropped, each neighbouring pair swapped, each step done twice. */
function mutations(plan: readonly string[]): string[][] {
  const out: string[][] = [];
  plan.forEach((_, i) => {
    out.push(plan.filter((__, j) => j !== i));
    out.push([...plan.slice(0, i + 1), plan[i] as string, ...plan.slice(i + 1)]);
    if (i + 1 < plan.length) out.push([...plan.slice(0, i), plan[i + 1] as string, plan[i] as string, ...plan.slice(i + 2)]);
  });
  return out;
}

/** Simulates each plan on the model and, through the export, on the model read back. */
function bothWays(model: FormalModel, plans: readonly (readonly string[])[]): { plan: readonly string[]; original: Verdict; exported: Verdict }[] {
  const files = toPddl(model, { name: "round-trip", plans: plans.map((steps, i) => ({ label: `plan ${i + 1}`, steps })) });
  const back = readPddl(files.domain, files.problem);
  return plans.map((plan, i) => ({
    plan,
    original: verdictOf(simulatePlan(model, plan)),
    exported: verdictOf(simulatePlan(back, readPlanFile(files.plans[i] as string))),
  }));
}

type Verdict = { verdict: string; step: number | undefined };

function verdictOf(v: { verdict: string; step?: number }): Verdict {
  return { verdict: v.verdict, step: v.step };
}

const found = models();

describe("the PDDL export round trip", () => {
  it("finds the fixtures (and whatever bench problems exist)", () => {
    expect(found.map((m) => m.name)).toEqual(expect.arrayContaining(["fixtures/formal/blocksworld.ttl", "fixtures/formal/courier.ttl"]));
  });

  describe.each(found)("$name", ({ turtle, plans, bench }) => {
    const model = modelOf(turtle);
    const known: KnownPlans = { valid: plans?.valid ?? [], invalid: plans?.invalid ?? [] };
    const all = [...known.valid, ...known.invalid.map((p) => p.plan)];

    it("exports a domain and problem that read back", () => {
      const files = toPddl(model, { name: "round-trip" });
      expect(() => readPddl(files.domain, files.problem)).not.toThrow();
    });

    it("the known plans get the verdicts their file states", () => {
      for (const plan of known.valid) expect(simulatePlan(model, plan), plan.join(" ")).toMatchObject({ verdict: "valid" });
      for (const { plan, step } of known.invalid) expect(simulatePlan(model, plan), plan.join(" ")).toMatchObject({ verdict: "invalid", step });
    });

    it("every known plan and every mutation of one: the same verdict at the same step on both sides", () => {
      const plansToCheck = [...all, ...all.flatMap(mutations), []];
      for (const { plan, original, exported } of bothWays(model, plansToCheck)) expect(exported, plan.join(" ")).toEqual(original);
    });

    it("random plans over the model's actions and objects agree on both sides", () => {
      const actions = [...new Set(model.actions.map((a) => a.name)), "no-such-action"];
      const symbols = [...model.objects.map((o) => o.symbol).filter((s) => /^[^\s(),;]+$/.test(s)), "nobody"];
      const step = fc.tuple(fc.constantFrom(...actions), fc.array(fc.constantFrom(...symbols), { maxLength: 3 })).map(([a, args]) => `${a}(${args.join(", ")})`);
      fc.assert(
        fc.property(fc.array(step, { maxLength: 8 }), (plan) => {
          const [{ original, exported }] = bothWays(model, [plan]) as [ReturnType<typeof bothWays>[number]];
          expect(exported).toEqual(original);
        }),
        // Bench problems can be large: fewer runs there; their known plans are checked in full above.
        { numRuns: bench ? 40 : 150 },
      );
    });
  });

  it("a plan naming an action the export leaves out is unverifiable on both sides", () => {
    const courier = found.find((m) => m.name.endsWith("courier.ttl"));
    if (courier === undefined) throw new Error("the courier fixture is missing");
    const model = modelOf(courier.turtle);
    const [result] = bothWays(model, [["drive(van-1, 0900-north, south)", "Inspect(Van-1)"]]);
    expect(result?.original).toEqual({ verdict: "unverifiable", step: 2 });
    expect(result?.exported).toEqual(result?.original);
  });

  it("random small models, with odd names, overlapping types and symbols no entity defines, agree on random plans", () => {
    fc.assert(
      fc.property(modelAndPlans(), ({ model, plans }) => {
        for (const { plan, original, exported } of bothWays(model, plans)) expect(exported, `${plan.join(" ")}\n${JSON.stringify(model)}`).toEqual(original);
      }),
      { numRuns: 300 },
    );
  });
});

// ---- random models --------------------------------------------------------------------------

/** Object symbols: valid names, a leading digit, a space, a dot, a reserved word, one that a renaming could collide with. */
const SYMBOLS = ["a", "b-1", "0900", "block c", "x.y", "and", "o0900", "start", "Q_1"].map((s) => s.toLowerCase());
const TYPES = ["block", "t-1", "2d", "number", "object"];
/** Types objects have: few, so that two of them often share some objects but not all. */
const OBJECT_TYPES = ["block", "t-1", "2d", "object"];
const PREDICATES = [
  { name: "p", arity: 0 },
  { name: "on", arity: 2 },
  { name: "on", arity: 1 },
  { name: "1st", arity: 1 },
  { name: "is-block", arity: 1 },
];
const FLUENTS = [
  { name: "f", arity: 0 },
  { name: "fuel.level", arity: 1 },
  { name: "p", arity: 0 },
];
const VARIABLES = ["?x", "?y.z", "?1"];
const GHOSTS = ["ghost", "hq-2"];

/** Expressions can only name symbols the expression parser reads as one name. */
const nameable = (s: string): boolean => /^[^\s();]+$/.test(s) && !/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(s);

function modelAndPlans(): fc.Arbitrary<{ model: FormalModel; plans: string[][] }> {
  const objectArb = fc.uniqueArray(
    fc.record({ symbol: fc.constantFrom(...SYMBOLS), types: fc.uniqueArray(fc.constantFrom(...OBJECT_TYPES), { maxLength: 3 }) }),
    { minLength: 1, maxLength: 6, selector: (o) => o.symbol },
  );
  return objectArb.chain((raw) => {
    const objects: FormalObject[] = raw.map((o) => ({ symbol: o.symbol, types: o.types, nodes: [] })).sort((a, b) => (a.symbol < b.symbol ? -1 : 1));
    const constants = [...objects.map((o) => o.symbol).filter(nameable), ...GHOSTS];
    const real = objects.map((o) => o.symbol).filter(nameable);
    const g = new Generators(constants, real);
    const actionArb = fc
      .record({
        name: fc.constantFrom("move", "pick-up", "a.b", "2go", "and", "drop"),
        parameters: fc.uniqueArray(fc.record({ name: fc.constantFrom(...VARIABLES), type: fc.option(fc.constantFrom(...TYPES), { nil: undefined }) }), {
          maxLength: 2,
          selector: (v) => v.name,
        }),
      })
      .chain(({ name, parameters }) => {
        const params: TypedVariable[] = parameters.map((p) => (p.type === undefined ? { name: p.name } : { name: p.name, type: p.type }));
        const scope = params.map((p) => p.name);
        return fc.record({
          preconditions: fc.array(g.condition(2, scope), { maxLength: 1 }),
          effects: fc.array(g.effect(2, scope), { minLength: 1, maxLength: 2 }),
          informal: fc.constantFrom("", "", "", "its precondition is free text"),
        }).map(({ informal, ...parts }): FormalAction => ({ name, node: `_:${name}`, parameters: params, ...parts, informal: informal === "" ? [] : [informal] }));
      });
    const initArb = fc.array(
      fc.constantFrom(...PREDICATES).chain((p) => fc.array(fc.constantFrom(...constants), { minLength: p.arity, maxLength: p.arity }).map((args): InitialFact => ({ kind: "atom", predicate: p.name, args }))),
      { maxLength: 8 },
    );
    // Every fluent has a value for every entity, so no read of one stops the simulation; some
    // are given twice, and the last value counts.
    const fluentValues = fc.array(fc.integer({ min: -3, max: 6 }), { minLength: 64, maxLength: 64 }).map((values) => {
      const facts: InitialFact[] = [];
      let i = 0;
      for (const f of FLUENTS) {
        const argLists = f.arity === 0 ? [[]] : objects.map((o) => [o.symbol]);
        for (const args of argLists) facts.push({ kind: "fluent", name: f.name, args, value: values[i++ % values.length] as number });
      }
      return [...facts, ...facts.filter((_, j) => (values[j] as number) % 2 === 0).map((f) => ({ ...f, value: (values[(i += 1) % values.length] as number) + 10 }))];
    });
    const statement = g.condition(2, []).map((condition) => ({ node: "_:s", text: "", condition }));
    const modelArb = fc.record({
      actions: fc.array(actionArb, { minLength: 1, maxLength: 3 }),
      init: initArb,
      fluents: fluentValues,
      constraints: fc.oneof({ weight: 2, arbitrary: fc.array(statement, { maxLength: 0 }) }, { weight: 1, arbitrary: fc.array(statement, { minLength: 1, maxLength: 1 }) }),
      goals: fc.array(statement, { maxLength: 2 }),
    }).map(({ actions, init, fluents, constraints, goals }): FormalModel => {
      const sorted = [...actions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // One name on several actions: none of them runs, as readFormalModel decides.
      for (const a of sorted) if (sorted.filter((b) => b.name === a.name).length > 1) a.informal = [...a.informal, "ambiguous"];
      return { objects, actions: sorted, initialState: [...init, ...fluents], constraints, goals, findings: [], notMachineCheckable: [] };
    });
    const anyStep = fc
      .tuple(fc.constantFrom("move", "pick-up", "2go", "and", "drop", "fly"), fc.array(fc.constantFrom(...constants, "nobody", "0900"), { maxLength: 2 }))
      .map(([a, args]) => `${a}(${args.join(", ")})`);
    // Mostly steps the model could take (its actions, their arity, its objects), so plans get past step 1.
    const args = real.length > 0 ? fc.constantFrom(...real) : fc.constantFrom(...constants);
    return modelArb.chain((model) => {
      const modelStep = fc
        .constantFrom(...model.actions)
        .chain((a) => fc.array(args, { minLength: a.parameters.length, maxLength: a.parameters.length }).map((xs) => `${a.name}(${xs.join(", ")})`));
      const step = fc.oneof({ weight: 4, arbitrary: modelStep }, { weight: 1, arbitrary: anyStep });
      return fc.record({ model: fc.constant(model), plans: fc.array(fc.array(step, { maxLength: 6 }), { minLength: 1, maxLength: 4 }) });
    });
  });
}

/** Random expressions whose variables are all bound and whose fluents always have a value. */
class Generators {
  constructor(
    private readonly constants: string[],
    private readonly real: string[],
  ) {}

  term(scope: readonly string[], fluentArgument = false): fc.Arbitrary<Term> {
    const constants = fluentArgument ? this.real : this.constants;
    const options: fc.Arbitrary<Term>[] = [];
    if (constants.length > 0) options.push(fc.constantFrom(...constants).map((name): Term => ({ kind: "constant", name })));
    if (scope.length > 0) options.push(fc.constantFrom(...scope).map((name): Term => ({ kind: "variable", name })));
    return options.length === 0 ? fc.constant({ kind: "constant", name: "ghost" }) : fc.oneof(...options);
  }

  atom(scope: readonly string[]): fc.Arbitrary<Atom> {
    return fc.constantFrom(...PREDICATES).chain((p) =>
      fc.array(this.term(scope), { minLength: p.arity, maxLength: p.arity }).map((args): Atom => ({ kind: "atom", predicate: p.name, args })),
    );
  }

  fluent(scope: readonly string[]): fc.Arbitrary<Extract<NumericExpression, { kind: "fluent" }>> {
    // A fluent argument must be an object that has a value: a real constant, or a variable (bound to an entity).
    const usable = FLUENTS.filter((f) => f.arity === 0 || this.real.length > 0 || scope.length > 0);
    return fc.constantFrom(...usable).chain((f) =>
      fc.array(this.term(scope, true), { minLength: f.arity, maxLength: f.arity }).map((args) => ({ kind: "fluent" as const, name: f.name, args })),
    );
  }

  numeric(depth: number, scope: readonly string[]): fc.Arbitrary<NumericExpression> {
    const leaves: fc.Arbitrary<NumericExpression>[] = [
      fc.oneof(fc.integer({ min: -4, max: 9 }), fc.constantFrom(0.5, 1e-7, 2.25)).map((value): NumericExpression => ({ kind: "number", value })),
      this.fluent(scope),
    ];
    if (depth <= 0) return fc.oneof(...leaves);
    return fc.oneof(
      ...leaves,
      fc.tuple(fc.constantFrom("+" as const, "-" as const, "*" as const), fc.array(this.numeric(depth - 1, scope), { minLength: 1, maxLength: 3 })).map(
        ([op, args]): NumericExpression => ({ kind: "arithmetic", op: args.length === 1 ? "-" : op, args }),
      ),
    );
  }

  condition(depth: number, scope: readonly string[]): fc.Arbitrary<Condition> {
    const leaves: fc.Arbitrary<Condition>[] = [
      this.atom(scope),
      fc.tuple(this.term(scope), this.term(scope)).map(([left, right]): Condition => ({ kind: "equal", left, right })),
      fc.tuple(fc.constantFrom("<" as const, "<=" as const, "=" as const, ">=" as const, ">" as const), this.numeric(1, scope), this.numeric(1, scope)).map(
        ([op, left, right]): Condition => ({ kind: "compare", op, left, right }),
      ),
    ];
    if (depth <= 0) return fc.oneof(...leaves);
    const sub = (s: readonly string[] = scope): fc.Arbitrary<Condition> => this.condition(depth - 1, s);
    const quantified = fc
      .tuple(fc.constantFrom("forall" as const, "exists" as const), fc.constantFrom(...VARIABLES), fc.option(fc.constantFrom(...TYPES), { nil: undefined }))
      .chain(([kind, name, type]) =>
        sub([...scope, name]).map((body): Condition => ({ kind, variables: [type === undefined ? { name } : { name, type }], body })),
      );
    return fc.oneof(
      { weight: 3, arbitrary: fc.oneof(...leaves) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("and" as const, "or" as const), fc.array(sub(), { minLength: 1, maxLength: 3 })).map(([kind, parts]): Condition => ({ kind, parts })) },
      { weight: 1, arbitrary: sub().map((part): Condition => ({ kind: "not", part })) },
      { weight: 1, arbitrary: fc.tuple(sub(), sub()).map(([antecedent, consequent]): Condition => ({ kind: "imply", antecedent, consequent })) },
      { weight: 2, arbitrary: quantified },
    );
  }

  effect(depth: number, scope: readonly string[]): fc.Arbitrary<Effect> {
    const leaves: fc.Arbitrary<Effect>[] = [
      this.atom(scope).map((atom): Effect => ({ kind: "add", atom })),
      this.atom(scope).map((atom): Effect => ({ kind: "delete", atom })),
      fc.tuple(fc.constantFrom("increase" as const, "decrease" as const, "assign" as const, "scale-up" as const, "scale-down" as const), this.fluent(scope), this.numeric(1, scope)).map(
        ([op, fluent, value]): Effect => ({ kind: "numeric", op, fluent, value }),
      ),
    ];
    if (depth <= 0) return fc.oneof(...leaves);
    return fc.oneof(
      { weight: 3, arbitrary: fc.oneof(...leaves) },
      { weight: 1, arbitrary: fc.array(this.effect(depth - 1, scope), { maxLength: 3 }).map((parts): Effect => ({ kind: "and", parts })) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom(...VARIABLES), fc.option(fc.constantFrom(...TYPES), { nil: undefined }))
          .chain(([name, type]) =>
            this.effect(depth - 1, [...scope, name]).map((body): Effect => ({ kind: "forall", variables: [type === undefined ? { name } : { name, type }], body })),
          ),
      },
      { weight: 1, arbitrary: fc.tuple(this.condition(1, scope), this.effect(depth - 1, scope)).map(([condition, effect]): Effect => ({ kind: "when", condition, effect })) },
    );
  }
}
