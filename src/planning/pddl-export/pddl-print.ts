/**
 * How the PDDL export (pddl.ts) spells things: numbers, terms, expressions, conditions,
 * effects, typed lists and initial facts as PDDL text, model text quoted for a comment, and
 * the name order every list is written in. Text only: what is written is settled before
 * (renamed by pddl-rename.ts, shaped by pddl-effects.ts).
 */
import type { Condition, Effect, NumericExpression, Term, TypedVariable } from "../../formal/expression.js";

/** The PDDL root type; the simulator's too, where it matches every entity. */
export const OBJECT = "object";

/** The order names are written in: by UTF-16 code units, independent of locale, so that the same model always gives the same files. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Each item once, in the order of its first appearance. */
export function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

/** One fact of the problem's initial state, renamed: an atom, or a fluent with its value. */
export type InitLine = { kind: "atom"; name: string; args: string[] } | { kind: "fluent"; name: string; args: string[]; value: number };

/**
 * A number as PDDL reads it: plain decimal digits, never an exponent (`1e-7` is
 * `0.0000001`), the same double when read back. Infinity (only a literal of over 300 digits
 * gives it) is written as such a literal.
 */
export function plainNumber(n: number): string {
  if (Number.isNaN(n)) return "0";
  const sign = n < 0 ? "-" : "";
  if (!Number.isFinite(n)) return `${sign}1${"0".repeat(309)}`;
  const text = String(Math.abs(n));
  const e = text.indexOf("e");
  if (e < 0) return `${sign}${text}`;
  const mantissa = text.slice(0, e);
  const exponent = Number(text.slice(e + 1));
  const [whole = "", fraction = ""] = mantissa.split(".");
  const digits = `${whole}${fraction}`;
  const point = whole.length + exponent;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** `(head arg …)`, or `(head)` with no arguments. */
function list(head: string, args: readonly string[]): string {
  return args.length === 0 ? `(${head})` : `(${head} ${args.join(" ")})`;
}

function formatTerm(t: Term): string {
  return t.name;
}

function formatNumeric(e: NumericExpression): string {
  switch (e.kind) {
    case "number":
      // In an expression a negative number is (- n): PDDL 2.1 has no signed literals there.
      return e.value < 0 ? `(- ${plainNumber(-e.value)})` : plainNumber(e.value);
    case "fluent":
      return list(e.name, e.args.map(formatTerm));
    case "arithmetic":
      return list(e.op, e.args.map(formatNumeric));
  }
}

/**
 * A typed list. In PDDL an untyped name takes the type written after it (`?a ?b - t` types
 * both), so once any variable of the list has a type, the untyped ones say `- object`.
 */
export function formatVariables(vars: readonly TypedVariable[]): string {
  const typed = vars.some((v) => v.type !== undefined);
  return vars.map((v) => (v.type === undefined ? (typed ? `${v.name} - ${OBJECT}` : v.name) : `${v.name} - ${v.type}`)).join(" ");
}

/** A condition as PDDL text, on one line. */
export function formatCondition(c: Condition): string {
  switch (c.kind) {
    case "atom":
      return list(c.predicate, c.args.map(formatTerm));
    case "equal":
      return list("=", [formatTerm(c.left), formatTerm(c.right)]);
    case "compare":
      return list(c.op, [formatNumeric(c.left), formatNumeric(c.right)]);
    case "and":
    case "or":
      return list(c.kind, c.parts.map(formatCondition));
    case "not":
      return list("not", [formatCondition(c.part)]);
    case "imply":
      return list("imply", [formatCondition(c.antecedent), formatCondition(c.consequent)]);
    case "forall":
    case "exists":
      return list(c.kind, [`(${formatVariables(c.variables)})`, formatCondition(c.body)]);
  }
}

/** An effect as PDDL text, on one line. */
export function formatEffect(e: Effect): string {
  switch (e.kind) {
    case "add":
      return formatCondition(e.atom);
    case "delete":
      return list("not", [formatCondition(e.atom)]);
    case "and":
      return list("and", e.parts.map(formatEffect));
    case "forall":
      return list("forall", [`(${formatVariables(e.variables)})`, formatEffect(e.body)]);
    case "when":
      return list("when", [formatCondition(e.condition), formatEffect(e.effect)]);
    case "numeric":
      return list(e.op, [formatNumeric(e.fluent), formatNumeric(e.value)]);
  }
}

/** One fact of the initial state: `(p a b)` or `(= (f a) 5)`. */
export function formatInit(line: InitLine): string {
  return line.kind === "atom" ? list(line.name, line.args) : `(= ${list(line.name, line.args)} ${plainNumber(line.value)})`;
}

/** Names with their types (`a b - t c - u`, types in name order), or bare when the domain is untyped. */
export function typedNames(names: readonly string[], types: ReadonlyMap<string, string>, typed: boolean): string {
  if (!typed) return names.join(" ");
  const byType = new Map<string, string[]>();
  for (const n of names) {
    const t = types.get(n) ?? OBJECT;
    byType.set(t, [...(byType.get(t) ?? []), n]);
  }
  return [...byType].sort(([a], [b]) => compare(a, b)).map(([t, ns]) => `${ns.join(" ")} - ${t}`).join(" ");
}

/**
 * Model text for a comment: JSON-quoted, and every character outside printable ASCII escaped
 * as `\uXXXX`, so no line break or odd byte reaches the file. `JSON.parse` gives it back.
 */
export function quote(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
