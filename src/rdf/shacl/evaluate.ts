/**
 * Runs a ValidationPlan against a data store, reading the store's own indexes.
 *
 * The data graph is the union of the store's graphs, and a triple stated in several graphs
 * counts once: n3's getObjects/getSubjects return each term once whatever the number of
 * graphs stating it, which is what rdf-validate-shacl's value-node sets give too.
 */
import { DataFactory, termToId } from "n3";
import type { QuadQueries } from "../quad-store.js";
import type { Term } from "n3";
import { RDF_TYPE, RDFS, SH } from "../../base/vocab.js";
import type { Check, ConstraintPlan, ExtraTarget, PathPlan, ShapePlan, ValidationPlan } from "./plan.js";
import type { ShaclResult } from "./result.js";

const RDF_TYPE_NODE = DataFactory.namedNode(RDF_TYPE);
const SUBCLASS_OF = DataFactory.namedNode(`${RDFS}subClassOf`);

/** Where failures go: a report, or nowhere when all that matters is whether a node conforms. */
type Report = ShaclResult[] | null;

/**
 * The SHACL results of `plan` on `data` (the union of its graphs), with `extraTargets` added
 * to the shapes' own targets for this run. Reads the store only; the same plan, data and
 * targets give the same results in the same order.
 */
export function runPlan(plan: ValidationPlan, data: QuadQueries, extraTargets: readonly ExtraTarget[] = []): ShaclResult[] {
  return new Evaluation(data).run(plan, extraTargets);
}

class Evaluation {
  /** A class and its subclasses (rdfs:subClassOf*, in the data), by class key. */
  private readonly classClosures = new Map<string, ReadonlyMap<string, Term>>();

  constructor(private readonly data: QuadQueries) {}

  run(plan: ValidationPlan, extraTargets: readonly ExtraTarget[]): ShaclResult[] {
    const extraNodes = new Map<string, Term[]>();
    for (const { shape, node } of extraTargets) extraNodes.set(shape, [...(extraNodes.get(shape) ?? []), node]);
    const shapes = [...plan.targeted];
    for (const iri of extraNodes.keys()) {
      const shape = plan.shapes.get(iri);
      if (shape && shape.constraints.length > 0 && !shapes.includes(shape)) shapes.push(shape);
    }
    const report: ShaclResult[] = [];
    for (const shape of shapes) {
      const extra = shape.node.termType === "NamedNode" ? (extraNodes.get(shape.node.value) ?? []) : [];
      for (const focus of this.targetNodes(shape, extra)) this.validate(focus, shape, report);
    }
    return report;
  }

  /** sh:targetClass (instances of the class and its subclasses), sh:targetNode, sh:targetSubjectsOf, sh:targetObjectsOf; each node once. */
  private targetNodes(shape: ShapePlan, extra: readonly Term[]): Term[] {
    const found = new Map<string, Term>();
    const add = (terms: readonly Term[]): void => {
      for (const t of terms) if (!found.has(termToId(t))) found.set(termToId(t), t);
    };
    for (const cls of shape.targets.classes) {
      for (const subclass of this.classClosure(cls).values()) add(this.data.getSubjects(RDF_TYPE_NODE, subclass, null));
    }
    add(shape.targets.nodes);
    add(extra);
    for (const p of shape.targets.subjectsOf) add(this.data.getSubjects(p, null, null));
    for (const p of shape.targets.objectsOf) add(this.data.getObjects(null, p, null));
    return [...found.values()];
  }

  /** Validates one node against one shape; true when it fails anything. With no report, stops at the first failure. */
  private validate(focus: Term, shape: ShapePlan, report: Report): boolean {
    if (shape.deactivated) return false;
    const values = shape.path ? this.pathValues(focus, shape.path) : [focus];
    let failed = false;
    for (const constraint of shape.constraints) {
      if (this.check(focus, values, shape, constraint, report)) {
        failed = true;
        if (report === null) return true;
      }
    }
    return failed;
  }

  private conforms(node: Term, shape: ShapePlan): boolean {
    return !this.validate(node, shape, null);
  }

  private check(focus: Term, values: readonly Term[], shape: ShapePlan, constraint: ConstraintPlan, report: Report): boolean {
    const { check } = constraint;
    const fail = (value?: Term): true => {
      report?.push(resultOf(shape, constraint, focus, value));
      return true;
    };
    switch (check.component) {
      case "MinCount":
        return values.length >= check.min ? false : fail();
      case "MaxCount":
        return values.length <= check.max ? false : fail();
      case "QualifiedMinCount":
        return this.conformingCount(values, check.shape) >= check.min ? false : fail();
      case "QualifiedMaxCount":
        return this.conformingCount(values, check.shape) <= check.max ? false : fail();
      case "Property": {
        let failed = false;
        for (const value of values) {
          if (this.validate(value, check.shape, report)) {
            failed = true;
            if (report === null) return true;
          }
        }
        return failed;
      }
      default: {
        let failed = false;
        for (const value of values) {
          if (this.accepts(check, value)) continue;
          failed = fail(value);
          if (report === null) return true;
        }
        return failed;
      }
    }
  }

  /** The components that judge one value node at a time. */
  private accepts(check: Check, value: Term): boolean {
    switch (check.component) {
      case "Pattern":
        if (value.termType === "BlankNode") return false;
        check.pattern.lastIndex = 0;
        return check.pattern.test(value.value);
      case "Or":
        return check.shapes.some((shape) => this.conforms(value, shape));
      case "Datatype":
        return value.termType === "Literal" && value.datatype.value === check.datatype;
      case "Class": {
        const classes = this.classClosure(check.classTerm);
        return this.data.getObjects(value, RDF_TYPE_NODE, null).some((type) => classes.has(termToId(type)));
      }
      case "In":
        return check.allowed.has(termToId(value));
      case "NodeKind":
        return check.termTypes.has(value.termType);
      default:
        return true;
    }
  }

  private conformingCount(values: readonly Term[], shape: ShapePlan): number {
    let count = 0;
    for (const value of values) if (this.conforms(value, shape)) count++;
    return count;
  }

  /** Each value once, in path order. */
  private pathValues(focus: Term, path: PathPlan): Term[] {
    switch (path.kind) {
      case "predicate":
        return this.data.getObjects(focus, path.predicate, null);
      case "inverse":
        return this.data.getSubjects(path.predicate, focus, null);
      case "alternative":
        if (path.paths.length === 1) return this.pathValues(focus, path.paths[0] as PathPlan);
        return unique(path.paths.flatMap((p) => this.pathValues(focus, p)));
      case "sequence": {
        let nodes: Term[] = [focus];
        for (const step of path.paths) nodes = unique(nodes.flatMap((node) => this.pathValues(node, step)));
        return nodes;
      }
    }
  }

  /**
   * A class and its subclasses, by key, through rdfs:subClassOf in the data (any
   * graph). A cycle of subclass axioms ends the walk here; rdf-validate-shacl would recurse
   * without end on one.
   */
  private classClosure(cls: Term): ReadonlyMap<string, Term> {
    const key = termToId(cls);
    const known = this.classClosures.get(key);
    if (known) return known;
    const closure = new Map<string, Term>();
    const pending: Term[] = [cls];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const nextKey = termToId(next);
      if (closure.has(nextKey)) continue;
      closure.set(nextKey, next);
      pending.push(...this.data.getSubjects(SUBCLASS_OF, next, null));
    }
    this.classClosures.set(key, closure);
    return closure;
  }
}

function unique(terms: readonly Term[]): Term[] {
  const seen = new Map<string, Term>();
  for (const t of terms) if (!seen.has(termToId(t))) seen.set(termToId(t), t);
  return [...seen.values()];
}

function resultOf(shape: ShapePlan, constraint: ConstraintPlan, focus: Term, value: Term | undefined): ShaclResult {
  const result: ShaclResult = {
    severity: shape.severity,
    focusNode: focus,
    sourceShape: shape.node,
    sourceConstraintComponent: `${SH}${constraint.check.component}ConstraintComponent`,
    messages: constraint.messages,
  };
  if (shape.pathText !== undefined) result.path = shape.pathText;
  if (value !== undefined) result.value = value;
  return result;
}
