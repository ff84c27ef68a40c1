/** The reference solver agent (`mfr-coordinator solver`): a peer that plans. */
export { ReferenceSolver } from "./agent.js";
export type { SolverSettings } from "./agent.js";
export { solutionFor, unreadableModel, PLANNER_NAME } from "./proposal.js";
