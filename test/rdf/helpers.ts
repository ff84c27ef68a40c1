/** Shared set-up for the model tests: one session's IRIs, fixtures, shapes. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AnalysisJob, ContributionText } from "../../src/analysis/analysis.js";
import { defaultShapesPath, loadShapes } from "../../src/rdf/shapes.js";

export const SESSION_ID = "s-test";
export const BASE_IRI = "https://mfr.example/sessions/s-test/";
export const COORDINATOR_GRAPH = `${BASE_IRI}graph/coordinator`;
export const MFR = "http://purl.org/stuff/mfr/";

export const shapes = loadShapes(defaultShapesPath());

export function graphOf(agent: string): string {
  return `${BASE_IRI}graph/${agent}`;
}

export function fixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/models/${name}`, import.meta.url)), "utf8");
}

export function contribution(agent: string, turtle: string): ContributionText {
  return { agent, graphIri: graphOf(agent), turtle };
}

export function job(contributions: ContributionText[], maxTriplesPerContribution = 10_000): AnalysisJob {
  return {
    sessionId: SESSION_ID,
    problemDescription: "Deliver goods from the depot to the warehouse.",
    baseIri: BASE_IRI,
    coordinatorGraphIri: COORDINATOR_GRAPH,
    contributions,
    maxTriplesPerContribution,
  };
}
