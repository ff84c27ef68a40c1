/**
 * The merged problem model: one store (quad-store.ts), one named graph per contribution (so every fact
 * keeps its provenance), plus the coordinator's own graph holding the session's
 * mfr:ProblemModel node and its links to every typed item any agent contributed.
 */
import { DataFactory } from "n3";
import type { Quad } from "n3";
import { ModelStore, type QuadQueries, type QuadStore } from "./quad-store.js";
import { Mfr, RDF_TYPE } from "../base/vocab.js";
import { ITEM_KINDS, instancesOf } from "./items.js";
import type { ItemKind } from "./items.js";

const { namedNode, literal, quad } = DataFactory;

/** One agent's parsed contribution, its quads already in its own graph. */
export interface ContributionGraph {
  agent: string;
  graphIri: string;
  quads: readonly Quad[];
}

/** What the coordinator itself asserts about the session's model. */
export interface ProblemModelInfo {
  sessionId: string;
  problemDescription: string;
  problemModelIri: string;
  coordinatorGraphIri: string;
}

/**
 * The merged model: every contribution's quads in its own graph, and the coordinator's graph
 * linking the ProblemModel node to each typed item (any graph's). Made only by the merge functions here.
 */
export interface MergedModel {
  store: QuadStore;
  problemModelIri: string;
  coordinatorGraphIri: string;
  /** Named graph IRI → the agent whose contribution it holds. */
  agentByGraph: ReadonlyMap<string, string>;
}

/** What one agent added to the model. */
export type ItemCounts = Record<ItemKind, number> & { triples: number };

/**
 * The session's ProblemModel node, minted under the session's base IRI so that it is
 * distinct per session and stable across rounds.
 */
export function problemModelIriFor(baseIri: string): string {
  return `${baseIri}${baseIri.endsWith("/") ? "" : "/"}problem-model`;
}

/**
 * Merges parsed contributions into a new store (for callers holding quads, e.g. the TriG export):
 * same result as parsing into one store and calling `completeMerge`. Quads are added as given;
 * a triple sent twice in one graph is held once.
 */
export function mergeContributions(info: ProblemModelInfo, contributions: readonly ContributionGraph[]): MergedModel {
  const store = new ModelStore();
  for (const contribution of contributions) {
    for (const q of contribution.quads) store.addQuad(q);
  }
  return completeMerge(store, info, contributions);
}

/**
 * The merge, for a store that already holds every contribution in its graph (parse.ts,
 * parseInto, parses straight into it): adds the coordinator's graph.
 */
export function completeMerge(
  store: QuadStore,
  info: ProblemModelInfo,
  contributions: readonly Pick<ContributionGraph, "agent" | "graphIri">[],
): MergedModel {
  const agentByGraph = new Map<string, string>();
  for (const contribution of contributions) agentByGraph.set(contribution.graphIri, contribution.agent);
  const graph = namedNode(info.coordinatorGraphIri);
  const model = namedNode(info.problemModelIri);
  store.addQuads([
    quad(model, namedNode(RDF_TYPE), namedNode(Mfr.ProblemModel), graph),
    quad(model, namedNode(Mfr.sessionId), literal(info.sessionId), graph),
    quad(model, namedNode(Mfr.problemDescription), literal(info.problemDescription), graph),
  ]);
  // Every kind's items found before any link is added: the store indexes once for the look-ups.
  const links: Quad[] = [];
  for (const { classIri, linkIri } of ITEM_KINDS) {
    for (const item of instancesOf(store, classIri)) {
      if (item.termType !== "NamedNode" && item.termType !== "BlankNode") continue;
      links.push(quad(model, namedNode(linkIri), item, graph));
    }
  }
  store.addQuads(links);
  return { store, problemModelIri: info.problemModelIri, coordinatorGraphIri: info.coordinatorGraphIri, agentByGraph };
}

/** Counts the typed items and triples in one named graph. */
export function countItems(store: QuadQueries, graphIri: string): ItemCounts {
  const graph = namedNode(graphIri);
  const counts: ItemCounts = { entities: 0, stateVariables: 0, actions: 0, constraints: 0, goals: 0, triples: 0 };
  for (const { kind, classIri } of ITEM_KINDS) counts[kind] = instancesOf(store, classIri, graph).length;
  counts.triples = store.countQuads(null, null, null, graph);
  return counts;
}

/** Per agent, what its contribution added (summed if one agent somehow holds several graphs). */
export function countItemsByAgent(model: MergedModel): Record<string, ItemCounts> {
  // Keyed by agent names from the network: no prototype, so an agent called `valueOf` is one more name.
  const byAgent = Object.create(null) as Record<string, ItemCounts>;
  for (const [graphIri, agent] of model.agentByGraph) {
    const counts = countItems(model.store, graphIri);
    const sum = byAgent[agent];
    if (sum === undefined) {
      byAgent[agent] = counts;
      continue;
    }
    for (const key of Object.keys(counts) as (keyof ItemCounts)[]) sum[key] += counts[key];
  }
  return byAgent;
}
