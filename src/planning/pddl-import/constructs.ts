/**
 * What PDDL the import carries and what it refuses, in one place: the requirement flags, the
 * sections of each file, and the expression heads that have no meaning in the formal-model
 * conventions (time, preferences, trajectory operators). Everything here refuses with the
 * position of the construct as written, so an author can find it; nothing is dropped silently.
 */
import { parseEffect } from "../../formal/expression.js";
import type { SExpr } from "../../formal/sexpr.js";
import { refuse } from "./refusal.js";
import type { PddlFile } from "./refusal.js";
import { headOf, preview, symbolOf } from "./source.js";

/**
 * `scale-up` / `scale-down` are carried exactly when the project's expression parser reads
 * them (the simulator and the exporter learn them together with it). This is the one switch:
 * the probe below turns them on by itself once src/formal/expression.ts accepts them.
 */
export const SCALING_EFFECTS: boolean = parseEffect("(scale-up (f) 2)").kind === "formal" && parseEffect("(scale-down (f) 2)").kind === "formal";

/** Requirement flags whose meaning the formal model carries (or that only name a subset of it). */
const SUPPORTED_REQUIREMENTS: ReadonlySet<string> = new Set([
  ":strips",
  ":typing",
  ":negative-preconditions",
  ":disjunctive-preconditions",
  ":equality",
  ":existential-preconditions",
  ":universal-preconditions",
  ":quantified-preconditions",
  ":conditional-effects",
  ":fluents",
  ":numeric-fluents",
  ":adl",
  ":constraints",
  ":action-costs",
]);

/** Requirement flags that name something the conventions cannot carry, and why. */
const REFUSED_REQUIREMENTS: ReadonlyMap<string, string> = new Map([
  [":durative-actions", "durative actions have no place in the formal-model conventions"],
  [":duration-inequalities", "durations have no place in the formal-model conventions"],
  [":continuous-effects", "continuous change has no place in the formal-model conventions"],
  [":derived-predicates", "derived predicates are not part of the formal-model conventions"],
  [":timed-initial-literals", "timed facts have no place in the formal-model conventions"],
  [":timed-initial-fluents", "timed facts have no place in the formal-model conventions"],
  [":preferences", "preferences rank plans; the conventions only say which plans are valid"],
  [":object-fluents", "the formal model's fluents are numbers only"],
  [":time", "processes and events have no place in the formal-model conventions"],
]);

/** Checks one `(:requirements …)` section: every flag known and supported. */
export function checkRequirements(section: SExpr, file: PddlFile): string[] {
  const flags: string[] = [];
  if (section.kind !== "list") return flags;
  for (const item of section.items.slice(1)) {
    const flag = symbolOf(item);
    if (flag === undefined || !flag.startsWith(":")) refuse(file, item, preview(item), `expected a requirement flag such as :typing, found ${preview(item)}`);
    const why = REFUSED_REQUIREMENTS.get(flag);
    if (why !== undefined) refuse(file, item, flag, `${flag} is not supported (${why})`);
    if (!SUPPORTED_REQUIREMENTS.has(flag)) refuse(file, item, flag, `${flag} is not a requirement the import knows`);
    flags.push(flag);
  }
  return flags;
}

/** Domain sections the import refuses outright, and why. */
const REFUSED_SECTIONS: ReadonlyMap<string, string> = new Map([
  [":durative-action", "durative actions have no place in the formal-model conventions"],
  [":derived", "derived predicates are not part of the formal-model conventions"],
  [":process", "processes have no place in the formal-model conventions"],
  [":event", "events have no place in the formal-model conventions"],
]);

/** Refuses a section the import does not carry; `known` are the sections this file may have. */
export function checkSection(section: SExpr, file: PddlFile, known: ReadonlySet<string>): string {
  const head = headOf(section) ?? "";
  const why = REFUSED_SECTIONS.get(head);
  if (why !== undefined) refuse(file, section, head, `${head} is not supported (${why})`);
  if (head === ":timed-initial-literals") refuse(file, section, head, `${head} is not supported (timed facts have no place in the formal-model conventions)`);
  if (!known.has(head)) refuse(file, section, head, `${head} is not a ${file} section the import knows`);
  return head;
}

/** PDDL3 trajectory operators: only `always` is a state constraint; the rest speak of time. */
const TRAJECTORY = new Set(["always", "sometime", "within", "at-most-once", "sometime-after", "sometime-before", "always-within", "hold-during", "hold-after"]);

/**
 * Refuses, anywhere inside an expression form, what the formal model has no meaning for:
 * `#t` and other `#` symbols, `(preference …)`, timed `(at …)`, `(over …)`, trajectory
 * operators (constraints hand over `always`'s body only), and `scale-up`/`scale-down` until
 * SCALING_EFFECTS is on. Iterative, so a deep form cannot exhaust the stack.
 */
export function checkExpression(form: SExpr, file: PddlFile, where: string): void {
  const stack: SExpr[] = [form];
  while (stack.length > 0) {
    const f = stack.pop() as SExpr;
    if (f.kind === "symbol") {
      if (f.text.startsWith("#")) refuse(file, f, f.text, `${f.text} is not supported (continuous time has no place in the formal-model conventions)`);
      continue;
    }
    if (f.kind !== "list") continue;
    const head = headOf(f);
    if (head === "preference") refuse(file, f, "(preference …)", `preferences are not supported in ${where} (they rank plans; the conventions only say which plans are valid)`);
    if (head === "at" && isTimed(f)) refuse(file, f, "(at …)", `a timed (at …) is not supported in ${where} (time has no place in the formal-model conventions)`);
    if (head === "over" && f.items.length === 3 && f.items[2]?.kind === "list") refuse(file, f, "(over …)", `(over …) is not supported in ${where} (durative conditions have no place in the formal-model conventions)`);
    if (head !== undefined && TRAJECTORY.has(head)) {
      refuse(file, f, `(${head} …)`, `(${head} …) is a trajectory constraint; ${head === "always" ? "it is read only in (:constraints …)" : "only (always …) is supported, in (:constraints …)"}`);
    }
    if ((head === "scale-up" || head === "scale-down") && !SCALING_EFFECTS) {
      refuse(file, f, `(${head} …)`, `(${head} …) is not supported yet (the formal model's effects are assign, increase and decrease)`);
    }
    // Pushed last-first, so the first construct in the text is the one named.
    for (let i = f.items.length - 1; i >= 0; i -= 1) stack.push(f.items[i] as SExpr);
  }
}

/** `(at 10 φ)`, `(at end φ)`, `(at start φ)`: a time point and a formula, not an atom. */
function isTimed(form: Extract<SExpr, { kind: "list" }>): boolean {
  const [, when, what] = form.items;
  if (form.items.length !== 3 || what?.kind !== "list") return false;
  return when?.kind === "number" || symbolOf(when) === "end" || symbolOf(when) === "start";
}

/**
 * The state constraints of a `(:constraints …)` body: `(always φ)` gives φ, `(and …)` each of
 * its parts, `(forall (vars) body)` the constraints of its body each under the same `forall`
 * (a state holds for every object exactly when it holds in every state for every object).
 * The forms given back keep the positions of what they were made of. Everything else is a
 * trajectory constraint the conventions cannot carry: refused.
 */
export function stateConstraints(form: SExpr, file: PddlFile): SExpr[] {
  const head = headOf(form);
  if (form.kind !== "list" || head === undefined) return refuse(file, form, preview(form), `expected (always …) in :constraints, found ${preview(form)}`);
  if (head === "and") return form.items.slice(1).flatMap((part) => stateConstraints(part, file));
  if (head === "always") {
    if (form.items.length !== 2) refuse(file, form, "(always …)", "(always …) takes one condition");
    return [form.items[1] as SExpr];
  }
  if (head === "forall") {
    const [keyword, variables, body] = form.items;
    if (form.items.length !== 3 || keyword === undefined || variables === undefined || body === undefined) return refuse(file, form, "(forall …)", "(forall (variables) constraint) takes two parts");
    return stateConstraints(body, file).map((inner) => ({ ...form, items: [keyword, variables, inner] }));
  }
  if (head === "preference") return refuse(file, form, "(preference …)", "preferences are not supported in :constraints (they rank plans; the conventions only say which plans are valid)");
  if (TRAJECTORY.has(head)) return refuse(file, form, `(${head} …)`, `(${head} …) is not supported (only (always …) is a state constraint the conventions carry)`);
  return refuse(file, form, `(${head} …)`, `(${head} …) is not a constraint the import knows; only (always …) is supported`);
}
