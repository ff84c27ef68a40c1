/**
 * The model layer: parse one contribution, merge contributions with provenance, validate
 * with SHACL, write Turtle/TriG (the worker threads that run it off the event loop are model-workers/).
 */
export { parseContribution } from "./parse.js";
export type { ParseError, ParseOptions, ParseOutcome } from "./parse.js";
export { countItems, countItemsByAgent, mergeContributions, problemModelIriFor } from "./merge.js";
export type { ContributionGraph, ItemCounts, MergedModel, ProblemModelInfo } from "./merge.js";
export { ITEM_KINDS } from "./items.js";
export type { ItemKind } from "./items.js";
export { defaultShapesPath, loadShapes, parseShapes, shapesForModel, PROBLEM_MODEL_SHAPE, SHAPES_NS } from "./shapes.js";
export { describeFindings, validateModel } from "./validate.js";
export type { Severity, ValidationFinding, ValidationOutcome } from "./validate.js";
export { modelToTrig, modelToTurtle } from "./serialize.js";
export { syntheticContribution } from "./synthetic.js";
