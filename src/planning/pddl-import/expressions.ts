/**
 * Every expression of the files goes through the project's own parsers
 * (src/formal/expression.ts) on the text of its sub-form, so what is imported is exactly what
 * the simulator will read. A parse error, a variable nothing binds, or a predicate, function,
 * object or type the files do not declare is refused at its position in the file.
 */
import { parseCondition, parseEffect, parseInitialState } from "../../formal/expression.js";
import type { Condition, Effect, InitialFact, NumericExpression, ParseResult, Term, TypedVariable } from "../../formal/expression.js";
import type { SExpr } from "../../formal/sexpr.js";
import { conditionVariables, effectVariables } from "../../formal/variables.js";
import { refuse } from "./refusal.js";
import type { PddlFile } from "./refusal.js";
import { formAt, formText, preview } from "./source.js";
import { ROOT_TYPE } from "./types.js";

/** The names the files declare, which every expression may use and nothing else. */
export interface Vocabulary {
  /** Predicate → arity. */
  predicates: ReadonlyMap<string, number>;
  /** Function → arity. */
  functions: ReadonlyMap<string, number>;
  objects: ReadonlySet<string>;
  /** Declared types and the synthetic either types. */
  hasType: (type: string) => boolean;
  /** Names `(either …)` members (see types.ts). */
  eitherName: (members: string[]) => string;
}

/** A parsed expression and the literal text it was parsed from. */
export interface Parsed<T> {
  text: string;
  value: T;
}

/** Parses a precondition, goal or constraint form; `bound` are the variables in scope. */
export function readCondition(form: SExpr, file: PddlFile, what: string, vocabulary: Vocabulary, bound: ReadonlySet<string>): Parsed<Condition> {
  const parsed = parseForm(form, file, what, vocabulary, parseCondition);
  unbound(form, file, what, conditionVariables(parsed.value, bound));
  const uses = new Uses();
  uses.condition(parsed.value);
  uses.check(form, file, vocabulary);
  return parsed;
}

/** Parses an effect form; `bound` are the action's parameters. */
export function readEffect(form: SExpr, file: PddlFile, what: string, vocabulary: Vocabulary, bound: ReadonlySet<string>): Parsed<Effect> {
  const parsed = parseForm(form, file, what, vocabulary, parseEffect);
  unbound(form, file, what, effectVariables(parsed.value, bound));
  const uses = new Uses();
  uses.effect(parsed.value);
  uses.check(form, file, vocabulary);
  return parsed;
}

/** Parses one initial fact: a ground atom, `(= (f …) n)` or `(not …)`. */
export function readInitialFact(form: SExpr, vocabulary: Vocabulary): Parsed<InitialFact[]> {
  const parsed = parseForm(form, "problem", "an initial fact", vocabulary, parseInitialState);
  const uses = new Uses();
  for (const fact of parsed.value) {
    if (fact.kind === "atom") uses.atom(fact.predicate, fact.args.map((name) => ({ kind: "constant", name })));
    else uses.fluent(fact.name, fact.args.map((name) => ({ kind: "constant", name })));
  }
  uses.check(form, "problem", vocabulary);
  return parsed;
}

function parseForm<T>(form: SExpr, file: PddlFile, what: string, vocabulary: Vocabulary, parse: (text: string) => ParseResult<T>): Parsed<T> {
  if (form.kind !== "list") refuse(file, form, preview(form), `${what} must be a parenthesised expression, found ${preview(form)}`);
  const { text, starts } = formText(form, vocabulary.eitherName);
  const outcome = parse(text);
  if (outcome.kind === "formal") return { text, value: outcome.value };
  if (outcome.kind === "free-text") return refuse(file, form, preview(form), `${what} is not an expression`);
  // The text is one line, so the parser's column leads back to the sub-form it complained about.
  const at = outcome.error.line === 1 ? formAt(starts, outcome.error.column, form) : form;
  return refuse(file, at, preview(at), `${what}: ${outcome.error.message}`);
}

function unbound(form: SExpr, file: PddlFile, what: string, free: readonly string[]): void {
  const first = free[0];
  if (first === undefined) return;
  refuse(file, findSymbol(form, first) ?? form, first, `${what}: ${first} is neither a parameter nor bound by forall/exists`);
}

/** The first symbol (or list head) spelled `name` inside `form`, depth first. */
function findSymbol(form: SExpr, name: string): SExpr | undefined {
  const stack: SExpr[] = [form];
  while (stack.length > 0) {
    const f = stack.pop() as SExpr;
    if (f.kind === "symbol" && f.text === name) return f;
    if (f.kind === "list") for (let i = f.items.length - 1; i >= 0; i -= 1) stack.push(f.items[i] as SExpr);
  }
  return undefined;
}

/** The names an expression uses, gathered from its parsed value and then checked against the vocabulary. */
class Uses {
  private readonly predicates = new Map<string, number>();
  private readonly functions = new Map<string, number>();
  private readonly objects = new Set<string>();
  private readonly types = new Set<string>();

  atom(name: string, args: readonly Term[]): void {
    this.predicates.set(name, args.length);
    this.terms(args);
  }

  fluent(name: string, args: readonly Term[]): void {
    this.functions.set(name, args.length);
    this.terms(args);
  }

  terms(args: readonly Term[]): void {
    for (const t of args) if (t.kind === "constant") this.objects.add(t.name);
  }

  variables(vars: readonly TypedVariable[]): void {
    for (const v of vars) if (v.type !== undefined) this.types.add(v.type);
  }

  numeric(e: NumericExpression): void {
    if (e.kind === "fluent") this.fluent(e.name, e.args);
    else if (e.kind === "arithmetic") for (const a of e.args) this.numeric(a);
  }

  condition(c: Condition): void {
    switch (c.kind) {
      case "atom":
        return this.atom(c.predicate, c.args);
      case "equal":
        return this.terms([c.left, c.right]);
      case "compare":
        this.numeric(c.left);
        return this.numeric(c.right);
      case "and":
      case "or":
        for (const p of c.parts) this.condition(p);
        return;
      case "not":
        return this.condition(c.part);
      case "imply":
        this.condition(c.antecedent);
        return this.condition(c.consequent);
      case "forall":
      case "exists":
        this.variables(c.variables);
        return this.condition(c.body);
    }
  }

  effect(e: Effect): void {
    switch (e.kind) {
      case "add":
      case "delete":
        return this.atom(e.atom.predicate, e.atom.args);
      case "and":
        for (const p of e.parts) this.effect(p);
        return;
      case "forall":
        this.variables(e.variables);
        return this.effect(e.body);
      case "when":
        this.condition(e.condition);
        return this.effect(e.effect);
      default:
        // Numeric updates, whatever their operator (scale-up/scale-down once the parser has them).
        if ("fluent" in e && "value" in e) {
          this.numeric(e.fluent);
          this.numeric(e.value);
        }
    }
  }

  /** Refuses the first name the vocabulary does not declare, or a wrong number of arguments. */
  check(form: SExpr, file: PddlFile, vocabulary: Vocabulary): void {
    const where = (name: string): SExpr => findSymbol(form, name) ?? form;
    for (const [name, arity] of this.predicates) {
      const declared = vocabulary.predicates.get(name);
      if (declared === undefined) {
        const also = vocabulary.functions.has(name) ? ` (${name} is a function, used here as a predicate)` : "";
        refuse(file, where(name), name, `the predicate ${name} is not declared in :predicates${also}`);
      }
      if (declared !== arity) refuse(file, where(name), name, `${name} takes ${declared} argument${declared === 1 ? "" : "s"}, found ${arity}`);
    }
    for (const [name, arity] of this.functions) {
      const declared = vocabulary.functions.get(name);
      if (declared === undefined) {
        const also = vocabulary.predicates.has(name) ? ` (${name} is a predicate, used here as a number)` : "";
        refuse(file, where(name), name, `the function ${name} is not declared in :functions${also}`);
      }
      if (declared !== arity) refuse(file, where(name), name, `${name} takes ${declared} argument${declared === 1 ? "" : "s"}, found ${arity}`);
    }
    for (const name of this.objects) {
      if (!vocabulary.objects.has(name)) refuse(file, where(name), name, `${name} is neither a constant of the domain nor an object of the problem`);
    }
    for (const type of this.types) {
      if (type !== ROOT_TYPE && !vocabulary.hasType(type)) refuse(file, where(type), type, `the type ${type} is not declared in :types`);
    }
  }
}
