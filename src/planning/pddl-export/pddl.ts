/**
 * The formal part of a model as PDDL: a domain, a problem and one plan file per plan, for
 * an operator to check with a standard validator (VAL: `Validate -v domain.pddl
 * problem.pddl plan`) or to hand to a planner. VAL is not run here (nor installed with the
 * coordinator); test/formal/pddl-roundtrip.test.ts reads the files back into a FormalModel
 * and checks that the simulator gives every plan the same verdict at the same step on both.
 * Pure: text in, text out.
 *
 * What is written, and the choices that keep PDDL's meaning and the simulator's the same:
 * - **Actions** the simulator runs become `(:action …)`, their parameters, preconditions (in
 *   written order, under one `and`) and effects. An action it cannot run (free text, a
 *   broken part, an ambiguous name) is left out, with a comment `; action NAME is left out:
 *   "why"`; a plan step naming it is one the coordinator calls unverifiable, and VAL, not
 *   knowing the action, rejects.
 * - **Types.** An entity may have no `mfr:entityType` or several; a PDDL object has one type.
 *   The types are taken in name order; each one whose objects nest with, or are disjoint
 *   from, those of every type taken before becomes a PDDL type, under the smallest taken type
 *   that contains it (types with the same objects are chained, in name order), so an object
 *   declared with its most specific type belongs, through the hierarchy, to exactly the types
 *   it has in the model. A type that would overlap another (some objects shared, not all) is
 *   written as a unary predicate `(is-TYPE o)` instead, true in the initial state for its
 *   objects: a parameter of that type becomes untyped with `(is-TYPE ?p)` as its first
 *   precondition, `(forall (?x - TYPE) φ)` becomes `(forall (?x) (imply (is-TYPE ?x) φ))`,
 *   `exists` takes `(and (is-TYPE ?x) φ)` and a `forall` effect a `when`. A type no entity
 *   has is declared all the same (nothing matches it). `object` is PDDL's root, as in the
 *   simulator, where it matches every entity.
 * - **Objects** are the entities. A symbol that the initial state or an expression names but
 *   no entity defines is a value to the simulator, not an object: quantifiers do not range
 *   over it and a plan may not pass it. Such symbols are declared with type `object` only,
 *   and then every entity type sits under a root type `entity`, every untyped parameter or
 *   quantified variable becomes `- entity`, and both PDDL and the simulator keep them out.
 *   Objects named in an action are domain `:constants`; the rest are problem `:objects`.
 * - **Predicates and functions** are declared from their uses: arity, and per argument the
 *   most specific type every use fits (`object` when nothing narrower is known). A predicate
 *   used with two arities is two facts to the simulator; the second arity gets its own name.
 * - **Initial state:** atoms once each, then each fluent with its last value, then the type
 *   predicates. A negative initial value is written `-5`, which PDDL 2.1 readers may refuse.
 * - **Goal:** `(:goal (and …))` of every formal goal, in order.
 * - **Constraints** (true in every state, the initial one included) are PDDL3 state-trajectory
 *   constraints: `(:constraints (and (always φ) …))` in the problem.
 * - **Arithmetic** with more than two operands is nested to the left, as the simulator
 *   computes it; a negative number in an expression is `(- 5)`.
 * - **Effects** are flattened into the shape PDDL (and VAL) reads: `(when c e)` holds only
 *   simple effects or a `forall`, a `when` inside a `when` joins the conditions with `and`;
 *   numeric updates (`scale-up`, `scale-down` too) keep their order, as the simulator's.
 * - **Names** follow pddl-names.ts; every model text that reaches a comment is JSON-quoted
 *   with everything but printable ASCII escaped, so nothing breaks a line or the file.
 * - **Plans:** one `(action arg …)` per line, lower-cased and renamed like the model. A step
 *   that does not parse becomes `; step N does not parse: "…"` (VAL skips it, the coordinator
 *   calls the plan invalid there; the header says so).
 *
 * The parts, each in its own file: what the model uses (pddl-uses.ts), how its types are
 * written (pddl-types.ts), names and the model renamed (pddl-names.ts, pddl-rename.ts),
 * effects in PDDL's shape (pddl-effects.ts), signatures and requirements
 * (pddl-declarations.ts), PDDL text (pddl-print.ts); this file writes the three kinds of file.
 *
 * Where PDDL and the simulator can still differ: the simulator counts quantifier instances
 * against a bound, and a type predicate widens the range it counts; quantified instances
 * may be visited in another order (renamed objects sort differently), which matters only
 * when a quantified formula reads a fluent that has no value for some instance; empty
 * `(and)`/`(or)` inside a formula, two updates of one fluent in one step, and a negative
 * initial value are the simulator's, and not every PDDL reader takes them.
 */
import type { Condition, Effect } from "../../formal/expression.js";
import type { FormalAction, FormalModel } from "../../formal/model.js";
import { parsePlanStep } from "../../formal/plan-step.js";
import type { Verification } from "../../formal/simulate.js";
import { REQUIREMENT_ORDER, requirementsOf, signaturesOf } from "./pddl-declarations.js";
import type { Requirement, Signatures } from "./pddl-declarations.js";
import { conjunction, conjuncts } from "./pddl-effects.js";
import { isPddlName, sanitiseName } from "./pddl-names.js";
import type { PddlRenaming } from "./pddl-names.js";
import { compare, formatCondition, formatEffect, formatInit, formatVariables, OBJECT, quote, typedNames, unique } from "./pddl-print.js";
import type { InitLine } from "./pddl-print.js";
import { PddlRenamer } from "./pddl-rename.js";
import type { PddlAction, PlanLine } from "./pddl-rename.js";
import { planTypes } from "./pddl-types.js";
import type { TypePlan } from "./pddl-types.js";
import { gatherUses } from "./pddl-uses.js";
import type { Uses } from "./pddl-uses.js";

export type { PddlRenaming } from "./pddl-names.js";
export { plainNumber, quote } from "./pddl-print.js";

/** A proposed plan to write as a plan file. */
export interface PddlPlan {
  /** Who proposed it (shown in the plan file's header). */
  label: string;
  /** The plan's steps as the proposal gave them. */
  steps: readonly unknown[];
  /** The coordinator's verdict on it, shown in the header when known. */
  verification?: Verification | undefined;
}

/** What to write: the domain's name and the plans. */
export interface PddlOptions {
  /** The domain's name (a session id); made a valid PDDL name. */
  name: string;
  plans?: readonly PddlPlan[];
}

/** The files written: their texts, and every renaming they list. */
export interface PddlFiles {
  domain: string;
  problem: string;
  /** One text per plan of the options, in their order. */
  plans: string[];
  /** Every symbol written under another name. */
  renamed: PddlRenaming[];
}

const VALIDATE_HINT = "Validate -v DOMAIN.pddl PROBLEM.pddl PLAN";

/** Writes the domain, the problem and the plans of a formal model. */
export function toPddl(model: FormalModel, options: PddlOptions): PddlFiles {
  return new PddlWriter(model, options).write();
}

/**
 * Writes the files of one model: gathers what it uses, plans its types and names on
 * construction, then (write) renames the model, declares it and prints the domain, the
 * problem and the plans.
 */
class PddlWriter {
  private readonly renamed: PddlRenaming[] = [];
  private readonly runnable: FormalAction[];
  private readonly leftOut: FormalAction[];
  private readonly steps: PlanLine[][];
  private readonly uses: Uses;
  /** Symbols named by the model but defined by no entity. */
  private readonly ghosts: string[];
  private readonly types: TypePlan;
  private readonly names: PddlRenamer;
  private requirements = new Set<Requirement>([":strips"]);

  constructor(
    private readonly model: FormalModel,
    private readonly options: PddlOptions,
  ) {
    this.runnable = model.actions.filter((a) => a.informal.length === 0);
    this.leftOut = model.actions.filter((a) => a.informal.length > 0);
    this.steps = (options.plans ?? []).map((plan) =>
      plan.steps.map((s: unknown) => {
        const text = typeof s === "string" ? s : String(JSON.stringify(s));
        const step = parsePlanStep(text);
        return step === undefined ? { kind: "malformed" as const, text } : { kind: "step" as const, ...step };
      }),
    );
    this.uses = gatherUses(model, this.runnable);
    // Real objects (entities), by model symbol.
    const real = new Set(model.objects.map((o) => o.symbol));
    const named = new Set([...this.uses.domainConstants, ...this.uses.problemConstants]);
    this.ghosts = [...named].filter((s) => !real.has(s)).sort(compare);
    this.types = planTypes(model, this.uses.variableTypes, this.ghosts, this.renamed);
    this.names = new PddlRenamer(model, this.uses, this.types, this.steps, this.ghosts, this.renamed);
  }

  write(): PddlFiles {
    const actions = this.runnable.map((a) => this.names.action(a));
    const constraints = this.model.constraints.map((c) => this.names.condition(c.condition));
    const goals = this.model.goals.map((g) => this.names.condition(g.condition));
    const init = this.names.initialState();
    const signatures = signaturesOf(actions, constraints, goals, init, this.objectTypes(), this.types.parent);
    this.requirements = requirementsOf(actions, constraints, goals, init, this.types.parent.size > 0);
    const domain = this.domainText(actions, signatures);
    const problem = this.problemText(init, goals, constraints);
    const plans = this.steps.map((steps, i) => this.planText(steps, (this.options.plans ?? [])[i] as PddlPlan));
    return { domain, problem, plans, renamed: this.renamed };
  }

  /** The PDDL type of each object name. */
  private objectTypes(): Map<string, string> {
    const types = new Map<string, string>();
    for (const o of this.model.objects) types.set(this.names.object(o.symbol), this.types.objectType.get(o.symbol) as string);
    for (const g of this.ghosts) types.set(this.names.object(g), OBJECT);
    return types;
  }

  private domainName(): string {
    const wanted = `mfr-${this.options.name.toLowerCase()}`;
    return isPddlName(wanted) ? wanted : sanitiseName(wanted, "domain");
  }

  private header(kind: string): string[] {
    return [
      `; PDDL ${kind} written by mfr-coordinator from the formal part of a session's model (${quote(this.options.name)}).`,
      `; Check a plan with VAL: ${VALIDATE_HINT}`,
    ];
  }

  private renamings(filter: (r: PddlRenaming) => boolean): string[] {
    const list = this.renamed.filter(filter);
    if (list.length === 0) return [];
    return ["; Renamed to valid PDDL names (model symbol -> PDDL name):", ...list.map((r) => `;   ${r.kind} ${quote(r.from)} -> ${r.to}`)];
  }

  private domainText(actions: PddlAction[], signatures: Signatures): string {
    const lines = [...this.header("domain"), ...this.typeNotes(), ...this.renamings((r) => r.kind !== "object" || this.uses.domainConstants.has(r.from))];
    lines.push(`(define (domain ${this.domainName()})`);
    lines.push(`  (:requirements ${REQUIREMENT_ORDER.filter((r) => this.requirements.has(r)).join(" ")})`);
    const typed = this.requirements.has(":typing");
    if (typed) {
      const byParent = new Map<string, string[]>();
      for (const [t, p] of this.types.parent) byParent.set(p, [...(byParent.get(p) ?? []), t]);
      // Parents before their children: object's children first, then theirs, and so on.
      const depth = (t: string): number => (t === OBJECT ? 0 : 1 + depth(this.types.parent.get(t) ?? OBJECT));
      const typeLines = [...byParent]
        .sort(([a], [b]) => depth(a) - depth(b) || compare(a, b))
        .map(([p, ts]) => `    ${ts.sort(compare).join(" ")} - ${p}`);
      lines.push("  (:types", ...typeLines.slice(0, -1), `${typeLines.at(-1) ?? ""})`);
    }
    const objectTypes = this.objectTypes();
    const constants = unique([...this.uses.domainConstants].map((s) => this.names.object(s))).sort(compare);
    if (constants.length > 0) lines.push(`  (:constants ${typedNames(constants, objectTypes, typed)})`);
    const declarations = (map: Map<string, string[]>): string[] =>
      [...map].map(([name, types]) => `    (${[name, ...types.map((t, i) => (typed ? `?a${i + 1} - ${t}` : `?a${i + 1}`))].join(" ")})`);
    const predicates = declarations(signatures.predicates);
    if (predicates.length > 0) lines.push("  (:predicates", ...predicates.slice(0, -1), `${predicates.at(-1) ?? ""})`);
    const functions = declarations(signatures.functions);
    if (functions.length > 0) lines.push("  (:functions", ...functions.slice(0, -1), `${functions.at(-1) ?? ""})`);
    for (const a of this.leftOut) {
      lines.push("", `  ; action ${this.names.actionName(a.name)} is left out: ${quote(a.informal.join("; "))}`);
    }
    for (const a of actions) {
      lines.push("", `  (:action ${a.name}`, `    :parameters (${formatVariables(a.parameters)})`);
      if (a.preconditions.length > 0) lines.push(`    :precondition ${formatCondition(conjunction(a.preconditions))}`);
      lines.push(`    :effect ${formatEffect(a.effects.length === 1 ? (a.effects[0] as Effect) : { kind: "and", parts: a.effects })})`);
    }
    lines.push(")");
    return `${lines.join("\n")}\n`;
  }

  private typeNotes(): string[] {
    const notes: string[] = [];
    if (this.types.root !== undefined) {
      notes.push(
        `; Symbols the model names but no entity defines (${this.ghosts.map(quote).join(", ")}) are of type object;`,
        `; entities are of type ${this.types.root}, and untyped variables range over ${this.types.root} only, as the coordinator's check does.`,
      );
    }
    for (const [type, predicate] of [...this.types.predicate].sort(([a], [b]) => compare(a, b))) {
      notes.push(`; Type ${quote(type)} overlaps other types, so it is the predicate (${predicate} ?x) instead of a PDDL type.`);
    }
    return notes;
  }

  private problemText(init: InitLine[], goals: Condition[], constraints: Condition[]): string {
    const domain = this.domainName();
    const lines = [...this.header("problem"), ...this.renamings((r) => r.kind === "object" && !this.uses.domainConstants.has(r.from))];
    lines.push(`(define (problem ${domain}-problem)`, `  (:domain ${domain})`);
    const typed = this.requirements.has(":typing");
    const constants = new Set([...this.uses.domainConstants].map((s) => this.names.object(s)));
    const objects = unique([...this.model.objects.map((o) => o.symbol), ...this.ghosts].map((s) => this.names.object(s)))
      .filter((o) => !constants.has(o))
      .sort(compare);
    const objectTypes = this.objectTypes();
    if (objects.length > 0) {
      const byType = new Map<string, string[]>();
      for (const o of objects) {
        const t = typed ? (objectTypes.get(o) ?? OBJECT) : "";
        byType.set(t, [...(byType.get(t) ?? []), o]);
      }
      const objectLines = [...byType].sort(([a], [b]) => compare(a, b)).map(([t, os]) => `    ${os.join(" ")}${t === "" ? "" : ` - ${t}`}`);
      lines.push("  (:objects", ...objectLines.slice(0, -1), `${objectLines.at(-1) ?? ""})`);
    }
    const initLines = init.map((l) => `    ${formatInit(l)}`);
    if (initLines.length === 0) lines.push("  (:init)");
    else lines.push("  (:init", ...initLines.slice(0, -1), `${initLines.at(-1) ?? ""})`);
    const goalParts = goals.flatMap(conjuncts).map((g) => `      ${formatCondition(g)}`);
    if (goalParts.length === 0) lines.push("  (:goal (and))");
    else lines.push("  (:goal (and", ...goalParts.slice(0, -1), `${goalParts.at(-1) ?? ""}))`);
    if (constraints.length > 0) {
      const parts = constraints.map((c) => `      (always ${formatCondition(c)})`);
      lines.push("  (:constraints (and", ...parts.slice(0, -1), `${parts.at(-1) ?? ""}))`);
    }
    lines.push(")");
    return `${lines.join("\n")}\n`;
  }

  private planText(steps: readonly PlanLine[], plan: PddlPlan): string {
    const lines = [`; Plan proposed by ${quote(plan.label)} in ${quote(this.options.name)}: ${steps.length} step${steps.length === 1 ? "" : "s"}.`];
    const v = plan.verification;
    if (v !== undefined) {
      lines.push(`; The coordinator's verdict: ${v.verdict}${v.step === undefined ? "" : ` at step ${v.step}`}: ${quote(v.reason)}`);
    }
    lines.push(`; Check with VAL: ${VALIDATE_HINT}`);
    const malformed = steps.findIndex((s) => s.kind === "malformed");
    if (malformed >= 0) {
      lines.push(`; Step ${malformed + 1} does not parse, which makes the plan invalid for the coordinator; VAL sees only the steps written below.`);
    }
    const leftOut = new Set(this.leftOut.map((a) => a.name));
    steps.forEach((s, i) => {
      if (s.kind === "malformed") {
        lines.push(`; step ${i + 1} does not parse: ${quote(s.text)}`);
        return;
      }
      if (leftOut.has(s.action)) lines.push(`; step ${i + 1} uses an action the domain leaves out: the coordinator cannot check it`);
      const action = this.names.actionName(s.action);
      lines.push(`(${[action, ...s.args.map((a) => this.names.object(a))].join(" ")})`);
    });
    return `${lines.join("\n")}\n`;
  }
}
