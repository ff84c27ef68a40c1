/**
 * Reads an exported PDDL domain and problem back into a FormalModel, so the simulator can
 * judge plans on what the files say: the round-trip test's other half. It reads what
 * src/planning/pddl-export/pddl.ts writes (and PDDL of that shape), using the coordinator's own
 * S-expression reader for the structure and its expression parsers on every sub-form, so a
 * difference in meaning shows up as a difference in verdicts.
 *
 * - Types: `(:types a b - object c - a)`; an object's types are its declared type and that
 *   type's ancestors (without `object`), which is what the simulator matches parameters on.
 * - Objects: domain `:constants` and problem `:objects`, sorted by name like readFormalModel.
 * - Actions: parameters, the parts of the precondition's top-level `and` (in order), the
 *   parts of the effect's top-level `and`. A comment `; action NAME is left out: "why"`
 *   becomes an action the simulator may not run, as it was in the model.
 * - Goal: the parts of `(:goal (and …))`; constraints: the `φ` of each `(always φ)`.
 * - Plans: every `(…)` line is a step; `; step N does not parse: "…"` gives back the text
 *   that did not parse, so the step keeps its number and its verdict.
 */
import { parseCondition, parseEffect, parseInitialState, parseParameters } from "../../src/formal/expression.js";
import type { Condition, Effect, InitialFact, ParseResult, TypedVariable } from "../../src/formal/expression.js";
import type { FormalAction, FormalModel, FormalObject, FormalStatement } from "../../src/formal/model.js";
import { readForms } from "../../src/formal/sexpr.js";
import type { SExpr } from "../../src/formal/sexpr.js";

const FILE_LIMITS = { maxLength: 50_000_000, maxDepth: 10_000 };
const LEFT_OUT = /^\s*; action (\S+) is left out: (".*")\s*$/gm;
const MALFORMED = /^; step \d+ does not parse: (".*")\s*$/;

type List = Extract<SExpr, { kind: "list" }>;

/** The domain and problem files as one FormalModel. Throws on anything it cannot read. */
export function readPddl(domainText: string, problemText: string): FormalModel {
  const domain = defineBody(domainText, "domain");
  const problem = defineBody(problemText, "problem");

  const parents = new Map<string, string>();
  for (const section of sections(domain, ":types")) {
    for (const { name, type } of typedNames(section.items.slice(1))) once(parents, name, type ?? "object", "type");
  }
  const declared = new Map<string, string | undefined>();
  for (const section of [...sections(domain, ":constants"), ...sections(problem, ":objects")]) {
    for (const { name, type } of typedNames(section.items.slice(1))) once(declared, name, type, "object");
  }
  // Predicates and functions share one name space in PDDL: two declarations of a name are an error.
  const symbols = new Map<string, true>();
  for (const section of [...sections(domain, ":predicates"), ...sections(domain, ":functions")]) {
    for (const declaration of section.items.slice(1)) once(symbols, symbol(declaration.kind === "list" ? declaration.items[0] : declaration) ?? "", true, "predicate or function");
  }
  const objects: FormalObject[] = [...declared]
    .map(([symbol, type]) => ({ symbol, types: ancestors(type, parents), nodes: [] }))
    .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));

  const actions: FormalAction[] = sections(domain, ":action").map(readAction);
  const actionNames = new Map<string, true>();
  for (const a of actions) once(actionNames, a.name, true, "action");
  for (const match of domainText.matchAll(LEFT_OUT)) {
    const name = match[1] as string;
    actions.push({ name, node: `pddl:${name}`, parameters: [], preconditions: [], effects: [], informal: [JSON.parse(match[2] as string) as string] });
  }

  const initialState: InitialFact[] = [];
  for (const section of sections(problem, ":init")) {
    for (const fact of section.items.slice(1)) initialState.push(...formal(parseInitialState(text(fact)), "initial fact"));
  }
  const goals: FormalStatement[] = sections(problem, ":goal").flatMap((g) => conjuncts(g.items[1]).map(statement));
  const constraints: FormalStatement[] = sections(problem, ":constraints").flatMap((c) =>
    conjuncts(c.items[1]).map((always) => {
      if (always.kind !== "list" || symbol(always.items[0]) !== "always" || always.items.length !== 2) {
        throw new Error(`expected (always φ), found ${text(always)}`);
      }
      return statement(always.items[1] as SExpr);
    }),
  );
  return { objects, actions, initialState, constraints, goals, findings: [], notMachineCheckable: [] };
}

/** The steps of a plan file, as the simulator takes them. */
export function readPlanFile(planText: string): string[] {
  const steps: string[] = [];
  for (const line of planText.split("\n")) {
    const trimmed = line.trim();
    const malformed = MALFORMED.exec(trimmed);
    if (malformed) steps.push(JSON.parse(malformed[1] as string) as string);
    else if (trimmed.startsWith("(")) steps.push(trimmed);
  }
  return steps;
}

function defineBody(fileText: string, kind: "domain" | "problem"): List[] {
  const read = readForms(fileText, FILE_LIMITS);
  if (!read.ok) throw new Error(`${kind}: ${read.error.message} (line ${read.error.line})`);
  const [define] = read.forms;
  if (read.forms.length !== 1 || define?.kind !== "list" || symbol(define.items[0]) !== "define") throw new Error(`${kind}: expected one (define …)`);
  const head = define.items[1];
  if (head?.kind !== "list" || symbol(head.items[0]) !== kind) throw new Error(`expected (define (${kind} …) …)`);
  return define.items.slice(2).map((item) => {
    if (item.kind !== "list") throw new Error(`${kind}: unexpected ${text(item)}`);
    return item;
  });
}

/** A PDDL reader refuses a name declared twice; so does this one (a renaming that merged two symbols would show here). */
function once<T>(map: Map<string, T>, name: string, value: T, what: string): void {
  if (map.has(name)) throw new Error(`the ${what} ${name} is declared twice`);
  map.set(name, value);
}

function sections(body: List[], keyword: string): List[] {
  return body.filter((item) => symbol(item.items[0]) === keyword);
}

function symbol(form: SExpr | undefined): string | undefined {
  return form?.kind === "symbol" ? form.text : undefined;
}

/** The text of a form, as the expression parsers take it. */
function text(form: SExpr): string {
  return form.kind === "list" ? `(${form.items.map(text).join(" ")})` : form.text;
}

/** `a b - t c` → a: t, b: t, c: untyped. */
function typedNames(items: SExpr[]): { name: string; type?: string }[] {
  const out: { name: string; type?: string }[] = [];
  let pending: string[] = [];
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i] as SExpr;
    if (item.kind === "symbol" && item.text === "-") {
      const type = symbol(items[i + 1]);
      if (type === undefined) throw new Error("expected a type after -");
      for (const name of pending) out.push({ name, type });
      pending = [];
      i += 1;
    } else if (item.kind !== "list") pending.push(item.text);
    else throw new Error(`unexpected ${text(item)} in a typed list`);
  }
  for (const name of pending) out.push({ name });
  return out;
}

function ancestors(type: string | undefined, parents: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (let t = type; t !== undefined && t !== "object" && !out.includes(t); t = parents.get(t)) out.push(t);
  return out;
}

function formal<T>(result: ParseResult<T>, what: string): T {
  if (result.kind === "formal") return result.value;
  throw new Error(`${what} does not parse: ${result.kind === "error" ? result.error.message : "free text"}`);
}

/** The parts of a top-level `(and …)`, or the form itself. */
function conjuncts(form: SExpr | undefined): SExpr[] {
  if (form === undefined) return [];
  return form.kind === "list" && symbol(form.items[0]) === "and" ? form.items.slice(1) : [form];
}

function statement(form: SExpr): FormalStatement {
  const t = text(form);
  return { node: "pddl", text: t, condition: formal(parseCondition(t), "condition") };
}

function readAction(section: List): FormalAction {
  const name = symbol(section.items[1]);
  if (name === undefined) throw new Error("an action without a name");
  let parameters: TypedVariable[] = [];
  let preconditions: Condition[] = [];
  let effects: Effect[] = [];
  for (let i = 2; i < section.items.length; i += 2) {
    const key = symbol(section.items[i]);
    const value = section.items[i + 1];
    if (value === undefined) throw new Error(`${name}: ${key ?? "?"} has no value`);
    if (key === ":parameters") parameters = value.kind === "list" && value.items.length === 0 ? [] : formal(parseParameters(text(value)), "parameters");
    else if (key === ":precondition") preconditions = conjuncts(value).map((c) => formal(parseCondition(text(c)), "precondition"));
    else if (key === ":effect") effects = conjuncts(value).map((e) => formal(parseEffect(text(e)), "effect"));
    else throw new Error(`${name}: unknown ${key ?? text(value)}`);
  }
  return { name, node: `pddl:${name}`, parameters, preconditions, effects, informal: [] };
}
