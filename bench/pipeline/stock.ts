/**
 * The stock pipeline the issue compares against: what one would write with the libraries
 * alone. One `N3.Parser` per contribution, streaming its quads into one `N3.Store` (each
 * contribution in its own named graph, relative IRIs against the session base, as the
 * product does), then `rdf-validate-shacl` with the project's shapes.
 *
 * To validate the same data as the product, it also adds what the product's merge adds
 * and the shapes rely on: the coordinator's mfr:ProblemModel node with one link per typed
 * item (in the coordinator's graph), and `ProblemModelShape sh:targetNode <that node>`.
 * Links are found by rdf:type alone (the product also follows rdfs:subClassOf; the
 * generated model declares no subclasses, so the data is the same).
 */
import { DataFactory, Parser, Store } from "n3";
import type { Quad } from "n3";
import SHACLValidator from "rdf-validate-shacl";
import factory from "rdf-validate-shacl/src/defaultEnv.js";
import type { AnalysisJob } from "../../src/analysis/analysis.js";

const { namedNode, literal, quad } = DataFactory;

const MFR = "http://purl.org/stuff/mfr/";
const RDF_TYPE = namedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type");
const SH_TARGET_NODE = namedNode("http://www.w3.org/ns/shacl#targetNode");
const PROBLEM_MODEL_SHAPE = namedNode("urn:x-mfr-coordinator:shapes#ProblemModelShape");
const LINKS: [string, string][] = [
  ["Entity", "hasEntity"],
  ["StateVariable", "hasStateVariable"],
  ["Action", "hasAction"],
  ["Constraint", "hasConstraint"],
  ["Goal", "hasGoal"],
];

export type Report = Awaited<ReturnType<SHACLValidator["validate"]>>;

export interface StockPhases {
  /** Parsing every contribution into the one store. */
  parse: number;
  /** The coordinator's ProblemModel node and links. */
  links: number;
  /** `new SHACLValidator(…)`: copies and compiles the shapes. */
  compile: number;
  /** `validator.validate(store)`. */
  validate: number;
}

export interface StockOutcome {
  store: Store;
  report: Report;
  phases: StockPhases;
}

/** The ProblemModel node the product mints for a base IRI (merge.ts, problemModelIriFor). */
export function problemModelIri(baseIri: string): string {
  return `${baseIri}${baseIri.endsWith("/") ? "" : "/"}problem-model`;
}

/** `shapeQuads` are the shapes file parsed once (as the product's worker loads it once). */
export async function stockPipeline(job: AnalysisJob, shapeQuads: readonly Quad[]): Promise<StockOutcome> {
  let t = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const ms = now - t;
    t = now;
    return ms;
  };
  const store = new Store();
  for (const contribution of job.contributions) {
    const graph = namedNode(contribution.graphIri);
    // With a callback, n3 tokenizes a string in a microtask: wait for the end (quad null).
    await new Promise<void>((resolve, reject) => {
      new Parser({ baseIRI: job.baseIri, format: "text/turtle" }).parse(contribution.turtle, (error, q) => {
        if (error) reject(error);
        else if (q) store.addQuad(q.subject, q.predicate, q.object, graph);
        else resolve();
      });
    });
  }
  const parse = lap();

  const model = namedNode(problemModelIri(job.baseIri));
  const coordinator = namedNode(job.coordinatorGraphIri);
  store.addQuad(quad(model, RDF_TYPE, namedNode(`${MFR}ProblemModel`), coordinator));
  store.addQuad(quad(model, namedNode(`${MFR}sessionId`), literal(job.sessionId), coordinator));
  store.addQuad(quad(model, namedNode(`${MFR}problemDescription`), literal(job.problemDescription), coordinator));
  for (const [cls, link] of LINKS) {
    const predicate = namedNode(`${MFR}${link}`);
    for (const item of store.getSubjects(RDF_TYPE, namedNode(`${MFR}${cls}`), null)) store.addQuad(model, predicate, item, coordinator);
  }
  const links = lap();

  const shapes = new Store([...shapeQuads, quad(PROBLEM_MODEL_SHAPE, SH_TARGET_NODE, model)]);
  const validator = new SHACLValidator(shapes, { factory });
  const compile = lap();
  const report = await validator.validate(store);
  const validate = lap();
  return { store, report, phases: { parse, links, compile, validate } };
}
