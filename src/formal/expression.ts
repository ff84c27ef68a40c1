/**
 * The PDDL subset of docs/protocol.md ("Formal models and verified solutions") as typed values:
 * conditions (preconditions, constraints, goals), effects, initial-state facts and typed
 * parameter lists. Symbols are lower-cased, because the protocol compares them
 * case-insensitively. Nothing here throws: every outcome is a value.
 */
import { readForms } from "./sexpr.js";
import type { ExpressionError, SExpr } from "./sexpr.js";

export type { ExpressionError, SourcePosition } from "./sexpr.js";

/** A variable (`?s`, kept with its `?`) or an object's symbol. */
export type Term = { kind: "variable"; name: string } | { kind: "constant"; name: string };

/** `?s - Slot` (type lower-cased), or `?s` alone (any object). */
export interface TypedVariable {
  name: string;
  type?: string;
}

export type ArithmeticOperator = "+" | "-" | "*" | "/";
export type ComparisonOperator = "<" | "<=" | "=" | ">=" | ">";

export type NumericExpression =
  | { kind: "number"; value: number }
  | { kind: "fluent"; name: string; args: Term[] }
  | { kind: "arithmetic"; op: ArithmeticOperator; args: NumericExpression[] };

export interface Atom {
  kind: "atom";
  predicate: string;
  args: Term[];
}

export type Condition =
  | Atom
  | { kind: "equal"; left: Term; right: Term }
  | { kind: "compare"; op: ComparisonOperator; left: NumericExpression; right: NumericExpression }
  | { kind: "and"; parts: Condition[] }
  | { kind: "or"; parts: Condition[] }
  | { kind: "not"; part: Condition }
  | { kind: "imply"; antecedent: Condition; consequent: Condition }
  | { kind: "forall" | "exists"; variables: TypedVariable[]; body: Condition };

/** PDDL 2.1's numeric effects: `scale-up` multiplies the fluent by the value, `scale-down` divides it. */
export type NumericEffectOperator = "increase" | "decrease" | "assign" | "scale-up" | "scale-down";

export type Effect =
  | { kind: "add"; atom: Atom }
  | { kind: "delete"; atom: Atom }
  | { kind: "and"; parts: Effect[] }
  | { kind: "forall"; variables: TypedVariable[]; body: Effect }
  | { kind: "when"; condition: Condition; effect: Effect }
  | { kind: "numeric"; op: NumericEffectOperator; fluent: Extract<NumericExpression, { kind: "fluent" }>; value: NumericExpression };

/** One fact of an initial state: a ground atom, or a fluent's starting value. */
export type InitialFact =
  | { kind: "atom"; predicate: string; args: string[] }
  | { kind: "fluent"; name: string; args: string[]; value: number };

/**
 * What parsing a literal gave: a typed value, "free-text" (it does not start with `(`, so it
 * is not formal and is never guessed at), or an error with its position.
 */
export type ParseResult<T> = { kind: "formal"; value: T } | { kind: "free-text" } | { kind: "error"; error: ExpressionError };

const CONNECTIVES = new Set(["and", "or", "not", "imply", "forall", "exists", "when", "increase", "decrease", "assign", "scale-up", "scale-down"]);
const COMPARISONS = new Set<string>(["<", "<=", "=", ">=", ">"]);
const ARITHMETIC = new Set<string>(["+", "-", "*", "/"]);

/** Thrown only inside this module and always caught by `guarded`; never escapes. */
class Invalid extends Error {
  constructor(
    readonly at: { line: number; column: number },
    message: string,
  ) {
    super(message);
  }
}

/** True when the literal is formal: its text (leading white space aside) starts with `(`. */
export function isFormal(text: string): boolean {
  return text.trimStart().startsWith("(");
}

/** Parses a condition: a precondition, a constraint, a goal. */
export function parseCondition(text: string): ParseResult<Condition> {
  return parseSingle(text, condition);
}

/** Parses an action's effect. */
export function parseEffect(text: string): ParseResult<Effect> {
  return parseSingle(text, effect);
}

/**
 * Parses one `mfr:initialState` literal: one or more ground atoms or `(= (fluent …) number)`,
 * side by side or inside `(and …)`. A `(not …)` is accepted and adds nothing, since what is
 * not stated is false anyway (closed world).
 */
export function parseInitialState(text: string): ParseResult<InitialFact[]> {
  if (!isFormal(text)) return { kind: "free-text" };
  return guarded(text, (forms) => {
    const facts: InitialFact[] = [];
    for (const form of forms) initialFacts(form, facts);
    return facts;
  });
}

/**
 * Parses parameters: `?p - Patient`, `?p`, or several `?a ?b - Block ?c`. Unlike the other
 * literals, a parameter does not start with `(`, so the text is read as a variable list.
 */
export function parseParameters(text: string): ParseResult<TypedVariable[]> {
  const trimmed = text.trim();
  if (!trimmed.startsWith("?") && !trimmed.startsWith("(")) return { kind: "free-text" };
  const wrapped = trimmed.startsWith("(") ? trimmed : `(${trimmed})`;
  // Column positions refer to the wrapped text; shift them back when we added a parenthesis.
  const shift = wrapped === trimmed ? 0 : 1;
  const outcome = guarded(wrapped, (forms) => {
    const only = forms[0];
    if (only === undefined || forms.length !== 1 || only.kind !== "list") {
      throw new Invalid(position(forms[1] ?? forms[0]), "expected a parameter list such as ?p - Patient");
    }
    return variableList(only);
  });
  if (outcome.kind === "error" && outcome.error.line === 1) {
    return { kind: "error", error: { ...outcome.error, column: Math.max(1, outcome.error.column - shift) } };
  }
  return outcome;
}

function parseSingle<T>(text: string, read: (form: SExpr) => T): ParseResult<T> {
  if (!isFormal(text)) return { kind: "free-text" };
  return guarded(text, (forms) => {
    const [first, second] = forms;
    if (first === undefined) throw new Invalid({ line: 1, column: 1 }, "the expression is empty");
    if (second !== undefined) throw new Invalid(position(second), "unexpected text after the expression; join several with (and …)");
    return read(first);
  });
}

function guarded<T>(text: string, build: (forms: SExpr[]) => T): ParseResult<T> {
  const read = readForms(text);
  if (!read.ok) return { kind: "error", error: read.error };
  try {
    return { kind: "formal", value: build(read.forms) };
  } catch (e) {
    if (e instanceof Invalid) return { kind: "error", error: { ...e.at, message: e.message } };
    // Anything else would be a bug here; still a value, so the caller's contract holds.
    return { kind: "error", error: { line: 1, column: 1, message: `the expression could not be read (${String(e)})` } };
  }
}

function position(form: SExpr | undefined): { line: number; column: number } {
  return form === undefined ? { line: 1, column: 1 } : { line: form.line, column: form.column };
}

function listHead(form: SExpr): { head: string; rest: SExpr[] } {
  if (form.kind !== "list") throw new Invalid(position(form), `expected a parenthesised expression, found "${symbolText(form)}"`);
  const [head, ...rest] = form.items;
  if (head === undefined) throw new Invalid(position(form), "empty parentheses ()");
  if (head.kind !== "symbol") throw new Invalid(position(head), "an expression must start with a name, such as (at ?t ?l)");
  return { head: head.text, rest };
}

function symbolText(form: SExpr): string {
  return form.kind === "list" ? "(…)" : form.text;
}

function arity(form: SExpr, head: string, rest: SExpr[], count: number): void {
  if (rest.length !== count) {
    throw new Invalid(position(form), `(${head} …) takes ${count} argument${count === 1 ? "" : "s"}, found ${rest.length}`);
  }
}

function condition(form: SExpr): Condition {
  const { head, rest } = listHead(form);
  switch (head) {
    case "and":
    case "or":
      return { kind: head, parts: rest.map(condition) };
    case "not":
      arity(form, head, rest, 1);
      return { kind: "not", part: condition(rest[0] as SExpr) };
    case "imply":
      arity(form, head, rest, 2);
      return { kind: "imply", antecedent: condition(rest[0] as SExpr), consequent: condition(rest[1] as SExpr) };
    case "forall":
    case "exists":
      arity(form, head, rest, 2);
      return { kind: head, variables: variableList(rest[0] as SExpr), body: condition(rest[1] as SExpr) };
    default:
      break;
  }
  if (COMPARISONS.has(head)) {
    arity(form, head, rest, 2);
    const [left, right] = rest as [SExpr, SExpr];
    // `=` between two names is object equality; with a fluent or a number on either side it is numeric.
    if (head === "=" && left.kind === "symbol" && right.kind === "symbol") {
      return { kind: "equal", left: term(left), right: term(right) };
    }
    return { kind: "compare", op: head as ComparisonOperator, left: numeric(left), right: numeric(right) };
  }
  return atom(form, head, rest);
}

function atom(form: SExpr, head: string, rest: SExpr[]): Atom {
  if (CONNECTIVES.has(head) || COMPARISONS.has(head) || ARITHMETIC.has(head) || head.startsWith("?")) {
    throw new Invalid(position(form), `"${head}" cannot be used here`);
  }
  return { kind: "atom", predicate: head, args: rest.map(term) };
}

function term(form: SExpr): Term {
  if (form.kind === "list") throw new Invalid(position(form), "expected an object or a ?variable, found a parenthesised expression");
  const text = form.text;
  if (text.startsWith("?")) {
    if (text.length === 1) throw new Invalid(position(form), "a variable needs a name after ?");
    return { kind: "variable", name: text };
  }
  return { kind: "constant", name: text };
}

function numeric(form: SExpr): NumericExpression {
  if (form.kind === "number") return { kind: "number", value: form.value };
  if (form.kind === "symbol") {
    throw new Invalid(position(form), `"${form.text}" is not a number or a fluent such as (load truck1)`);
  }
  const { head, rest } = listHead(form);
  if (ARITHMETIC.has(head)) {
    // `(- x)` negates; otherwise every operator takes at least two operands.
    if (rest.length < 1 || (rest.length < 2 && head !== "-")) {
      throw new Invalid(position(form), `(${head} …) needs ${head === "-" ? "one or more operands" : "two or more operands"}`);
    }
    return { kind: "arithmetic", op: head as ArithmeticOperator, args: rest.map(numeric) };
  }
  return fluent(form, head, rest);
}

function fluent(form: SExpr, head: string, rest: SExpr[]): Extract<NumericExpression, { kind: "fluent" }> {
  const { predicate, args } = atom(form, head, rest);
  return { kind: "fluent", name: predicate, args };
}

function effect(form: SExpr): Effect {
  const { head, rest } = listHead(form);
  switch (head) {
    case "and":
      return { kind: "and", parts: rest.map(effect) };
    case "not": {
      arity(form, head, rest, 1);
      const inner = rest[0] as SExpr;
      const { head: innerHead, rest: innerRest } = listHead(inner);
      return { kind: "delete", atom: atom(inner, innerHead, innerRest) };
    }
    case "forall":
      arity(form, head, rest, 2);
      return { kind: "forall", variables: variableList(rest[0] as SExpr), body: effect(rest[1] as SExpr) };
    case "when":
      arity(form, head, rest, 2);
      return { kind: "when", condition: condition(rest[0] as SExpr), effect: effect(rest[1] as SExpr) };
    case "increase":
    case "decrease":
    case "assign":
    case "scale-up":
    case "scale-down": {
      arity(form, head, rest, 2);
      const target = rest[0] as SExpr;
      const { head: fluentName, rest: fluentArgs } = listHead(target);
      return { kind: "numeric", op: head, fluent: fluent(target, fluentName, fluentArgs), value: numeric(rest[1] as SExpr) };
    }
    default:
      return { kind: "add", atom: atom(form, head, rest) };
  }
}

function variableList(form: SExpr): TypedVariable[] {
  if (form.kind !== "list") throw new Invalid(position(form), "expected a variable list such as (?s - Slot)");
  const variables: TypedVariable[] = [];
  let untyped: TypedVariable[] = [];
  const items = form.items;
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i] as SExpr;
    if (item.kind === "symbol" && item.text === "-") {
      const type = items[i + 1];
      if (type === undefined || type.kind !== "symbol" || type.text.startsWith("?") || type.text === "-") {
        throw new Invalid(position(type ?? item), "expected a type name after -");
      }
      if (untyped.length === 0) throw new Invalid(position(item), "a type must follow a variable, as in ?s - Slot");
      for (const v of untyped) v.type = type.text;
      untyped = [];
      i += 1;
      continue;
    }
    if (item.kind !== "symbol" || !item.text.startsWith("?") || item.text.length === 1) {
      throw new Invalid(position(item), `expected a ?variable, found "${symbolText(item)}"`);
    }
    const variable: TypedVariable = { name: item.text };
    variables.push(variable);
    untyped.push(variable);
  }
  return variables;
}

function initialFacts(form: SExpr, facts: InitialFact[]): void {
  const { head, rest } = listHead(form);
  if (head === "and") {
    for (const part of rest) initialFacts(part, facts);
    return;
  }
  if (head === "not") {
    arity(form, head, rest, 1);
    condition(rest[0] as SExpr);
    return;
  }
  if (head === "=") {
    arity(form, head, rest, 2);
    const [target, value] = rest as [SExpr, SExpr];
    const { head: name, rest: args } = listHead(target);
    if (value.kind !== "number") throw new Invalid(position(value), "an initial fluent value must be a number, as in (= (load truck1) 0)");
    facts.push({ kind: "fluent", name: fluent(target, name, args).name, args: groundArgs(args), value: value.value });
    return;
  }
  const a = atom(form, head, rest);
  facts.push({ kind: "atom", predicate: a.predicate, args: groundArgs(rest) });
}

function groundArgs(args: SExpr[]): string[] {
  return args.map((arg) => {
    const t = term(arg);
    if (t.kind === "variable") throw new Invalid(position(arg), `the initial state names objects, not variables (${t.name})`);
    return t.name;
  });
}
