/**
 * What the PDDL import refuses, and that it refuses rather than throws: every unsupported
 * construct is named with its file, line and column; bad syntax is a refusal too; random text
 * and mutated real PDDL always give a model or a refusal (fast-check, fixed seed).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatRefusal, importPddl } from "../../../src/planning/pddl-import/index.js";
import type { PddlRefusal } from "../../../src/planning/pddl-import/index.js";
import { SCALING_EFFECTS } from "../../../src/planning/pddl-import/constructs.js";
import { RICH_DOMAIN, RICH_PROBLEM } from "./fixtures.js";
import { ipcFolders, ipcProblems } from "./ipc.js";

const PROBLEM = `(define (problem p) (:domain d) (:objects a b)
  (:init (on a b))
  (:goal (on b a)))`;

/** A domain whose action's body is `body`, on line 3. */
function domainWith(extra: string, requirements = ""): string {
  return `(define (domain d) ${requirements}
  (:predicates (on ?x ?y))
${extra})`;
}

function refusalOf(domain: string, problem = PROBLEM): PddlRefusal {
  const result = importPddl(domain, problem);
  if (result.ok) throw new Error("expected a refusal");
  return result.refusal;
}

describe("importPddl refuses what the conventions cannot carry, naming it where it is", () => {
  const cases: { name: string; domain?: string; problem?: string; expected: Partial<Omit<PddlRefusal, "message">> & { message: RegExp } }[] = [
    {
      name: "a durative action",
      domain: domainWith("  (:durative-action fly :parameters () :duration (= ?duration 1) :condition () :effect ())"),
      expected: { file: "domain", line: 3, column: 3, construct: ":durative-action", message: /^:durative-action is not supported \(durative actions have no place in the formal-model conventions\)$/ },
    },
    { name: "a derived predicate", domain: domainWith("  (:derived (on ?x ?y) (on ?y ?x))"), expected: { line: 3, construct: ":derived", message: /derived predicates/ } },
    { name: "a process", domain: domainWith("  (:process p :parameters () :precondition () :effect ())"), expected: { construct: ":process", message: /processes/ } },
    { name: "an event", domain: domainWith("  (:event e :parameters () :precondition () :effect ())"), expected: { construct: ":event", message: /events/ } },
    { name: "the durative-actions requirement", domain: domainWith("", "(:requirements :strips :durative-actions)"), expected: { line: 1, column: 43, construct: ":durative-actions", message: /not supported/ } },
    { name: "an unknown requirement", domain: domainWith("", "(:requirements :magic)"), expected: { construct: ":magic", message: /not a requirement the import knows/ } },
    {
      name: "a preference",
      domain: domainWith("  (:action a :parameters (?x) :precondition (preference p (on ?x ?x)) :effect (on ?x ?x))"),
      expected: { line: 3, column: 45, construct: "(preference …)", message: /preferences are not supported/ },
    },
    { name: "#t", domain: domainWith("  (:functions (f))\n  (:action a :parameters () :effect (increase (f) (* #t 2)))"), expected: { line: 4, column: 54, construct: "#t", message: /#t is not supported/ } },
    {
      name: "a timed initial literal",
      problem: "(define (problem p) (:domain d) (:objects a b)\n  (:init (on a b) (at 10 (on b a)))\n  (:goal (on b a)))",
      expected: { file: "problem", line: 2, column: 19, construct: "(at …)", message: /timed initial literals/ },
    },
    {
      name: "a sometime constraint",
      problem: "(define (problem p) (:domain d) (:objects a b) (:init) (:goal (on b a))\n  (:constraints (and (always (on a b)) (sometime (on b a)))))",
      expected: { file: "problem", line: 2, column: 40, construct: "(sometime …)", message: /only \(always …\) is a state constraint/ },
    },
    { name: "an at-most-once constraint", domain: domainWith("  (:constraints (at-most-once (on ?x ?y)))"), expected: { construct: "(at-most-once …)" , message: /not supported/ } },
    { name: "an object fluent", domain: domainWith("  (:functions (loc ?x) - place)"), expected: { line: 3, column: 26, construct: "place", message: /object fluents are not supported/ } },
    { name: "a duration in an action", domain: domainWith("  (:action a :parameters () :duration 3 :effect (on a a))"), expected: { construct: ":duration", message: /:duration is not supported/ } },
    { name: "an unknown section", domain: domainWith("  (:axiom (on a b))"), expected: { construct: ":axiom", message: /not a domain section the import knows/ } },
    { name: "an undeclared predicate", domain: domainWith("  (:action a :parameters (?x) :effect (under ?x))"), expected: { line: 3, column: 40, construct: "under", message: /the predicate under is not declared/ } },
    { name: "an unbound variable", domain: domainWith("  (:action a :parameters (?x) :effect (on ?x ?y))"), expected: { line: 3, column: 46, construct: "?y", message: /\?y is neither a parameter/ } },
    { name: "a wrong arity", domain: domainWith("  (:action a :parameters (?x) :effect (on ?x))"), expected: { construct: "on", message: /on takes 2 arguments, found 1/ } },
    { name: "an undeclared type", domain: domainWith("  (:action a :parameters (?x - block) :effect (on ?x ?x))"), expected: { construct: "block", message: /the type block of \?x is not declared/ } },
    {
      name: "an expression the formal parser does not read, at the sub-form it names",
      domain: domainWith("  (:action a :parameters (?x)\n    :precondition (and (on ?x ?x) (not (on ?x ?x) (on ?x ?x))) :effect (on ?x ?x))"),
      expected: { line: 4, column: 35, construct: "(not …)", message: /^the precondition of a: \(not …\) takes 1 argument, found 2$/ },
    },
    {
      name: "an empty (either)",
      domain: domainWith("  (:action a :parameters () :precondition (exists (?x - (either)) (on ?x ?x)) :effect (on a a))"),
      expected: { line: 3, column: 57, message: /expected a type name after -/ },
    },
    { name: "an unbalanced parenthesis", domain: "(define (domain d)\n  (:predicates (on ?x ?y)", expected: { line: 2, column: 3, message: /never closed/ } },
    { name: "a missing define", domain: "(domain d)", expected: { line: 1, column: 1, construct: "define", message: /expected \(define \(domain NAME\) …\)/ } },
    { name: "an empty file", domain: "  ; nothing\n", expected: { construct: "define", message: /empty/ } },
    {
      name: "a domain name mismatch",
      problem: "(define (problem p)\n  (:domain other) (:objects a b) (:init) (:goal (on a b)))",
      expected: { file: "problem", line: 2, column: 12, construct: "(:domain …)", message: /for domain other, but the domain file defines d/ },
    },
    { name: "an unknown object", problem: "(define (problem p) (:domain d) (:objects a b) (:init (on a c)) (:goal (on a b)))", expected: { file: "problem", construct: "c", message: /c is neither a constant/ } },
  ];
  if (!SCALING_EFFECTS) {
    cases.push({
      name: "scale-up, until the expression parser has it",
      domain: domainWith("  (:functions (f))\n  (:action a :parameters () :effect (scale-up (f) 2))"),
      expected: { line: 4, column: 37, construct: "(scale-up …)", message: /scale-up …\) is not supported yet/ },
    });
  }

  for (const c of cases) {
    it(`refuses ${c.name}`, () => {
      const refusal = refusalOf(c.domain ?? domainWith(""), c.problem ?? PROBLEM);
      const { message, ...rest } = c.expected;
      expect(refusal).toMatchObject({ file: "domain", ...rest });
      expect(refusal.message).toMatch(message);
    });
  }

  it("shows a refusal as file:line:col: message", () => {
    const refusal = refusalOf(domainWith("  (:durative-action fly)"));
    expect(formatRefusal(refusal)).toBe("domain.pddl:3:3: :durative-action is not supported (durative actions have no place in the formal-model conventions)");
    expect(formatRefusal(refusal, "dom/x.pddl")).toMatch(/^dom\/x\.pddl:3:3: /);
  });

  it("names the first of several refused constructs in the text", () => {
    const refusal = refusalOf(domainWith("  (:functions (f))\n  (:action a :parameters () :precondition (and (preference p (on a a)) (> (f) #t)) :effect (on a a))"));
    expect(refusal).toMatchObject({ line: 4, column: 48, construct: "(preference …)" });
  });

  it("accepts the same domain once the refused part is gone", () => {
    expect(importPddl(domainWith(""), PROBLEM).ok).toBe(true);
  });

  it("refuses a file past its bounds instead of reading it", () => {
    const huge = `(define (domain d) ${"(:predicates (p))".repeat(600_000)})`;
    expect(refusalOf(huge).message).toMatch(/longer than/);
    const many = Array.from({ length: 257 }, (_, i) => `?p${i}`).join(" ");
    expect(refusalOf(domainWith(`  (:action a :parameters (${many}) :effect (on ?p0 ?p1))`)).message).toMatch(/more than 256 parameters/);
    const deep = `(define (domain d) (:predicates (p)) (:action a :parameters () :precondition ${"(not ".repeat(500)}(p)${")".repeat(500)}))`;
    expect(refusalOf(deep).message).toMatch(/deeper than/);
  });
});

describe("importPddl never throws", () => {
  const realFiles = ipcFolders()
    .flatMap((f) => ipcProblems(f, 1))
    .slice(0, 6);
  const alphabet = fc.constantFrom("(", ")", " ", "\n", "-", "?x", "a", ":action", ":types", "either", "and", "not", "=", "1", "forall", ";", "define", "domain", "#t", "\u0000", "é");

  it("on random text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300 }), (d, p) => {
        const result = importPddl(d, p);
        expect(typeof result.ok).toBe("boolean");
      }),
      { seed: 30, numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 80 }), (tokens) => {
        const text = tokens.join(" ");
        expect(typeof importPddl(text, text).ok).toBe("boolean");
      }),
      { seed: 31, numRuns: 300 },
    );
  });

  it("on mutated real PDDL: characters deleted, inserted or replaced; a result or a positioned refusal", () => {
    const mutation = fc.record({
      file: fc.nat({ max: Math.max(0, realFiles.length - 1) }),
      which: fc.boolean(),
      edits: fc.array(fc.record({ at: fc.nat(), cut: fc.nat({ max: 6 }), insert: fc.oneof(fc.constant(""), alphabet) }), { minLength: 1, maxLength: 4 }),
    });
    fc.assert(
      fc.property(mutation, ({ file, which, edits }) => {
        const p = realFiles[file] ?? { domain: RICH_DOMAIN, problem: RICH_PROBLEM };
        let domain = p.domain;
        let problem = p.problem;
        for (const e of edits) {
          const text = which ? domain : problem;
          const at = e.at % (text.length + 1);
          const changed = text.slice(0, at) + e.insert + text.slice(at + e.cut);
          if (which) domain = changed;
          else problem = changed;
        }
        const result = importPddl(domain, problem);
        if (!result.ok) {
          expect(result.refusal.line).toBeGreaterThanOrEqual(1);
          expect(result.refusal.column).toBeGreaterThanOrEqual(1);
          expect(result.refusal.message.length).toBeGreaterThan(0);
        }
      }),
      { seed: 32, numRuns: 250 },
    );
    expect(realFiles.length).toBe(6);
  });
});
