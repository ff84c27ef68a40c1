/**
 * The SHACL shapes (shapes/mfr-shapes.ttl): loading them, and pointing the whole-model
 * shape at one session's ProblemModel node.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DataFactory, Parser, Store } from "n3";
import { SH } from "../base/vocab.js";

/** The namespace of our own shapes (a URN: nothing to dereference, no one else's namespace). */
export const SHAPES_NS = "urn:x-mfr-coordinator:shapes#";
/** The shape for the merged model as a whole; it gets its target per session. */
export const PROBLEM_MODEL_SHAPE = `${SHAPES_NS}ProblemModelShape`;

/** The shapes from Turtle text, in an n3 Store; throws on text that is not Turtle. */
export function parseShapes(turtle: string): Store {
  return new Store(new Parser({ format: "text/turtle" }).parse(turtle));
}

/** The shapes from a Turtle file (read synchronously, once per model thread at start); throws if unreadable. */
export function loadShapes(path: string): Store {
  return parseShapes(readFileSync(path, "utf8"));
}

/**
 * shapes/mfr-shapes.ttl of this package. This module sits in src/rdf/ when run from
 * source and in dist/src/rdf/ when compiled, so the file is two or three levels up.
 */
export function defaultShapesPath(): string {
  for (const relative of ["../../shapes/mfr-shapes.ttl", "../../../shapes/mfr-shapes.ttl"]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error("shapes/mfr-shapes.ttl not found next to the package");
}

/**
 * The shapes plus `ProblemModelShape sh:targetNode <problemModelIri>`. The whole-model rules
 * must judge only the coordinator's node: agents may declare partial mfr:ProblemModel nodes
 * of their own, and those must not fail "the model has no Entity".
 */
export function shapesForModel(shapes: Store, problemModelIri: string): Store {
  const forModel = new Store(shapes.getQuads(null, null, null, null));
  forModel.addQuad(
    DataFactory.namedNode(PROBLEM_MODEL_SHAPE),
    DataFactory.namedNode(`${SH}targetNode`),
    DataFactory.namedNode(problemModelIri),
  );
  return forModel;
}
