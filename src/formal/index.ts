import type { FormalModel } from "./model.js";
/**
 * Formal models and verified solutions (docs/protocol.md): the PDDL-subset expression parser, the
 * formal model read from the merged RDF model, plan simulation with its verdict, and the
 * export of a formal model and its plans as PDDL. Pure.
 */
export { isFormal, parseCondition, parseEffect, parseInitialState, parseParameters } from "./expression.js";
export type {
  Atom,
  Condition,
  Effect,
  ExpressionError,
  InitialFact,
  NumericExpression,
  ParseResult,
  SourcePosition,
  Term,
  TypedVariable,
} from "./expression.js";
export { EXPRESSION_LIMITS } from "./sexpr.js";
export { formatCondition, formatEffect } from "./format.js";
export { isReadByFormalModel, localName, readFormalModel } from "./model.js";
export type { ExpressionFinding, FormalAction, FormalModel, FormalObject, FormalStatement, InformalPart, ModelQuads } from "./model.js";
export { parsePlanStep } from "./plan-step.js";
export type { PlanStep } from "./plan-step.js";
export { DEFAULT_SIMULATION_LIMITS, simulatePlan } from "./simulate.js";
export { hasFormalPart, summariseFormalModel } from "./summary.js";
export type { FormalSummary, InformalCount } from "./summary.js";
export type { SimulationLimits, Verdict, Verification } from "./simulate.js";

/** A model with no formal part at all: every plan checked against it is "unverifiable". */
export const NO_FORMAL_MODEL: FormalModel = Object.freeze({
  objects: [],
  actions: [],
  initialState: [],
  constraints: [],
  goals: [],
  findings: [],
  notMachineCheckable: [],
});
