/**
 * Writes a planning task as one Turtle contribution in the house style of docs/protocol.md
 * ("Formal models and verified solutions"): entities with `mfr:symbol`, a label and their
 * flattened `mfr:entityType`s; state variables; actions with ONE RDF list of parameters and a
 * Precondition/Effect node per conjunct; the initial facts and notes on the contribution's
 * own problem node; goals and `always` constraints as Goal and Constraint nodes. One line per
 * small node keeps an IPC problem with hundreds of objects and facts small.
 */
import { MFR, RDFS } from "../../base/vocab.js";
import type { PlanningTask } from "./task.js";
import { ROOT_TYPE } from "./types.js";

/** The default base of the contribution's nodes: a urn of the domain and problem names. */
export function defaultBase(domainName: string, problemName: string): string {
  return `urn:mfr:pddl:${encodeURIComponent(domainName)}:${encodeURIComponent(problemName)}:`;
}

/** The Turtle of `task`, its nodes minted under `base`. */
export function writeTurtle(task: PlanningTask, base: string): string {
  const names = new LocalNames();
  const problem = ":problem";
  const out: string[] = [
    `@prefix mfr: <${MFR}> .`,
    `@prefix rdfs: <${RDFS}> .`,
    `@prefix : <${iri(base)}> .`,
    "",
    `# PDDL domain ${comment(task.domainName)}, problem ${comment(task.problemName)}, as written by mfr-coordinator import-pddl.`,
    "",
  ];

  const problemLines = [`${problem} rdfs:label ${literal(`PDDL problem ${task.problemName} (domain ${task.domainName})`)}`];
  for (const note of task.notes) problemLines.push(`rdfs:comment ${literal(note)}`);
  if (task.initialState.length > 0) problemLines.push(`mfr:initialState\n    ${task.initialState.map(literal).join(" ,\n    ")}`);
  out.push(`${problemLines.join(" ;\n  ")} .`, "");

  for (const o of task.objects) {
    const types = (o.types.length === 0 ? [ROOT_TYPE] : o.types).map(literal).join(" , ");
    const kind = o.constant ? " ; rdfs:comment \"a constant of the domain\"" : "";
    out.push(`${names.mint("object", o.symbol)} a mfr:Entity ; mfr:symbol ${literal(o.symbol)} ; rdfs:label ${literal(o.symbol)} ; mfr:entityType ${types}${kind} .`);
  }
  out.push("");

  for (const v of task.stateVariables) {
    out.push(`${names.mint(v.kind, v.name)} a mfr:StateVariable ; rdfs:label ${literal(v.name)} ; mfr:expression ${literal(v.expression)} ; rdfs:comment ${literal(`${v.kind} ${v.signature}`)} .`);
  }
  out.push("");

  for (const a of task.actions) {
    const lines = [`${names.mint("action", a.name)} a mfr:Action ; mfr:actionName ${literal(a.name)} ; rdfs:label ${literal(a.name)}`, `mfr:hasParameter ( ${a.parameters.map(literal).join(" ")} )`];
    if (a.preconditions.length > 0) lines.push(`mfr:hasPrecondition\n    ${a.preconditions.map((p) => `[ a mfr:Precondition ; mfr:expression ${literal(p)} ]`).join(" ,\n    ")}`);
    if (a.effects.length > 0) lines.push(`mfr:hasEffect\n    ${a.effects.map((e) => `[ a mfr:Effect ; mfr:expression ${literal(e)} ]`).join(" ,\n    ")}`);
    out.push(`${lines.join(" ;\n  ")} .`, "");
  }

  task.goals.forEach((g, i) => {
    out.push(`${names.mint("goal", String(i + 1))} a mfr:Goal ; rdfs:label ${literal(`goal ${i + 1}`)} ; mfr:expression ${literal(g)} .`);
  });
  task.constraints.forEach((c, i) => {
    out.push(
      `${names.mint("constraint", String(i + 1))} a mfr:Constraint ; rdfs:label ${literal(`constraint ${i + 1}`)} ; mfr:constraintType "invariant" ; mfr:appliesTo ${problem} ;` +
        ` mfr:constraintExpression ${literal(c.expression)} ; rdfs:comment ${literal(`(always …) of the ${c.from}'s :constraints: true in every state`)} .`,
    );
  });
  return `${out.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`;
}

/** Distinct local names per kind (`object-truck1`), each a valid Turtle prefixed name. */
class LocalNames {
  private readonly taken = new Set<string>();

  mint(kind: string, name: string): string {
    const base = `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
    let local = base;
    for (let i = 2; this.taken.has(local); i += 1) local = `${base}-${i}`;
    this.taken.add(local);
    return `:${local}`;
  }
}

/**
 * A Turtle string literal. Quotes, backslashes and control characters are escaped; a lone
 * surrogate (which Turtle cannot escape) becomes U+FFFD, as docs/protocol.md asks of agents.
 */
export function literal(text: string): string {
  const safe = text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
  // eslint-disable-next-line no-control-regex
  return `"${safe.replace(/[\\"\u0000-\u001F\u007F]/g, (c) => (c === "\\" ? "\\\\" : c === '"' ? '\\"' : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`))}"`;
}

/** An IRI for `<…>`: characters Turtle does not allow there are percent-encoded. */
function iri(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0020<>"{}|^`\\]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`);
}

/** Text for a `#` comment: on one line, nothing that ends it. */
function comment(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001F\u007F\u2028\u2029]/g, "?").slice(0, 200);
}
