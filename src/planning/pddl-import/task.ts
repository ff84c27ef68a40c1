/**
 * The planning task as the formal-model conventions carry it: a domain and a problem read
 * (domain.ts, problem.ts), every expression parsed by the project's parsers (expressions.ts),
 * types flattened (types.ts), and each part turned into the literal texts one contribution
 * holds. What the conventions cannot carry as a formal part but does not change which plans
 * are valid (the metric) becomes a note; everything else not carried was refused on the way.
 */
import { parseCondition, parseParameters } from "../../formal/expression.js";
import type { SExpr } from "../../formal/sexpr.js";
import { readDomain } from "./domain.js";
import type { ActionForms, Declaration, DomainParts } from "./domain.js";
import { readCondition, readEffect, readInitialFact } from "./expressions.js";
import type { Vocabulary } from "./expressions.js";
import { readProblem } from "./problem.js";
import { refuse } from "./refusal.js";
import type { PddlFile } from "./refusal.js";
import { conjuncts } from "./source.js";
import type { TypedName } from "./source.js";
import { EitherTypes, TypeHierarchy, flattenTypes } from "./types.js";

/** An object of the task: a domain constant or a problem object, with its flattened types. */
export interface TaskObject {
  symbol: string;
  /** `mfr:entityType` values; empty when its only type is `object`. */
  types: string[];
  /** Declared in the domain's `:constants`. */
  constant: boolean;
}

/** A predicate or function declaration, as a state variable. */
export interface TaskStateVariable {
  kind: "predicate" | "function";
  name: string;
  /** `(at ?x ?y)`: parses as a condition. */
  expression: string;
  /** `(at ?x - place ?y - place)`, as declared. */
  signature: string;
}

/** An action: its name and the literals of its parameters, preconditions and effects. */
export interface TaskAction {
  name: string;
  /** One `?p - type` (or `?p`) per parameter, in order. */
  parameters: string[];
  /** One per top-level conjunct of `:precondition`, in order. */
  preconditions: string[];
  /** One per top-level conjunct of `:effect`, in order. */
  effects: string[];
}

/** A state constraint and the file it came from. */
export interface TaskConstraint {
  expression: string;
  from: PddlFile;
}

/** Everything one contribution says about the task, as literal texts. */
export interface PlanningTask {
  domainName: string;
  problemName: string;
  requirements: string[];
  /** Sorted by symbol. */
  objects: TaskObject[];
  types: string[];
  stateVariables: TaskStateVariable[];
  actions: TaskAction[];
  /** One literal per initial fact, in the order written. */
  initialState: string[];
  goals: string[];
  constraints: TaskConstraint[];
  metric: string | undefined;
  notes: string[];
}

/** Reads both files into a task; refuses (throws `Refused`) at the first thing it cannot carry. */
export function readTask(domainText: string, problemText: string): PlanningTask {
  const domain = readDomain(domainText);
  const problem = readProblem(problemText);
  if (problem.domainName !== domain.name) {
    refuse("problem", problem.domainAt, "(:domain …)", `the problem is for domain ${problem.domainName}, but the domain file defines ${domain.name}`);
  }
  const hierarchy = new TypeHierarchy(domain.types);
  const eithers = new EitherTypes(hierarchy.names());
  checkTypes(domain.constants, "domain", hierarchy);
  checkTypes(problem.objects, "problem", hierarchy);
  for (const a of domain.actions) checkTypes(a.parameters, "domain", hierarchy);

  const declaredObjects = new Map<string, { types: string[]; constant: boolean }>();
  for (const [list, constant] of [[domain.constants, true], [problem.objects, false]] as const) {
    for (const o of list) {
      const known = declaredObjects.get(o.name) ?? { types: [], constant };
      // An object declared twice (or as a constant and an object) has the union of its types.
      for (const t of o.types) if (!known.types.includes(t)) known.types.push(t);
      declaredObjects.set(o.name, known);
    }
  }
  const vocabulary = (objects: Iterable<string>): Vocabulary => ({
    predicates: new Map(domain.predicates.map((p) => [p.name, p.parameters.length])),
    functions: new Map(domain.functions.map((f) => [f.name, f.parameters.length])),
    objects: new Set(objects),
    hasType: (t) => hierarchy.has(t) || eithers.all().some((e) => e.name === t),
    eitherName: (members) => eithers.nameFor(members),
  });
  const inDomain = vocabulary(domain.constants.map((c) => c.name));
  const inProblem = vocabulary(declaredObjects.keys());

  const actions = domain.actions.map((a) => readAction(a, inDomain, eithers));
  const notes: string[] = [];
  for (const a of actions) {
    if (a.preconditions.length === 0 && a.effects.length === 0) {
      // The conventions treat an action that states nothing as informal; this one is always applicable.
      a.preconditions.push("(and)");
      notes.push(`action ${a.name} has neither precondition nor effect; it is written with the precondition (and), which always holds`);
    }
  }
  const constraints: TaskConstraint[] = [
    ...domain.constraints.map((c) => ({ expression: readCondition(c, "domain", "a constraint", inDomain, new Set()).text, from: "domain" as const })),
    ...problem.constraints.map((c) => ({ expression: readCondition(c, "problem", "a constraint", inProblem, new Set()).text, from: "problem" as const })),
  ];
  const initialState = problem.init.map((f) => readInitialFact(f, inProblem).text);
  const goals = problem.goals.map((g) => readCondition(g, "problem", "the goal", inProblem, new Set()).text);
  if (problem.metric !== undefined) notes.push(`metric: ${problem.metric} (it ranks plans; it does not change which plans are valid)`);

  // Objects last: every (either …) of the files is named by now, so each object gets every one it belongs to.
  const objects = [...declaredObjects]
    .map(([symbol, d]) => ({ symbol, types: flattenTypes(d.types, hierarchy, eithers), constant: d.constant }))
    .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  return {
    domainName: domain.name,
    problemName: problem.name,
    requirements: [...new Set([...domain.requirements, ...problem.requirements])],
    objects,
    types: [...hierarchy.names(), ...eithers.all().map((e) => e.name)],
    stateVariables: stateVariables(domain),
    actions,
    initialState,
    goals,
    constraints,
    metric: problem.metric,
    notes,
  };
}

/** Refuses a type no `:types` declares (PDDL readers do; the plan check would match nothing). */
function checkTypes(names: readonly TypedName[], file: PddlFile, hierarchy: TypeHierarchy): void {
  for (const n of names) {
    for (const t of n.types) if (!hierarchy.has(t)) refuse(file, n.form, t, `the type ${t} of ${n.name} is not declared in :types`);
  }
}

function readAction(a: ActionForms, vocabulary: Vocabulary, eithers: EitherTypes): TaskAction {
  const seen = new Set<string>();
  const parameters = a.parameters.map((p) => {
    if (seen.has(p.name)) refuse("domain", p.form, p.name, `the parameter ${p.name} of ${a.name} appears twice`);
    seen.add(p.name);
    const type = p.types.length === 0 ? undefined : eithers.nameFor(p.types);
    const text = type === undefined ? p.name : `${p.name} - ${type}`;
    // The parameter literal is read by the project's parser too: what it reads is what was meant.
    const parsed = parseParameters(text);
    if (parsed.kind !== "formal" || parsed.value.length !== 1 || parsed.value[0]?.name !== p.name) {
      refuse("domain", p.form, p.name, `the parameter ${p.name} of ${a.name} cannot be written as a formal parameter`);
    }
    return text;
  });
  const what = (part: string): string => `the ${part} of ${a.name}`;
  const preconditions = parts(a.precondition).map((c) => readCondition(c, "domain", what("precondition"), vocabulary, seen).text);
  const effects = parts(a.effect).map((e) => readEffect(e, "domain", what("effect"), vocabulary, seen).text);
  return { name: a.name, parameters, preconditions, effects };
}

/** The top-level conjuncts of a precondition or effect; none when it is absent or `()`. */
function parts(form: SExpr | undefined): SExpr[] {
  return form === undefined ? [] : conjuncts(form);
}

function stateVariables(domain: DomainParts): TaskStateVariable[] {
  const one = (kind: TaskStateVariable["kind"], d: Declaration): TaskStateVariable => {
    const args = d.parameters.map((p) => p.name);
    const typed = d.parameters.map((p) => (p.types.length === 0 ? p.name : `${p.name} - ${p.either ? `(either ${p.types.join(" ")})` : (p.types[0] as string)}`));
    const expression = `(${[d.name, ...args].join(" ")})`;
    // The conventions read a state variable's expression as a condition: it must parse as one atom.
    const parsed = parseCondition(expression);
    if (parsed.kind !== "formal" || parsed.value.kind !== "atom") refuse("domain", d.form, d.name, `${d.name} cannot be declared: it does not read as an atom such as (at ?x ?y)`);
    return {
      kind,
      name: d.name,
      expression,
      signature: `(${[d.name, ...typed].join(" ")})${kind === "function" ? " - number" : ""}`,
    };
  };
  return [...domain.predicates.map((p) => one("predicate", p)), ...domain.functions.map((f) => one("function", f))];
}
