/**
 * The structure of a PDDL domain file: requirements, types, constants, predicate and function
 * declarations, actions (their parameter lists and precondition and effect forms) and
 * `(:constraints …)`. Only the shape is read here, with every refusal positioned; the
 * expressions inside are parsed later by the project's own parsers (see task.ts).
 */
import type { SExpr } from "../../formal/sexpr.js";
import { checkExpression, checkRequirements, checkSection, stateConstraints } from "./constructs.js";
import { refuse } from "./refusal.js";
import { headOf, preview, readDefine, symbolOf, typedList } from "./source.js";
import type { List, TypedName } from "./source.js";

/**
 * Counts past which a domain is refused rather than read: far above any real domain. The
 * formal model reads at most 256 items of a parameter list, so a longer one is refused here
 * rather than cut short there.
 */
export const DOMAIN_LIMITS = { actions: 2_000, declarations: 10_000, parameters: 256 } as const;

/** A predicate or function declaration: `(at ?x - loc ?y)`. */
export interface Declaration {
  name: string;
  form: List;
  parameters: TypedName[];
}

/** An action as written: its parameter list, and its precondition and effect forms if any. */
export interface ActionForms {
  name: string;
  form: List;
  parameters: TypedName[];
  /** The `:parameters` list itself, for positions. */
  parametersForm: SExpr | undefined;
  precondition: SExpr | undefined;
  effect: SExpr | undefined;
}

/** What a domain file declares. */
export interface DomainParts {
  name: string;
  requirements: string[];
  types: TypedName[];
  constants: TypedName[];
  predicates: Declaration[];
  functions: Declaration[];
  actions: ActionForms[];
  /** The bodies φ of its `(always φ)` constraints. */
  constraints: SExpr[];
}

const DOMAIN_SECTIONS: ReadonlySet<string> = new Set([":requirements", ":types", ":constants", ":predicates", ":functions", ":action", ":constraints"]);

/** Reads a domain file's structure; refuses (with a position) anything the import does not carry. */
export function readDomain(text: string): DomainParts {
  const { name, sections } = readDefine(text, "domain");
  const parts: DomainParts = { name, requirements: [], types: [], constants: [], predicates: [], functions: [], actions: [], constraints: [] };
  for (const section of sections) {
    const head = checkSection(section, "domain", DOMAIN_SECTIONS);
    const items = section.items.slice(1);
    switch (head) {
      case ":requirements":
        parts.requirements.push(...checkRequirements(section, "domain"));
        break;
      case ":types":
        for (const t of typedList(items, "domain", ":types", false)) {
          if (t.either) refuse("domain", t.form, "either", `(either …) cannot be a type's parent in :types (${t.name})`);
          parts.types.push(t);
        }
        break;
      case ":constants":
        parts.constants.push(...typedList(items, "domain", ":constants", false));
        break;
      case ":predicates":
        parts.predicates.push(...declarations(items, ":predicates", false));
        break;
      case ":functions":
        parts.functions.push(...declarations(items, ":functions", true));
        break;
      case ":action":
        parts.actions.push(readAction(section));
        break;
      case ":constraints":
        if (section.items.length !== 2) refuse("domain", section, ":constraints", "(:constraints …) holds one formula");
        for (const body of stateConstraints(section.items[1] as SExpr, "domain")) {
          checkExpression(body, "domain", ":constraints");
          parts.constraints.push(body);
        }
        break;
    }
    if (parts.actions.length > DOMAIN_LIMITS.actions) refuse("domain", section, ":action", `the domain has more than ${DOMAIN_LIMITS.actions} actions`);
    if (parts.predicates.length + parts.functions.length + parts.constants.length + parts.types.length > DOMAIN_LIMITS.declarations) {
      refuse("domain", section, head, `the domain declares more than ${DOMAIN_LIMITS.declarations} names`);
    }
  }
  once(parts.actions, "action");
  once([...parts.predicates, ...parts.functions], "predicate or function");
  return parts;
}

/** Refuses a name declared twice: PDDL readers do, and the formal model could not tell them apart. */
function once(items: readonly { name: string; form: SExpr }[], what: string): void {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.name)) refuse("domain", item.form, item.name, `the ${what} ${item.name} is declared twice`);
    seen.add(item.name);
  }
}

/**
 * `(at ?x - loc) (free ?a)`; for functions also `(fuel ?t) - number`. A function of any other
 * type is an object fluent: refused, since the formal model's fluents are numbers.
 */
function declarations(items: readonly SExpr[], section: string, functions: boolean): Declaration[] {
  const out: Declaration[] = [];
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i] as SExpr;
    if (functions && symbolOf(item) === "-") {
      const type = items[i + 1];
      if (out.length === 0) refuse("domain", item, "-", "a function's type must follow its declaration, as in (fuel ?t) - number");
      if (symbolOf(type) !== "number") {
        refuse("domain", type ?? item, type === undefined ? "-" : preview(type), `object fluents are not supported (the formal model's fluents are numbers; found - ${type === undefined ? "nothing" : preview(type)})`);
      }
      i += 1;
      continue;
    }
    const name = headOf(item);
    if (item.kind !== "list" || name === undefined || name.startsWith("?") || name.startsWith(":")) {
      refuse("domain", item, preview(item), `expected a declaration such as (at ?x ?y) in ${section}, found ${preview(item)}`);
    }
    out.push({ name, form: item, parameters: typedList(item.items.slice(1), "domain", `(${name} …)`, true) });
  }
  return out;
}

const ACTION_KEYS: ReadonlySet<string> = new Set([":parameters", ":precondition", ":effect"]);

function readAction(section: List): ActionForms {
  const name = symbolOf(section.items[1]);
  if (name === undefined || name.startsWith(":") || name.startsWith("?")) refuse("domain", section.items[1] ?? section, ":action", "(:action NAME …) needs a name");
  const action: ActionForms = { name, form: section, parameters: [], parametersForm: undefined, precondition: undefined, effect: undefined };
  const seen = new Set<string>();
  for (let i = 2; i < section.items.length; i += 2) {
    const keyForm = section.items[i] as SExpr;
    const key = symbolOf(keyForm);
    const value = section.items[i + 1];
    if (key === undefined || !ACTION_KEYS.has(key)) {
      const why = key === ":duration" ? " (durations have no place in the formal-model conventions)" : "";
      refuse("domain", keyForm, key ?? preview(keyForm), `${key ?? preview(keyForm)} is not supported in an action${why}; an action has :parameters, :precondition and :effect`);
    }
    if (value === undefined) refuse("domain", keyForm, key, `${key} has no value in action ${name}`);
    if (seen.has(key)) refuse("domain", keyForm, key, `${key} appears twice in action ${name}`);
    seen.add(key);
    if (key === ":parameters") {
      if (value.kind !== "list") refuse("domain", value, ":parameters", `:parameters of ${name} must be a list such as (?x - type)`);
      action.parameters = typedList(value.items, "domain", `the parameters of ${name}`, true);
      if (action.parameters.length > DOMAIN_LIMITS.parameters) refuse("domain", value, ":parameters", `action ${name} has more than ${DOMAIN_LIMITS.parameters} parameters`);
      action.parametersForm = value;
    } else {
      checkExpression(value, "domain", `action ${name}`);
      if (key === ":precondition") action.precondition = value;
      else action.effect = value;
    }
  }
  return action;
}
