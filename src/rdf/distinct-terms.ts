/**
 * The distinct terms at one position of a set of matching quads (subjects, objects or
 * graphs), listed as n3's Store lists them. ModelStore (quad-store.ts) finds the matching
 * quads; this turns them into the answer of getSubjects, getObjects and getGraphs, which
 * must keep n3's order for everything that reads a model to write and report as before.
 *
 * The quads are given as indexes into the store's columns of term ids: `column` the
 * position asked for, `graphs` the graph column, and `terms[id]` the term of an id.
 */
import type { Term } from "n3";

/**
 * The distinct terms at one position of the quads, each once, as n3 lists them: graph by
 * graph (by id), and within a graph by term id (`byTermOrder`) or in the quads' own order.
 * Most look-ups (a SHACL path from one node, a class's instances) find quads already in
 * that order, from a bucket sorted by graph and then by the wanted term: those are neither
 * sorted again nor put through a set (they were 10 % of a small model's analysis).
 */
export function distinctTerms(found: Int32Array, column: Int32Array, graphs: Int32Array, terms: readonly Term[], byTermOrder: boolean): Term[] {
  if (found.length === 0) return [];
  if (found.length === 1) return [terms[column[found[0] as number] as number] as Term];
  if (byTermOrder && inGraphThenIdOrder(found, column, graphs)) return sortedDistinct(found, column, graphs, terms);
  const ids = byTermOrder ? byGraphThenId(found, column, graphs, terms.length) : found.map((i) => column[i] as number);
  const seen = new Set<number>();
  const distinct: Term[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    distinct.push(terms[id] as Term);
  }
  return distinct;
}

/** Whether the quads' (graph, term at `column`) pairs never decrease. */
function inGraphThenIdOrder(found: Int32Array, column: Int32Array, graphs: Int32Array): boolean {
  let lastGraph = -1;
  let lastId = -1;
  for (let k = 0; k < found.length; k++) {
    const i = found[k] as number;
    const graph = graphs[i] as number;
    const id = column[i] as number;
    if (graph < lastGraph || (graph === lastGraph && id < lastId)) return false;
    lastGraph = graph;
    lastId = id;
  }
  return true;
}

/**
 * The distinct terms of quads in (graph, term) order: a repeat within a graph is next to
 * its first, so only a term seen in an earlier graph needs a set (made only then).
 */
function sortedDistinct(found: Int32Array, column: Int32Array, graphs: Int32Array, terms: readonly Term[]): Term[] {
  const distinct: Term[] = [];
  let earlierGraphs: Set<number> | undefined;
  let thisGraph: number[] = [];
  let graph = -1;
  let last = -1;
  for (let k = 0; k < found.length; k++) {
    const i = found[k] as number;
    const id = column[i] as number;
    if (graphs[i] !== graph) {
      if (graph !== -1) {
        earlierGraphs ??= new Set<number>();
        for (const seen of thisGraph) earlierGraphs.add(seen);
        thisGraph = [];
      }
      graph = graphs[i] as number;
      last = -1;
    }
    if (id === last) continue;
    last = id;
    if (earlierGraphs?.has(id)) continue;
    thisGraph.push(id);
    distinct.push(terms[id] as Term);
  }
  return distinct;
}

/** The ids at one position of the quads, sorted by graph id, then by their own (`width`: the number of term ids). */
function byGraphThenId(found: Int32Array, column: Int32Array, graphs: Int32Array, width: number): Int32Array {
  const keys = new Float64Array(found.length);
  for (let k = 0; k < found.length; k++) {
    const i = found[k] as number;
    keys[k] = (graphs[i] as number) * width + (column[i] as number);
  }
  keys.sort();
  return Int32Array.from(keys, (key) => key % width);
}
