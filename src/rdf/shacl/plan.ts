/**
 * The compiled form of a shapes graph: what to check, decided once per shapes graph, so
 * that validation only walks the data. compile.ts builds it from the shapes; evaluate.ts
 * runs it against a data store. Every field mirrors one SHACL construct, so a plan reads
 * like the shapes it came from.
 */
import type { BlankNode, Literal, NamedNode, Term } from "n3";

/** A SHACL property path, in the forms the compiler supports. */
export type PathPlan =
  | { kind: "predicate"; predicate: NamedNode }
  | { kind: "inverse"; predicate: NamedNode }
  | { kind: "alternative"; paths: PathPlan[] }
  | { kind: "sequence"; paths: PathPlan[] };

/** What one constraint checks. Components that judge each value node carry `perValue`. */
export type Check =
  | { component: "MinCount"; min: number }
  | { component: "MaxCount"; max: number }
  | { component: "QualifiedMinCount"; shape: ShapePlan; min: number }
  | { component: "QualifiedMaxCount"; shape: ShapePlan; max: number }
  | { component: "Property"; shape: ShapePlan }
  | { component: "Pattern"; perValue: true; pattern: RegExp }
  | { component: "Or"; perValue: true; shapes: ShapePlan[] }
  | { component: "Datatype"; perValue: true; datatype: string }
  | { component: "Class"; perValue: true; classTerm: Term }
  | { component: "In"; perValue: true; allowed: ReadonlySet<string> }
  | { component: "NodeKind"; perValue: true; termTypes: ReadonlySet<string> };

/** The SHACL constraint components the compiler supports, by their local name (`sh:MinCountConstraintComponent` → `MinCount`). */
export type ComponentName = Check["component"];

/** One constraint of a shape: the check, and the message texts its results carry. */
export interface ConstraintPlan {
  check: Check;
  /** The shape's sh:message (or the component's text), placeholders filled in. */
  messages: Term[];
}

/**
 * One node or property shape, compiled. Shapes refer to one another (sh:property, sh:or,
 * qualified shapes), so a plan is a graph of these, each built once per shape node.
 */
export interface ShapePlan {
  /** The shape node in the shapes graph. */
  node: Term;
  /** sh:severity, or sh:Violation. */
  severity: string;
  deactivated: boolean;
  /** Set for property shapes: their value nodes are the path's values. */
  path?: PathPlan;
  /** The path as findings show it. */
  pathText?: string;
  /** Filled after creation: shapes may refer to one another. */
  constraints: ConstraintPlan[];
  /** The shape's own targets, from the shapes graph. */
  targets: TargetPlan;
}

/** A shape's sh:targetClass, sh:targetNode, sh:targetSubjectsOf and sh:targetObjectsOf; all empty for a shape used only from others. */
export interface TargetPlan {
  classes: Term[];
  nodes: Term[];
  subjectsOf: NamedNode[];
  objectsOf: NamedNode[];
}

/** A whole shapes graph compiled (compile.ts), ready to run on any data store (evaluate.ts); never changed once built. */
export interface ValidationPlan {
  /** Every shape compiled, by the key of its node (termToId). */
  shapes: ReadonlyMap<string, ShapePlan>;
  /** Shapes with targets in the shapes graph, in the order they are validated. */
  targeted: ShapePlan[];
}

/** What validation adds per run: e.g. `ProblemModelShape sh:targetNode <this session's node>`. */
export interface ExtraTarget {
  shape: string;
  node: NamedNode | BlankNode | Literal;
}
