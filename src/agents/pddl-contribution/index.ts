export { loadPddlContribution, pddlFilesOf } from "./load.js";
export type { PddlContribution, PddlFiles, PddlImporter, PddlLoad } from "./load.js";
export { PddlContributor } from "./contributor.js";
export type { ContributionAnswer, ContributorOptions } from "./contributor.js";
