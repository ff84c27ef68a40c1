/**
 * The whole model pipeline for one session, as one pure function: parse every contribution,
 * merge, validate, serialise, count. It runs inside the model worker (analysis-worker.ts),
 * because validation blocks for seconds on large models.
 */
import { isReadByFormalModel, readFormalModel, type FormalModel } from "../formal/index.js";
import { MFR } from "../base/vocab.js";
import type { Store } from "n3";
import { ModelStore } from "../rdf/quad-store.js";
import type { PrecomputedSplit } from "../protocol/split-memo.js";
import { addParsed, parseInto } from "../rdf/parse.js";
import type { ParsedContributions } from "./parsed-contributions.js";
import type { ParseError } from "../rdf/parse.js";
import { completeMerge, countItemsByAgent, problemModelIriFor } from "../rdf/merge.js";
import type { ContributionGraph, ItemCounts } from "../rdf/merge.js";
import { modelForSolvers, sessionPrefixes } from "../rdf/serialize.js";
import { validateModel, withFindings, type ValidationFinding } from "../rdf/validate.js";
import type { ValidationOutcome } from "../rdf/validate.js";

/** One contribution as the analysis receives it: the agent's Turtle, unparsed, and the graph it goes into. */
export interface ContributionText {
  agent: string;
  /** The named graph that will hold this contribution; one per contribution. */
  graphIri: string;
  turtle: string;
}

/**
 * Everything one analysis needs, as plain data that crosses to the model worker. Contributions
 * are merged in the order given (the session core sends them oldest first); a contribution
 * over `maxTriplesPerContribution` is left out as a parse error.
 */
export interface AnalysisJob {
  sessionId: string;
  problemDescription: string;
  /** Absolute per-session base for relative IRIs; the ProblemModel node is minted under it. */
  baseIri: string;
  coordinatorGraphIri: string;
  contributions: ContributionText[];
  maxTriplesPerContribution: number;
}

/**
 * What `analyseModel` finds for one job: validation, the merged model for solvers, counts and
 * the formal part. Contributions that could not be read are listed, not fatal; the rest are merged.
 */
export interface ModelAnalysis {
  validation: ValidationOutcome;
  /** The union of all graphs as Turtle: the model handed to solvers. */
  modelTurtle: string;
  /** The session's ProblemModel node. */
  problemModelIri: string;
  /** Distinct triples in `modelTurtle`. */
  tripleCount: number;
  countsByAgent: Record<string, ItemCounts>;
  /** Contributions left out of the merge because they could not be read. */
  parseErrors: { agent: string; error: ParseError }[];
  /** The formal part of the model (docs/protocol.md, "Formal models"): what plans are checked against. */
  formal: FormalModel;
  /** `modelTurtle` split into parts ahead of the SolutionRequest, when the job asked for it (analysis-worker.ts). */
  modelSplits?: PrecomputedSplit[];
}

/**
 * `parsed`: the contributions the worker checked and still holds as parsed; any it holds
 * are not parsed again (the result is the same either way).
 */
export async function analyseModel(job: AnalysisJob, shapes: Store, parsed?: ParsedContributions): Promise<ModelAnalysis> {
  const store = new ModelStore();
  const { graphs, parseErrors, formal } = readContributions(store, job, parsed);
  const problemModelIri = problemModelIriFor(job.baseIri);
  const model = completeMerge(
    store,
    {
      sessionId: job.sessionId,
      problemDescription: job.problemDescription,
      problemModelIri,
      coordinatorGraphIri: job.coordinatorGraphIri,
    },
    graphs,
  );
  // A formal expression that does not parse is a finding like a shape's, attributed to its agent.
  const validation = withFindings(await validateModel(model, shapes), formalFindings(formal, graphs));
  // The Turtle for solvers; the triple count comes with it. (TriG only on export: store/model-trig.ts.)
  const written = modelForSolvers(model.store, sessionPrefixes(job.baseIri));
  return {
    validation,
    modelTurtle: written.turtle,
    problemModelIri,
    tripleCount: written.triples,
    countsByAgent: countItemsByAgent(model),
    parseErrors,
    formal,
  };
}

/**
 * Every contribution parsed straight into the merged store, in its own graph, and the formal
 * model read from the quads the formal reader needs. Those quads are let go on return,
 * before the model is validated and written (some 100 MiB at 1M triples).
 */
function readContributions(store: ModelStore, job: AnalysisJob, held: ParsedContributions | undefined): { graphs: ContributionGraphName[]; parseErrors: ModelAnalysis["parseErrors"]; formal: FormalModel } {
  const parsed: ContributionGraph[] = [];
  const parseErrors: ModelAnalysis["parseErrors"] = [];
  job.contributions.forEach((contribution, index) => {
    const options = {
      baseIri: job.baseIri,
      graphIri: contribution.graphIri,
      maxTriples: job.maxTriplesPerContribution,
      // Stable per position, distinct per contribution: blank nodes never collide.
      blankNodePrefix: `c${index}_`,
      // Only what the formal reader reads is kept beyond the parse (most of a model is not).
      keep: isReadByFormalModel,
    };
    const quads = held?.reuse(job.baseIri, contribution.graphIri, contribution.turtle, options.blankNodePrefix);
    const outcome = quads !== undefined ? addParsed(store, quads, options) : parseInto(store, contribution.turtle, options);
    if (outcome.ok) parsed.push({ agent: contribution.agent, graphIri: contribution.graphIri, quads: outcome.quads });
    else parseErrors.push({ agent: contribution.agent, error: outcome.error });
  });
  // The contributions' quads as parsed (those it reads), so repeated mfr:hasParameter literals
  // keep their text order (repeats included: the reader counts a triple once).
  const formal = readFormalModel(parsed.flatMap((c) => c.quads));
  return { graphs: parsed.map(({ agent, graphIri }) => ({ agent, graphIri })), parseErrors, formal };
}

type ContributionGraphName = Pick<ContributionGraph, "agent" | "graphIri">;

/** Formal expressions that do not parse, as Violations of the contribution that holds them. */
function formalFindings(formal: FormalModel, graphs: readonly ContributionGraphName[]): ValidationFinding[] {
  const agentOf = new Map(graphs.map((c) => [c.graphIri, c.agent]));
  return formal.findings.map((f) => {
    const agent = agentOf.get(f.graph);
    return {
      severity: "Violation" as const,
      focusNode: f.node,
      path: f.predicate.startsWith(MFR) ? `mfr:${f.predicate.slice(MFR.length)}` : f.predicate,
      message: `Formal expression does not parse (line ${f.line}, column ${f.column} of the literal): ${f.message}`,
      agents: agent ? [agent] : [],
    };
  });
}
