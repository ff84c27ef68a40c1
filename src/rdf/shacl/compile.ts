/**
 * Reads a shapes graph once into a ValidationPlan (plan.ts).
 *
 * The shapes file stays the source of truth: nothing here knows the MFR shapes, it
 * interprets SHACL. It covers the components and path forms the MFR shapes use and a few
 * cheap neighbours, with rdf-validate-shacl's reading of them (that engine is the
 * reference: the differential tests compare the two). Anything else in the shapes graph,
 * or a construct whose meaning in that engine depends on more than the shapes (reference
 * cycles, nested property shapes, its per-node check cap), makes compileShapes return
 * `unsupported` with the reason, and the caller validates with rdf-validate-shacl instead.
 */
import { DataFactory, termToId } from "n3";
import type { Store } from "n3";
import type { NamedNode, Term } from "n3";
import { OWL, RDF, RDFS, RdfList, SH, XSD } from "../../base/vocab.js";
import { renderPath } from "../finding-text.js";
import type { Check, ConstraintPlan, PathPlan, ShapePlan, TargetPlan, ValidationPlan } from "./plan.js";

const { namedNode, literal } = DataFactory;

/** A compiled plan, or why the shapes need rdf-validate-shacl instead (`unsupported`: a reason for the log). */
export type CompiledShapes = { ok: true; plan: ValidationPlan } | { ok: false; unsupported: string };

/** Thrown inside the compiler, returned as `unsupported` by compileShapes. */
class Unsupported extends Error {}

/** SHACL terms the compiler understands; any other sh: predicate means "not supported". */
const TARGET_PREDICATES = ["targetClass", "targetNode", "targetSubjectsOf", "targetObjectsOf"] as const;
const NON_VALIDATING = ["message", "severity", "deactivated", "name", "description", "order", "group", "defaultValue"];
const PATH_PREDICATES = ["path", "alternativePath", "inversePath"];

/**
 * Each supported component with its parameters in the SHACL vocabulary's order (message
 * placeholders are filled in that order), which of them are optional, and its text for
 * results when the shape has no sh:message (rdf-validate-shacl's wording).
 */
interface ComponentSpec {
  name: Check["component"];
  parameters: string[];
  optional?: string[];
  /** Only meaningful on property shapes; rdf-validate-shacl has no validator for node shapes. */
  propertyOnly?: boolean;
  text?: string;
}

const COMPONENTS: readonly ComponentSpec[] = [
  { name: "Property", parameters: ["property"] },
  { name: "MinCount", parameters: ["minCount"], propertyOnly: true, text: "Less than {$minCount} values" },
  { name: "MaxCount", parameters: ["maxCount"], propertyOnly: true, text: "More than {$maxCount} values" },
  {
    name: "QualifiedMinCount",
    parameters: ["qualifiedValueShape", "qualifiedMinCount", "qualifiedValueShapesDisjoint"],
    optional: ["qualifiedValueShapesDisjoint"],
    propertyOnly: true,
    text: "Less than {$qualifiedMinCount} values have shape {$qualifiedValueShape}",
  },
  {
    name: "QualifiedMaxCount",
    parameters: ["qualifiedValueShape", "qualifiedMaxCount", "qualifiedValueShapesDisjoint"],
    optional: ["qualifiedValueShapesDisjoint"],
    propertyOnly: true,
    text: "More than {$qualifiedMaxCount} values have shape {$qualifiedValueShape}",
  },
  { name: "Pattern", parameters: ["pattern", "flags"], optional: ["flags"], text: 'Value does not match pattern "{$pattern}"' },
  { name: "Or", parameters: ["or"] },
  { name: "Datatype", parameters: ["datatype"], text: "Value does not have datatype {$datatype}" },
  { name: "Class", parameters: ["class"] },
  { name: "In", parameters: ["in"], text: "Value is not one of the allowed values: {$in}" },
  { name: "NodeKind", parameters: ["nodeKind"], text: "Value does not have node kind {$nodeKind}" },
];

const KNOWN_SH_PREDICATES = new Set([
  ...TARGET_PREDICATES,
  ...NON_VALIDATING,
  ...PATH_PREDICATES,
  ...COMPONENTS.flatMap((c) => c.parameters),
]);

/**
 * Datatypes whose lexical forms rdf-validate-datatype accepts whatever they are (all
 * datatypes outside XSD, except csvw:JSON, and these XSD ones). sh:datatype with any
 * other XSD datatype would need that library's lexical checks: not compiled.
 */
const LEXICALLY_FREE_XSD = new Set(
  ["string", "anySimpleType", "anyAtomicType", "NOTATION", "QName", "Name", "NCName", "ENTITY", "ID", "IDREF", "NMTOKEN", "ENTITIES", "IDREFS", "NMTOKENS"].map((t) => `${XSD}${t}`),
);
const CSVW_JSON = "http://www.w3.org/ns/csvw#JSON";

const NODE_KINDS: Record<string, string[]> = {
  [`${SH}BlankNode`]: ["BlankNode"],
  [`${SH}IRI`]: ["NamedNode"],
  [`${SH}Literal`]: ["Literal"],
  [`${SH}BlankNodeOrIRI`]: ["BlankNode", "NamedNode"],
  [`${SH}BlankNodeOrLiteral`]: ["BlankNode", "Literal"],
  [`${SH}IRIOrLiteral`]: ["NamedNode", "Literal"],
};

/** rdf-validate-shacl stops checking one node against one shape after this many checks. */
const MAX_NODE_CHECKS = 50;

const SHAPE_CLASSES = new Set([`${SH}NodeShape`, `${SH}PropertyShape`, `${SH}Shape`]);

/**
 * Compiles a shapes graph into a ValidationPlan, reading the shapes only; done once per
 * shapes store (engine.ts keeps the result). Anything the compiler does not cover comes back as
 * `unsupported`, never thrown; any other error is a bug and is thrown.
 */
export function compileShapes(shapes: Store): CompiledShapes {
  try {
    return { ok: true, plan: new Compiler(shapes).compile() };
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, unsupported: error.message };
    throw error;
  }
}

class Compiler {
  private readonly compiled = new Map<string, ShapePlan>();
  /** Shapes referring to a shape through sh:property (for the per-node check cap). */
  private readonly propertyParents = new Map<string, ShapePlan[]>();

  constructor(private readonly shapes: Store) {}

  compile(): ValidationPlan {
    this.checkVocabulary();
    const candidates = new Map<string, Term>();
    for (const spec of COMPONENTS) {
      const required = spec.parameters.filter((p) => !spec.optional?.includes(p));
      for (const parameter of required) {
        for (const subject of this.shapes.getSubjects(sh(parameter), null, null)) candidates.set(termToId(subject), subject);
      }
    }
    for (const predicate of TARGET_PREDICATES) {
      for (const subject of this.shapes.getSubjects(sh(predicate), null, null)) candidates.set(termToId(subject), subject);
    }
    for (const node of candidates.values()) this.shape(node);
    this.checkReferences();
    const targeted = [...this.compiled.values()].filter((s) => hasTargets(s.targets) && s.constraints.length > 0);
    return { shapes: this.compiled, targeted };
  }

  /** Everything in the shapes graph that could change validation must be understood here. */
  private checkVocabulary(): void {
    const hasSubclassAxioms = this.shapes.countQuads(null, namedNode(`${RDFS}subClassOf`), null, null) > 0;
    for (const q of this.shapes.getQuads(null, null, null, null)) {
      if (q.graph.termType !== "DefaultGraph") throw new Unsupported("shapes in a named graph");
      const predicate = q.predicate.value;
      if (predicate.startsWith(SH) && !KNOWN_SH_PREDICATES.has(predicate.slice(SH.length))) {
        throw new Unsupported(`sh:${predicate.slice(SH.length)}`);
      }
      if (predicate === `${OWL}imports`) throw new Unsupported("owl:imports");
      // Implicit class targets: a shape that is also a class targets its instances.
      if (predicate === `${RDF}type` && q.object.value === `${RDFS}Class`) throw new Unsupported("a shape that is an rdfs:Class");
      if (predicate === `${RDF}type` && hasSubclassAxioms && !SHAPE_CLASSES.has(q.object.value)) {
        throw new Unsupported("rdfs:subClassOf in the shapes graph");
      }
    }
  }

  private shape(node: Term): ShapePlan {
    const key = termToId(node);
    const known = this.compiled.get(key);
    if (known) return known;
    const severity = this.atMostOne(node, "severity");
    const deactivated = this.atMostOne(node, "deactivated");
    const pathNode = this.atMostOne(node, "path");
    const plan: ShapePlan = {
      node,
      severity: severity?.value ?? `${SH}Violation`,
      deactivated: deactivated?.value === "true",
      constraints: [],
      targets: this.targets(node),
    };
    if (pathNode) {
      plan.path = this.path(pathNode, new Set());
      plan.pathText = renderPath(this.shapes, pathNode);
    }
    // Registered before its constraints: shapes may refer to one another (cycles are refused later).
    this.compiled.set(key, plan);
    for (const spec of COMPONENTS) plan.constraints.push(...this.constraints(plan, spec));
    return plan;
  }

  private targets(node: Term): TargetPlan {
    return {
      classes: this.objects(node, "targetClass"),
      nodes: this.objects(node, "targetNode"),
      subjectsOf: this.objects(node, "targetSubjectsOf") as NamedNode[],
      objectsOf: this.objects(node, "targetObjectsOf") as NamedNode[],
    };
  }

  /** One constraint per combination of parameter values, as SHACL (and rdf-validate-shacl) reads them. */
  private constraints(shape: ShapePlan, spec: ComponentSpec): ConstraintPlan[] {
    const present = spec.parameters.map((p) => [p, this.objects(shape.node, p)] as const).filter(([, values]) => values.length > 0);
    const required = spec.parameters.filter((p) => !spec.optional?.includes(p));
    if (!required.every((p) => present.some(([name]) => name === p))) return [];
    if (spec.propertyOnly && !shape.path) throw new Unsupported(`sh:${spec.parameters[0]} on a node shape`);
    let combinations: Map<string, Term>[] = [new Map()];
    for (const [name, values] of present) {
      combinations = combinations.flatMap((c) => values.map((v) => new Map([...c, [name, v]])));
    }
    return combinations.map((parameters) => ({
      check: this.check(shape, spec.name, parameters),
      messages: this.messages(shape, spec, parameters),
    }));
  }

  private check(shape: ShapePlan, component: Check["component"], p: Map<string, Term>): Check {
    const value = (name: string): Term => p.get(name) as Term;
    switch (component) {
      case "Property": {
        const child = this.shape(value("property"));
        if (shape.path && child.constraints.length > 0) {
          // Its focus nodes would be the parent's values, which repeat across the parent's
          // focus nodes: rdf-validate-shacl's per-node check cap would then matter.
          throw new Unsupported("sh:property under a property shape");
        }
        this.propertyParents.set(termToId(child.node), [...(this.propertyParents.get(termToId(child.node)) ?? []), shape]);
        return { component, shape: child };
      }
      case "MinCount":
        return { component, min: Number(value("minCount").value) };
      case "MaxCount":
        return { component, max: Number(value("maxCount").value) };
      case "QualifiedMinCount":
      case "QualifiedMaxCount": {
        if (p.has("qualifiedValueShapesDisjoint")) throw new Unsupported("sh:qualifiedValueShapesDisjoint");
        const count = value(component === "QualifiedMinCount" ? "qualifiedMinCount" : "qualifiedMaxCount");
        // rdf-validate-shacl fails the constraint when the count is not a literal.
        const limit = count.termType === "Literal" ? Number(count.value) : Number.NaN;
        const target = this.shape(value("qualifiedValueShape"));
        return component === "QualifiedMinCount" ? { component, shape: target, min: limit } : { component, shape: target, max: limit };
      }
      case "Pattern":
        return { component, perValue: true, pattern: this.regExp(value("pattern").value, p.get("flags")?.value) };
      case "Or":
        return { component, perValue: true, shapes: this.list(value("or")).map((s) => this.shape(s)) };
      case "Datatype": {
        const datatype = value("datatype");
        if (datatype.termType !== "NamedNode") throw new Unsupported("sh:datatype that is not an IRI");
        const free = datatype.value.startsWith(XSD) ? LEXICALLY_FREE_XSD.has(datatype.value) : datatype.value !== CSVW_JSON;
        if (!free) throw new Unsupported(`sh:datatype <${datatype.value}> (lexical form checks)`);
        return { component, perValue: true, datatype: datatype.value };
      }
      case "Class":
        return { component, perValue: true, classTerm: value("class") };
      case "In":
        return { component, perValue: true, allowed: new Set(this.list(value("in")).map((t) => termToId(t))) };
      case "NodeKind":
        return { component, perValue: true, termTypes: new Set(NODE_KINDS[value("nodeKind").value] ?? []) };
    }
  }

  private regExp(pattern: string, flags: string | undefined): RegExp {
    try {
      return flags === undefined ? new RegExp(pattern) : new RegExp(pattern, flags);
    } catch {
      throw new Unsupported(`sh:pattern that is not a valid regular expression: ${pattern}`);
    }
  }

  /**
   * The result messages: the shape's sh:message (all of them), else the component's text,
   * else sh:message on the component node; then `{$param}` and `{?param}` filled in once
   * each, as rdf-validate-shacl does.
   */
  private messages(shape: ShapePlan, spec: ComponentSpec, parameters: Map<string, Term>): Term[] {
    const component = namedNode(`${SH}${spec.name}ConstraintComponent`);
    let messages = this.shapes.getObjects(shape.node, sh("message"), null);
    if (messages.length === 0 && spec.text !== undefined) messages = [literal(spec.text)];
    if (messages.length === 0) messages = this.shapes.getObjects(component, sh("message"), null);
    return messages.map((message) => {
      let text = message.value;
      for (const name of spec.parameters) {
        const label = this.parameterLabel(shape, parameters.get(name));
        text = text.replace(`{$${name}}`, label).replace(`{?${name}}`, label);
      }
      return literal(text, message.termType === "Literal" ? message.language || message.datatype : undefined);
    });
  }

  /** How rdf-validate-shacl prints a parameter value in a message (blank nodes: the shape's sh:in values). */
  private parameterLabel(shape: ShapePlan, value: Term | undefined): string {
    if (value === undefined) return "NULL";
    if (value.termType === "NamedNode") return `<${value.value}>`;
    if (value.termType !== "BlankNode") return value.value;
    const inValues = this.objects(shape.node, "in").flatMap((head) => this.list(head));
    const unique = [...new Map(inValues.map((t) => [termToId(t), t])).values()].map((t) => t.value);
    return unique.length > 3 ? `${unique.slice(0, 3).join(", ")} ... (and ${unique.length - 3} more)` : unique.join(", ");
  }

  private path(node: Term, lists: Set<string>): PathPlan {
    if (node.termType === "NamedNode") return { kind: "predicate", predicate: node };
    if (node.termType !== "BlankNode") throw new Unsupported(`a path that is a ${node.termType}`);
    if (this.shapes.countQuads(node, namedNode(RdfList.first), null, null) > 0) {
      return { kind: "sequence", paths: this.list(node, true).map((p) => this.path(p, lists)) };
    }
    const alternatives = this.atMostOne(node, "alternativePath");
    if (alternatives) return { kind: "alternative", paths: this.list(alternatives, true).map((p) => this.path(p, lists)) };
    const inverse = this.atMostOne(node, "inversePath");
    if (inverse) {
      if (inverse.termType !== "NamedNode") throw new Unsupported("sh:inversePath of a complex path");
      return { kind: "inverse", predicate: inverse };
    }
    throw new Unsupported("a blank-node path of no supported form");
  }

  /**
   * An RDF list's items, read as rdf-validate-shacl reads them: something that is not a
   * list is empty; a malformed list (two rdf:first or rdf:rest) makes that engine throw, so
   * it is not compiled. In paths the list nodes must be blank, as findings render them.
   */
  private list(head: Term, inPath = false): Term[] {
    const first = namedNode(RdfList.first);
    const rest = namedNode(RdfList.rest);
    if (head.value === RdfList.nil && head.termType === "NamedNode") return [];
    if ((head.termType !== "NamedNode" && head.termType !== "BlankNode") || this.shapes.countQuads(head, first, null, null) === 0) return [];
    const items: Term[] = [];
    const seen = new Set<string>();
    for (let node: Term | undefined = head; node !== undefined && !(node.termType === "NamedNode" && node.value === RdfList.nil); ) {
      const key = termToId(node);
      if (seen.has(key)) throw new Unsupported("a cyclic RDF list");
      seen.add(key);
      if (inPath && node.termType !== "BlankNode") throw new Unsupported("a path list with IRI nodes");
      const firsts = this.shapes.getObjects(node, first, null);
      const rests = this.shapes.getObjects(node, rest, null);
      if (firsts.length !== 1 || rests.length > 1) throw new Unsupported("a malformed RDF list");
      items.push(firsts[0] as Term);
      node = rests[0];
    }
    return items;
  }

  /**
   * Shapes that refer to themselves (through sh:property, sh:or, sh:qualifiedValueShape)
   * and shapes checked on one node more often than rdf-validate-shacl allows are its
   * engine's business: not compiled.
   */
  private checkReferences(): void {
    const state = new Map<string, "visiting" | "done">();
    const visit = (shape: ShapePlan): void => {
      const key = termToId(shape.node);
      if (state.get(key) === "done") return;
      if (state.get(key) === "visiting") throw new Unsupported("shapes that refer to themselves");
      state.set(key, "visiting");
      for (const { check } of shape.constraints) for (const next of referencedShapes(check)) visit(next);
      state.set(key, "done");
    };
    for (const shape of this.compiled.values()) visit(shape);
    const checks = new Map<string, number>();
    const checksOf = (shape: ShapePlan): number => {
      const key = termToId(shape.node);
      const known = checks.get(key);
      if (known !== undefined) return known;
      const count = 1 + (this.propertyParents.get(key) ?? []).reduce((sum, parent) => sum + checksOf(parent), 0);
      checks.set(key, count);
      return count;
    };
    for (const shape of this.compiled.values()) {
      if (checksOf(shape) > MAX_NODE_CHECKS) throw new Unsupported("a shape checked on one node more than 50 times");
    }
  }

  private objects(node: Term, local: string): Term[] {
    return this.shapes.getObjects(node, sh(local), null);
  }

  private atMostOne(node: Term, local: string): Term | undefined {
    const values = this.objects(node, local);
    if (values.length > 1) throw new Unsupported(`several sh:${local} on one shape`);
    return values[0];
  }
}

function referencedShapes(check: Check): ShapePlan[] {
  switch (check.component) {
    case "Property":
    case "QualifiedMinCount":
    case "QualifiedMaxCount":
      return [check.shape];
    case "Or":
      return check.shapes;
    default:
      return [];
  }
}

function hasTargets(t: TargetPlan): boolean {
  return t.classes.length + t.nodes.length + t.subjectsOf.length + t.objectsOf.length > 0;
}

function sh(local: string): NamedNode {
  return namedNode(`${SH}${local}`);
}
