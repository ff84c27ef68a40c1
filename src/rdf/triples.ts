/**
 * Triple identity across graphs: the same statement made by two agents (or twice by one)
 * is one fact for counting, even though each graph keeps its own copy for provenance.
 */
import { termToId } from "n3";
import type { Quad } from "n3";

/** A quad's statement as a string, its graph left out: equal keys are the same fact in any graph. */
export function tripleKey(q: Quad): string {
  return `${termToId(q.subject)} ${termToId(q.predicate)} ${termToId(q.object)}`;
}

/** The quads with each statement once (graphs ignored), the first of each kept, in order. */
export function distinctTriples(quads: Iterable<Quad>): Quad[] {
  const seen = new Set<string>();
  const distinct: Quad[] = [];
  for (const q of quads) {
    const key = tripleKey(q);
    if (seen.has(key)) continue;
    seen.add(key);
    distinct.push(q);
  }
  return distinct;
}
