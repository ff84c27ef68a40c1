/**
 * The indexes ModelStore (quad-store.ts) reads its look-ups from: the quads' positions
 * sorted by counting sorts over their term ids, in the orders n3's Store answers in, so the
 * store's answers come in n3's order. Built in bulk on the first read after a write (the
 * model is written in bulk, then read); pure functions over the store's columns of term ids.
 */

/** Quads grouped by one term position: those of term t are `quads[start[t] .. start[t + 1])`. */
export interface Buckets {
  start: Int32Array;
  quads: Int32Array;
}

/** The orders the look-ups read; each position's buckets are sorted as n3's matching index. */
export interface Indexes {
  /** Per subject, by (graph, predicate, object). */
  bySubject: Buckets;
  /** Per predicate, by (graph, object, subject). */
  byPredicate: Buckets;
  /** Per object, by (graph, subject, predicate). */
  byObject: Buckets;
  /** Every quad by (graph, subject, predicate, object). */
  all: Int32Array;
}

/** The store's quads as term-id columns (quad i is `s[i] p[i] o[i] g[i]`), cut to the quads held; `width` is the number of term ids. */
export interface QuadColumns {
  readonly s: Int32Array;
  readonly p: Int32Array;
  readonly o: Int32Array;
  readonly g: Int32Array;
  readonly width: number;
}

/** No quads: the answer to a pattern naming a term never added. */
export const NO_QUADS = new Int32Array(0);

/** The subject index: per subject, by (graph, predicate, object). */
export function subjectIndex(columns: QuadColumns): Buckets {
  return sortedBy(positions(columns.s.length), [columns.o, columns.p, columns.g, columns.s], columns.width);
}

/** The predicate index: per predicate, by (graph, object, subject). */
export function predicateIndex(columns: QuadColumns): Buckets {
  return sortedBy(positions(columns.s.length), [columns.s, columns.o, columns.g, columns.p], columns.width);
}

/** The object index: per object, by (graph, subject, predicate). */
export function objectIndex(columns: QuadColumns): Buckets {
  return sortedBy(positions(columns.s.length), [columns.p, columns.s, columns.g, columns.o], columns.width);
}

/** Every quad by (graph, subject, predicate, object): the subject index's order, sorted (stably) by graph. */
export function graphOrder(bySubject: Buckets, columns: QuadColumns): Int32Array {
  return countingSort(bySubject.quads, columns.g, columns.width).order;
}

/** The quads of term `id` in an index (a view, not a copy); none for a term beyond it. */
export function bucket(buckets: Buckets, id: number): Int32Array {
  return id + 1 < buckets.start.length ? buckets.quads.subarray(buckets.start[id] as number, buckets.start[id + 1] as number) : NO_QUADS;
}

/** The quads of graph `g` in `all` (sorted by graph first): found by bisection. */
export function graphRange(all: Int32Array, graphs: Int32Array, g: number): Int32Array {
  const first = (atLeast: number): number => {
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((graphs[all[mid] as number] as number) < atLeast) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return all.subarray(first(g), first(g + 1));
}

/** The quads' positions in the order they were added. */
function positions(count: number): Int32Array {
  const identity = new Int32Array(count);
  for (let i = 0; i < count; i++) identity[i] = i;
  return identity;
}

/** `order` sorted by each key column in turn (the last is the most significant), as buckets of the last. */
function sortedBy(order: Int32Array, keys: readonly Int32Array[], width: number): Buckets {
  let sorted: { order: Int32Array; start: Int32Array } = { order, start: new Int32Array(0) };
  for (const key of keys) sorted = countingSort(sorted.order, key, width);
  return { start: sorted.start, quads: sorted.order };
}

/** A stable counting sort of quad indexes by one column of term ids; `start[t]` is where term t's quads begin. */
function countingSort(order: Int32Array, key: Int32Array, width: number): { order: Int32Array; start: Int32Array } {
  const start = new Int32Array(width + 1);
  for (let k = 0; k < order.length; k++) {
    const t = key[order[k] as number] as number;
    start[t + 1] = (start[t + 1] as number) + 1;
  }
  for (let t = 0; t < width; t++) start[t + 1] = (start[t + 1] as number) + (start[t] as number);
  const next = start.slice();
  const out = new Int32Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const i = order[k] as number;
    const t = key[i] as number;
    const at = next[t] as number;
    out[at] = i;
    next[t] = at + 1;
  }
  return { order: out, start };
}
