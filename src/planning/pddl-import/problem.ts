/**
 * The structure of a PDDL problem file: the domain it names, requirements, objects, the
 * initial facts, the goal's conjuncts, state constraints and the metric. Like domain.ts it
 * reads shape only and refuses with positions; expressions are parsed in task.ts.
 */
import type { SExpr } from "../../formal/sexpr.js";
import { checkExpression, checkRequirements, checkSection, stateConstraints } from "./constructs.js";
import { refuse } from "./refusal.js";
import { conjuncts, headOf, preview, readDefine, symbolOf, typedList } from "./source.js";
import type { TypedName } from "./source.js";
import type { At } from "./refusal.js";

/** Counts past which a problem is refused rather than read: far above IPC's largest. */
export const PROBLEM_LIMITS = { objects: 100_000, facts: 500_000, goals: 100_000 } as const;

/** What a problem file states. */
export interface ProblemParts {
  name: string;
  domainName: string;
  domainAt: At;
  requirements: string[];
  objects: TypedName[];
  /** Each initial fact's form (a top-level `and` is opened). */
  init: SExpr[];
  /** The goal's top-level conjuncts. */
  goals: SExpr[];
  /** The bodies φ of its `(always φ)` constraints. */
  constraints: SExpr[];
  /** `(:metric …)` as written, if any: it ranks plans, so it is kept as a note. */
  metric: string | undefined;
}

const PROBLEM_SECTIONS: ReadonlySet<string> = new Set([":domain", ":requirements", ":objects", ":init", ":goal", ":constraints", ":metric"]);

/** Reads a problem file's structure; refuses (with a position) anything the import does not carry. */
export function readProblem(text: string): ProblemParts {
  const { name, nameAt, sections } = readDefine(text, "problem");
  const parts: ProblemParts = { name, domainName: "", domainAt: nameAt, requirements: [], objects: [], init: [], goals: [], constraints: [], metric: undefined };
  const seen = new Set<string>();
  for (const section of sections) {
    const head = checkSection(section, "problem", PROBLEM_SECTIONS);
    if (seen.has(head) && head !== ":objects" && head !== ":init") refuse("problem", section, head, `${head} appears twice`);
    seen.add(head);
    const items = section.items.slice(1);
    switch (head) {
      case ":domain": {
        const domain = symbolOf(items[0]);
        if (domain === undefined || items.length !== 1) refuse("problem", section, ":domain", "(:domain NAME) takes one name");
        parts.domainName = domain;
        parts.domainAt = items[0] as SExpr;
        break;
      }
      case ":requirements":
        parts.requirements.push(...checkRequirements(section, "problem"));
        break;
      case ":objects":
        parts.objects.push(...typedList(items, "problem", ":objects", false));
        if (parts.objects.length > PROBLEM_LIMITS.objects) refuse("problem", section, ":objects", `the problem has more than ${PROBLEM_LIMITS.objects} objects`);
        break;
      case ":init":
        for (const fact of items) initialFacts(fact, parts.init);
        if (parts.init.length > PROBLEM_LIMITS.facts) refuse("problem", section, ":init", `the problem has more than ${PROBLEM_LIMITS.facts} initial facts`);
        break;
      case ":goal":
        if (items.length !== 1) refuse("problem", section, ":goal", "(:goal …) holds one condition");
        checkExpression(items[0] as SExpr, "problem", ":goal");
        parts.goals = conjuncts(items[0] as SExpr);
        if (parts.goals.length > PROBLEM_LIMITS.goals) refuse("problem", section, ":goal", `the goal has more than ${PROBLEM_LIMITS.goals} parts`);
        break;
      case ":constraints":
        if (items.length !== 1) refuse("problem", section, ":constraints", "(:constraints …) holds one formula");
        for (const body of stateConstraints(items[0] as SExpr, "problem")) {
          checkExpression(body, "problem", ":constraints");
          parts.constraints.push(body);
        }
        break;
      case ":metric":
        parts.metric = metricText(section);
        break;
    }
  }
  if (!seen.has(":domain")) refuse("problem", nameAt, ":domain", "the problem does not name its domain with (:domain NAME)");
  return parts;
}

/**
 * One entry of `:init`: an atom, `(= (f …) n)`, a `(not …)` (closed world: it adds nothing but
 * is kept so the model reads what the file says), or an `(and …)` of those. A timed fact
 * `(at 10 φ)` is refused.
 */
function initialFacts(form: SExpr, out: SExpr[]): void {
  if (form.kind !== "list") refuse("problem", form, preview(form), `expected a fact such as (at a b) in :init, found ${preview(form)}`);
  const head = headOf(form);
  if (head === "at" && form.items.length === 3 && form.items[1]?.kind === "number") {
    refuse("problem", form, "(at …)", "timed initial literals are not supported (timed facts have no place in the formal-model conventions)");
  }
  checkExpression(form, "problem", ":init");
  if (head === "and") for (const part of form.items.slice(1)) initialFacts(part, out);
  else out.push(form);
}

/** `(:metric minimize (total-cost))` → `minimize (total-cost)`, on one line. */
function metricText(section: Extract<SExpr, { kind: "list" }>): string {
  const text = (f: SExpr): string => (f.kind === "list" ? `(${f.items.map(text).join(" ")})` : f.text);
  const direction = symbolOf(section.items[1]);
  if (direction !== "minimize" && direction !== "maximize") refuse("problem", section.items[1] ?? section, ":metric", "(:metric …) starts with minimize or maximize");
  return section.items.slice(1).map(text).join(" ").slice(0, 2_000);
}
