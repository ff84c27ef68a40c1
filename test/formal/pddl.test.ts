import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allocateNames, isPddlName } from "../../src/planning/pddl-export/pddl-names.js";
import type { PddlRenaming } from "../../src/planning/pddl-export/pddl-names.js";
import { plainNumber, quote, toPddl } from "../../src/planning/pddl-export/pddl.js";
import { readForms } from "../../src/formal/sexpr.js";
import { simulatePlan } from "../../src/formal/simulate.js";
import { readPddl, readPlanFile } from "../support/pddl-reader.js";
import { fixture, modelOf } from "./helpers.js";

const FILE_LIMITS = { maxLength: 10_000_000, maxDepth: 1_000 };

/** A model of one action over typed entities, with whatever else the test adds. */
function model(extra: string, entities = '<#a> a mfr:Entity ; mfr:entityType "Block" . <#b> a mfr:Entity ; mfr:entityType "Block" .'): ReturnType<typeof modelOf> {
  return modelOf(`${entities}\n${extra}`);
}

function action(name: string, parameters: string, pre: string | undefined, eff: string): string {
  const precondition = pre === undefined ? "" : `mfr:hasPrecondition [ mfr:expression ${JSON.stringify(pre)} ] ;`;
  return `<#${name.replace(/\W/g, "")}> mfr:actionName ${JSON.stringify(name)} ; mfr:hasParameter ${parameters} ; ${precondition} mfr:hasEffect [ mfr:expression ${JSON.stringify(eff)} ] .`;
}

function verdict(v: { verdict: string; step?: number }): [string, number | undefined] {
  return [v.verdict, v.step];
}

/** The lines of a file that are not comments. */
function body(text: string): string {
  return text
    .split("\n")
    .filter((l) => !l.trimStart().startsWith(";"))
    .join("\n");
}

describe("PDDL names", () => {
  it("keeps valid names, sanitises the rest, numbers collisions, and lists every renaming", () => {
    const renamed: PddlRenaming[] = [];
    const names = allocateNames(
      "object",
      ["a", "block a", "block_a", "0900", "o0900", "and", "x.y", "Start"].map((s) => ({ key: s, wanted: s })),
      renamed,
    );
    expect(Object.fromEntries(names)).toEqual({
      a: "a",
      "block a": "block_a-2",
      block_a: "block_a",
      "0900": "o0900-2",
      o0900: "o0900",
      and: "and_",
      "x.y": "x_y",
      Start: "start_",
    });
    expect(new Set(names.values()).size).toBe(names.size);
    expect(renamed).toContainEqual({ kind: "object", from: "block a", to: "block_a-2" });
    expect(renamed.map((r) => r.from)).not.toContain("block_a");
  });

  it("every name it gives is a valid PDDL name, and distinct", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 12 }), (symbols) => {
        const names = allocateNames("predicate", symbols.map((s) => ({ key: s, wanted: s })), []);
        for (const n of names.values()) expect(isPddlName(n), n).toBe(true);
        expect(new Set(names.values()).size).toBe(symbols.length);
      }),
    );
  });

  it("renames consistently in the model and in plans, and says so in the headers", () => {
    const m = modelOf(`
      <#n> a mfr:Entity ; mfr:symbol "0900-North" . <#s> a mfr:Entity ; mfr:symbol "South" .
      <#p> mfr:initialState "(at 0900-north)" .
      ${action("Go To", '"?x"', "(at ?x)", "(at ?x)")}
      ${action("go", '"?x"', "(at ?x)", "(and (not (at ?x)) (at South))")}
      <#g> a mfr:Goal ; mfr:expression "(at south)" .`);
    const files = toPddl(m, { name: "s1", plans: [{ label: "alice", steps: ["go(0900-North)", "go(nowhere)"] }] });
    expect(files.domain).toContain("(:action go_to");
    expect(files.domain).toContain(';   action "go to" -> go_to');
    expect(files.problem).toContain(';   object "0900-north" -> o0900-north');
    expect(body(files.problem)).toContain("(at o0900-north)");
    expect(files.plans[0]?.split("\n").filter((l) => l.startsWith("("))).toEqual(["(go o0900-north)", "(go nowhere)"]);
  });
});

describe("numbers and comments", () => {
  it("writes numbers without exponents, as the same double", () => {
    expect(plainNumber(1e-7)).toBe("0.0000001");
    expect(plainNumber(1.5e21)).toBe("1500000000000000000000");
    expect(plainNumber(-2.5e-10)).toBe("-0.00000000025");
    expect(plainNumber(42)).toBe("42");
    expect(Number(plainNumber(Infinity))).toBe(Infinity);
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const text = plainNumber(n);
        expect(text).toMatch(/^-?\d+(\.\d+)?$/);
        expect(Number(text)).toBe(n === 0 ? 0 : n);
      }),
    );
  });

  it("quotes model text onto one printable-ASCII line that JSON gives back", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const q = quote(text);
        expect(q).toMatch(/^[\x20-\x7e]*$/);
        expect(JSON.parse(q)).toBe(text);
      }),
    );
  });

  it("no label, verdict, step or reason breaks the files", () => {
    const m = modelOf(fixture("courier.ttl"));
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 30 }), fc.array(fc.string({ unit: "binary", maxLength: 20 }), { maxLength: 4 }), (label, steps) => {
        const files = toPddl(m, { name: label, plans: [{ label, steps, verification: { verdict: "invalid", step: 1, reason: label } }] });
        for (const text of [files.domain, files.problem]) {
          const read = readForms(text, FILE_LIMITS);
          expect(read.ok && read.forms.length).toBe(1);
        }
        for (const line of (files.plans[0] as string).split("\n")) expect(line === "" || line.startsWith(";") || line.startsWith("(")).toBe(true);
        const back = readPddl(files.domain, files.problem);
        expect(verdict(simulatePlan(back, readPlanFile(files.plans[0] as string)))).toEqual(verdict(simulatePlan(m, steps)));
      }),
      { numRuns: 60 },
    );
  });

  it("writes scale-up and scale-down as they are, under :numeric-fluents, and they read back to the same verdicts", () => {
    const m = model(
      `<#p> mfr:initialState "(= (level) 3)" . ${action("grow", '"?x - Block"', "(< (level) 100)", "(scale-up (level) 4)")}` +
        action("shrink", '"?x - Block"', "(> (level) 0)", "(scale-down (level) (- (level) 12))"),
    );
    const files = toPddl(m, { name: "s1" });
    expect(files.domain).toContain(":effect (scale-up (level) 4)");
    expect(files.domain).toContain(":effect (scale-down (level) (- (level) 12))");
    expect(files.domain).toMatch(/\(:requirements [^)]*:numeric-fluents/);
    const back = readPddl(files.domain, files.problem);
    // grow makes 12, and scaling down by 12 - 12 then divides by zero: invalid at step 2 on both sides.
    for (const plan of [["grow(a)"], ["grow(a)", "shrink(a)"], ["grow(a)", "grow(a)", "shrink(a)"]]) {
      expect(verdict(simulatePlan(back, plan))).toEqual(verdict(simulatePlan(m, plan)));
    }
    expect(simulatePlan(m, ["grow(a)", "shrink(a)"])).toMatchObject({ verdict: "invalid", step: 2 });
  });

  it("an expression's negative number is (- n), an initial value's is -n", () => {
    const m = model(`<#p> mfr:initialState "(= (level) -3)" . ${action("lower", '"?x - Block"', "(> (level) -5)", "(decrease (level) 1)")}`);
    const files = toPddl(m, { name: "s1" });
    expect(files.domain).toContain("(> (level) (- 5))");
    expect(files.problem).toContain("(= (level) -3)");
  });
});

describe("types", () => {
  it("types that nest become a hierarchy; an object is declared with its most specific type", () => {
    const m = model(
      action("lift", '"?x - Thing"', "(light ?x)", "(up ?x)") + action("kick", '"?x - Block"', "(light ?x)", "(up ?x)"),
      '<#a> a mfr:Entity ; mfr:entityType "Block" , "Thing" . <#b> a mfr:Entity ; mfr:entityType "Thing" . <#c> a mfr:Entity .',
    );
    const files = toPddl(m, { name: "s1" });
    expect(files.domain).toMatch(/\(:types\s+thing - object\s+block - thing\)/);
    expect(files.problem).toMatch(/a - block\s+c - object\s+b - thing\)/);
    expect(files.domain).toContain("(light ?a1 - thing)");
    expect(files.domain).not.toContain("is-");
  });

  it("an untyped variable before a typed one is written - object, since PDDL would give it the later type", () => {
    const m = model(action("put", '( "?x" "?y - Block" )', "(forall (?u - Object ?v - Block) (light ?u))", "(on ?x ?y)"), '<#a> a mfr:Entity ; mfr:entityType "Block" . <#t> a mfr:Entity .');
    const files = toPddl(m, { name: "s1", plans: [{ label: "p", steps: ["put(t, a)"] }] });
    expect(files.domain).toContain(":parameters (?x - object ?y - block)");
    expect(files.domain).toContain("(forall (?u - object ?v - block) (light ?u))");
    expect(verdict(simulatePlan(readPddl(files.domain, files.problem), readPlanFile(files.plans[0] as string)))).toEqual(verdict(simulatePlan(m, ["put(t, a)"])));
  });

  it("types with the same objects are chained; a type nobody has is declared", () => {
    const m = model(action("lift", '"?x - Heavy"', "(light ?x)", "(up ?x)") + action("tip", '"?x - Ghost"', "(light ?x)", "(up ?x)"), '<#a> a mfr:Entity ; mfr:entityType "Block" , "Heavy" .');
    const files = toPddl(m, { name: "s1" });
    expect(files.domain).toMatch(/\(:types\s+block ghost - object\s+heavy - block\)/);
    expect(files.problem).toContain("a - heavy");
  });

  it("a type that overlaps another becomes a predicate, checked first, and true of its objects", () => {
    const m = model(action("lift", '"?x - Thing"', "(light ?x)", "(forall (?y - Thing) (up ?y))"), '<#a> a mfr:Entity ; mfr:entityType "Block" , "Thing" . <#b> a mfr:Entity ; mfr:entityType "Block" . <#c> a mfr:Entity ; mfr:entityType "Thing" .');
    const files = toPddl(m, { name: "s1" });
    expect(files.domain).toContain(':precondition (and (is-thing ?x) (light ?x))');
    expect(files.domain).toContain(":effect (forall (?y) (when (is-thing ?y) (up ?y)))");
    expect(files.domain).toContain('; Type "thing" overlaps other types');
    expect(body(files.problem)).toMatch(/\(is-thing a\)\s+\(is-thing c\)\)/);
  });

  it("a symbol no entity defines is of type object, and untyped variables range over entities only", () => {
    const m = model(`<#p> mfr:initialState "(dirty a) (dirty hq)" . ${action("clean", '"?x"', "(dirty ?x)", "(not (dirty ?x))")} <#g> a mfr:Goal ; mfr:expression "(forall (?y) (not (dirty ?y)))" .`);
    const files = toPddl(m, { name: "s1" });
    expect(files.domain).toMatch(/\(:types\s+entity - object\s+block - entity\)/);
    expect(files.domain).toContain(":parameters (?x - entity)");
    expect(files.problem).toContain("hq - object");
    expect(files.problem).toContain("(forall (?y - entity) (not (dirty ?y)))");
    // The goal holds once a is clean: hq is no entity, so it is not quantified over, in either.
    const back = readPddl(files.domain, files.problem);
    for (const plan of [["clean(a)"], ["clean(hq)"], []]) expect(verdict(simulatePlan(back, plan))).toEqual(verdict(simulatePlan(m, plan)));
    expect(simulatePlan(back, ["clean(a)"]).verdict).toBe("valid");
  });
});

describe("the domain", () => {
  it("declares only the requirements the model needs", () => {
    const strips = toPddl(model(action("lift", '"?x - Block"', "(light ?x)", "(up ?x)")), { name: "s1" });
    expect(strips.domain).toContain("(:requirements :strips :typing)");
    const blocks = toPddl(modelOf(fixture("blocksworld.ttl")), { name: "s1" });
    expect(blocks.domain).toContain(
      "(:requirements :strips :typing :negative-preconditions :disjunctive-preconditions :equality :quantified-preconditions :numeric-fluents :constraints)",
    );
    const courier = toPddl(modelOf(fixture("courier.ttl")), { name: "s1" });
    expect(courier.domain).toContain(":conditional-effects");
    expect(courier.domain).not.toContain(":equality");
  });

  it("leaves out what the simulator cannot run, saying why, and flags plan steps that use it", () => {
    const m = model(action("lift", '"?x - Block"', "(light ?x)", "(up ?x)") + '<#talk> mfr:actionName "talk" ; mfr:hasEffect [ mfr:expression "everyone\\nlistens" ] .');
    const files = toPddl(m, { name: "s1", plans: [{ label: "bob", steps: ["talk()", "lift(a)"] }] });
    expect(files.domain).toContain('; action talk is left out: "1 of its 1 preconditions and effects are free text or do not parse"');
    expect(files.domain).not.toContain("(:action talk");
    expect(files.plans[0]).toContain("; step 1 uses an action the domain leaves out");
  });

  it("declares a predicate used with two arities, and a function sharing a predicate's name, under distinct names", () => {
    const m = model(`<#p> mfr:initialState "(on a) (on a b) (= (on) 1)" . ${action("lift", '"?x - Block"', "(and (on ?x) (> (on) 0))", "(on ?x ?x)")}`);
    const files = toPddl(m, { name: "s1" });
    expect(body(files.domain)).toMatch(/\(on \?a1 - block\)\s+\(on-2 \?a1 - block \?a2 - block\)/);
    expect(body(files.domain)).toContain("(:functions\n    (on-3))");
    expect(files.domain).toContain(';   predicate "on (2 arguments)" -> on-2');
    expect(files.domain).toContain(':effect (on-2 ?x ?x)');
  });

  it("nests arithmetic to the left and flattens effects into PDDL's shape", () => {
    const m = model(
      `<#p> mfr:initialState "(= (f) 0)" . ${action("go", '"?x - Block"', "(< (- (f) 1 2) 9)", "(and (when (light ?x) (and (up ?x) (when (big ?x) (increase (f) 1)) (forall (?y - Block) (up ?y)))) (when (> (f) 3) (and)))")}`,
    );
    const files = toPddl(m, { name: "s1" });
    expect(files.domain).toContain(":precondition (< (- (- (f) 1) 2) 9)");
    expect(files.domain).toContain(
      ":effect (and (when (light ?x) (up ?x)) (when (and (light ?x) (big ?x)) (increase (f) 1)) (when (light ?x) (forall (?y - block) (up ?y))) (when (> (f) 3) (and)))",
    );
  });

  it("writes goals under one and, and constraints as PDDL3 always", () => {
    const files = toPddl(modelOf(fixture("blocksworld.ttl")), { name: "s1" });
    expect(files.problem).toMatch(/\(:goal \(and\s+\(on a b\)\s+\(ontable c\)\)\)/);
    expect(files.problem).toMatch(/\(:constraints \(and\s+\(always \(forall/);
    expect(files.problem).toContain("(always (<= (moves) 4))))");
  });

  it("is deterministic", () => {
    const m = modelOf(fixture("courier.ttl"));
    const plans = [{ label: "a", steps: ["drive(van-1, 0900-north, south)"] }];
    expect(toPddl(m, { name: "s1", plans })).toEqual(toPddl(modelOf(fixture("courier.ttl")), { name: "s1", plans }));
  });
});
