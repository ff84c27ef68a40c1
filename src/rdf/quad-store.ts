/**
 * The merged model's quads, held compactly: each distinct term once, each quad as four
 * numbers in typed arrays, and indexes built in bulk when the model is first read.
 *
 * Why not n3's Store: it keeps three indexes of nested objects per graph, about 950 bytes
 * per quad (measured: 943 MiB for a 1M-triple model), and every look-up builds new term
 * objects; at 1.3k triples its index upkeep and the garbage it leaves were a third of a
 * model analysis. Here a quad costs about 60 bytes beyond its terms, and look-ups return
 * the terms the parser made.
 *
 * The model is written in bulk (every contribution parsed in), then read (links, SHACL,
 * serialisation), then a few statements are added and it is read again: the indexes are
 * (re)built on the first read after a write, by counting sorts over the quads' term ids.
 *
 * Answers come in the order n3's Store gives them (terms numbered in the order they were
 * first added, graphs first), so everything that reads a model writes and reports the same
 * as before: test/rdf/quad-store.test.ts compares the two on random models. The indexes are
 * built by quad-indexes.ts, the distinct terms of an answer listed by distinct-terms.ts.
 */
import { randomInt } from "node:crypto";
import { DataFactory, termToId } from "n3";
import type { Quad, Quad_Graph, Quad_Object, Quad_Predicate, Quad_Subject, Term } from "n3";
import type * as RDF from "@rdfjs/types";
import { distinctTerms } from "./distinct-terms.js";
import { bucket, graphOrder, graphRange, NO_QUADS, objectIndex, predicateIndex, subjectIndex } from "./quad-indexes.js";
import type { Buckets, Indexes, QuadColumns } from "./quad-indexes.js";

/** The queries the model's readers make: n3's Store answers them too (its own tests, the web view). */
export interface QuadQueries {
  readonly size: number;
  countQuads(subject: RDF.Term | null, predicate: RDF.Term | null, object: RDF.Term | null, graph: RDF.Term | null): number;
  getQuads(subject: RDF.Term | null, predicate: RDF.Term | null, object: RDF.Term | null, graph: RDF.Term | null): Quad[];
  getSubjects(predicate: RDF.Term | null, object: RDF.Term | null, graph: RDF.Term | null): Quad_Subject[];
  getObjects(subject: RDF.Term | null, predicate: RDF.Term | null, graph: RDF.Term | null): Quad_Object[];
  getGraphs(subject: RDF.Term | null, predicate: RDF.Term | null, object: RDF.Term | null): Quad_Graph[];
}

/** A store the parser and the merge write into. */
export interface QuadStore extends QuadQueries {
  /** False when the quad was already there. */
  addQuad(quad: Quad): boolean;
  addQuads(quads: Quad[]): void;
}

/** The default graph's id; ids start at 1 so that 0 can mean "none" in the hash table. */
const DEFAULT_GRAPH_ID = 1;
const INITIAL_QUADS = 1024;

// IRIs starting with a character that marks a term type in a key are wrapped, as n3 does,
// so that no IRI's key equals a blank node's, a literal's or a quoted triple's.
const MARKED_IRI = /^[?_"[.<]/;

/** A term's identity: two terms are the same node exactly when n3's Store says so. */
function keyOf(term: RDF.Term): string {
  if (term.termType === "Quad") {
    const q = term as RDF.Quad;
    const parts = [keyOf(q.subject), keyOf(q.predicate), keyOf(q.object)];
    if (q.graph.termType !== "DefaultGraph") parts.push(keyOf(q.graph));
    return JSON.stringify(parts);
  }
  const id = termToId(term as Term);
  // Most IRIs start with a lowercase scheme letter, which marks nothing.
  if (id.charCodeAt(0) >= 0x61) return id;
  return term.termType === "NamedNode" && MARKED_IRI.test(term.value) ? `<${term.value}>` : id;
}

/**
 * The quad store of one model analysis (see the header): a set of quads (a repeat is not
 * added), answering QuadQueries in n3's order. A pattern's `null` matches anything; a term
 * never added matches nothing. One event loop only; not shared between threads.
 */
export class ModelStore implements QuadStore {
  /** Term key → id; `terms[id]` is the term as first added. */
  private readonly ids = new Map<string, number>();
  private readonly terms: Term[] = [DataFactory.defaultGraph(), DataFactory.defaultGraph()];
  private s = new Int32Array(INITIAL_QUADS);
  private p = new Int32Array(INITIAL_QUADS);
  private o = new Int32Array(INITIAL_QUADS);
  private g = new Int32Array(INITIAL_QUADS);
  private count = 0;
  /** Open addressing over the quads (quad index + 1; 0 is free), to refuse a repeat. */
  private table = new Int32Array(INITIAL_QUADS * 2);
  /**
   * Mixed into every hash. Term ids follow the order terms first appear, which a sender
   * controls: with a fixed hash, 100k chosen triples fell into a few slots and took 6.6 s to
   * add instead of 30 ms. Unknown to the sender, the seed leaves it nothing to aim at.
   */
  private readonly seed = randomInt(2 ** 32) | 0;
  private readonly quadsPerGraph = new Map<number, number>();
  /** Those built for the quads there were at the last read; all dropped by a write. */
  private indexes: Partial<Indexes> = {};

  constructor(quads: readonly Quad[] = []) {
    this.ids.set("", DEFAULT_GRAPH_ID);
    for (const quad of quads) this.addQuad(quad);
  }

  /** Distinct quads held, over every graph. */
  get size(): number {
    return this.count;
  }

  /** Adds each quad in order, repeats skipped (as `addQuad`). */
  addQuads(quads: Quad[]): void {
    for (const quad of quads) this.addQuad(quad);
  }

  /** Adds one quad: true if it is new, false if the same quad (graph included) is held already. Drops the indexes. */
  addQuad(quad: Quad): boolean {
    // Numbered graph first, then subject, predicate, object: n3's order, hence its answers' order.
    const g = this.idFor(quad.graph);
    const s = this.idFor(quad.subject);
    const p = this.idFor(quad.predicate);
    const o = this.idFor(quad.object);
    const mask = this.table.length - 1;
    let slot = hash(this.seed, s, p, o, g) & mask;
    for (let held = this.table[slot] as number; held !== 0; held = this.table[slot] as number) {
      const i = held - 1;
      if (this.s[i] === s && this.p[i] === p && this.o[i] === o && this.g[i] === g) return false;
      slot = (slot + 1) & mask;
    }
    // A larger table places every quad afresh, so the new one's slot is sought again.
    if (this.count === this.s.length) {
      this.grow();
      slot = this.freeSlot(s, p, o, g);
    }
    const i = this.count++;
    this.s[i] = s;
    this.p[i] = p;
    this.o[i] = o;
    this.g[i] = g;
    this.table[slot] = i + 1;
    this.quadsPerGraph.set(g, (this.quadsPerGraph.get(g) ?? 0) + 1);
    if (this.indexes.bySubject !== undefined || this.indexes.byPredicate !== undefined || this.indexes.byObject !== undefined) this.indexes = {};
    return true;
  }

  /** How many quads match the pattern; all-wildcard counts (per graph or in all) are read without an index. */
  countQuads(subject: RDF.Term | null, predicate: RDF.Term | null, object: RDF.Term | null, graph: RDF.Term | null): number {
    if (isWildcard(subject) && isWildcard(predicate) && isWildcard(object)) {
      if (isWildcard(graph)) return this.count;
      const g = this.knownId(graph);
      return g === undefined ? 0 : (this.quadsPerGraph.get(g) ?? 0);
    }
    return this.matching(subject, predicate, object, graph).length;
  }

  /** The quads matching the pattern, in n3's order, as new quad objects holding the terms as first added. */
  getQuads(subject: RDF.Term | null, predicate: RDF.Term | null, object: RDF.Term | null, graph: RDF.Term | null): Quad[] {
    const found = this.matching(subject, predicate, object, graph);
    const quads = new Array<Quad>(found.length);
    for (let k = 0; k < found.length; k++) {
      const i = found[k] as number;
      quads[k] = DataFactory.quad(
        this.terms[this.s[i] as number] as Quad_Subject,
        this.terms[this.p[i] as number] as Quad_Predicate,
        this.terms[this.o[i] as number] as Quad_Object,
        this.terms[this.g[i] as number] as Quad_Graph,
      );
    }
    return quads;
  }

  /** The distinct subjects of the matching quads, in n3's order. */
  getSubjects(predicate: RDF.Term | null, object: RDF.Term | null, graph: RDF.Term | null): Quad_Subject[] {
    return this.distinct(this.matching(null, predicate, object, graph), this.s, true) as Quad_Subject[];
  }

  /** The distinct objects of the matching quads, in n3's order (predicate by predicate for a subject bound alone). */
  getObjects(subject: RDF.Term | null, predicate: RDF.Term | null, graph: RDF.Term | null): Quad_Object[] {
    // n3 lists a subject's objects predicate by predicate (its subject index), else by object.
    const byTermOrder = !(!isWildcard(subject) && isWildcard(predicate));
    return this.distinct(this.matching(subject, predicate, null, graph), this.o, byTermOrder) as Quad_Object[];
  }

  /** The distinct graphs of the matching quads, in n3's order. */
  getGraphs(subject: RDF.Term | null, predicate: RDF.Term | null, object: RDF.Term | null): Quad_Graph[] {
    return this.distinct(this.matching(subject, predicate, object, null), this.g, true) as Quad_Graph[];
  }

  /**
   * The indexes of the quads matching the pattern, in n3's order for that pattern. With one
   * term bound and no other, its bucket is the answer as it stands (a view, not a copy).
   */
  private matching(subject: RDF.Term | null, predicate: RDF.Term | null, object: RDF.Term | null, graph: RDF.Term | null): Int32Array {
    const s = isWildcard(subject) ? 0 : this.knownId(subject);
    const p = isWildcard(predicate) ? 0 : this.knownId(predicate);
    const o = isWildcard(object) ? 0 : this.knownId(object);
    const g = isWildcard(graph) ? 0 : this.knownId(graph);
    if (s === undefined || p === undefined || o === undefined || g === undefined) return NO_QUADS;
    let candidates: Int32Array;
    if (s !== 0) candidates = bucket(this.bySubject(), s);
    else if (p !== 0 && o !== 0) {
      // With the subject free, both buckets list the matches by (graph, subject): the smaller
      // when both indexes are there, else the one that is (the object's, if neither yet).
      const { byPredicate, byObject } = this.indexes;
      if (byPredicate === undefined) candidates = bucket(this.byObject(), o);
      else if (byObject === undefined) candidates = bucket(byPredicate, p);
      else {
        const byP = bucket(byPredicate, p);
        const byO = bucket(byObject, o);
        candidates = byP.length <= byO.length ? byP : byO;
      }
    } else if (p !== 0) candidates = bucket(this.byPredicate(), p);
    else if (o !== 0) candidates = bucket(this.byObject(), o);
    else if (g !== 0) return graphRange(this.all(), this.g, g);
    else return this.all().slice();
    // One term bound, the bucket's own: every quad in it matches.
    if ((s !== 0 ? 1 : 0) + (p !== 0 ? 1 : 0) + (o !== 0 ? 1 : 0) + (g !== 0 ? 1 : 0) === 1) return candidates;
    let kept = 0;
    const out = new Int32Array(candidates.length);
    for (const i of candidates) {
      if ((s !== 0 && this.s[i] !== s) || (p !== 0 && this.p[i] !== p) || (o !== 0 && this.o[i] !== o) || (g !== 0 && this.g[i] !== g)) continue;
      out[kept++] = i;
    }
    return out.subarray(0, kept);
  }

  private idFor(term: Term | Quad): number {
    // A quoted triple's parts are numbered before it, as n3 numbers them (hence its order).
    if (term.termType === "Quad") {
      const quoted = term as Quad;
      this.idFor(quoted.subject);
      this.idFor(quoted.predicate);
      this.idFor(quoted.object);
      if (quoted.graph.termType !== "DefaultGraph") this.idFor(quoted.graph);
    }
    const key = keyOf(term);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term as Term);
      this.ids.set(key, id);
    }
    return id;
  }

  private knownId(term: RDF.Term): number | undefined {
    return this.ids.get(keyOf(term));
  }

  /** Twice the room for quads, and a table to match. */
  private grow(): void {
    const size = this.s.length * 2;
    const widen = (column: Int32Array): Int32Array<ArrayBuffer> => {
      const wider = new Int32Array(size);
      wider.set(column);
      return wider;
    };
    this.s = widen(this.s);
    this.p = widen(this.p);
    this.o = widen(this.o);
    this.g = widen(this.g);
    // Twice the quads' capacity keeps the probes short (load at most one half).
    this.table = new Int32Array(size * 2);
    for (let i = 0; i < this.count; i++) this.table[this.freeSlot(this.s[i] as number, this.p[i] as number, this.o[i] as number, this.g[i] as number)] = i + 1;
  }

  /** The first free slot for a quad known not to be in the table. */
  private freeSlot(s: number, p: number, o: number, g: number): number {
    const mask = this.table.length - 1;
    let slot = hash(this.seed, s, p, o, g) & mask;
    while (this.table[slot] !== 0) slot = (slot + 1) & mask;
    return slot;
  }

  // Each index is built on the first look-up that needs it, after any write: checking one
  // contribution, or finding the items to link, reads one or two of the four.

  private bySubject(): Buckets {
    return (this.indexes.bySubject ??= subjectIndex(this.columns()));
  }

  private byPredicate(): Buckets {
    return (this.indexes.byPredicate ??= predicateIndex(this.columns()));
  }

  private byObject(): Buckets {
    return (this.indexes.byObject ??= objectIndex(this.columns()));
  }

  private all(): Int32Array {
    return (this.indexes.all ??= graphOrder(this.bySubject(), this.columns()));
  }

  /** The quads held, as term-id columns. */
  private columns(): QuadColumns {
    const n = this.count;
    return { s: this.s.subarray(0, n), p: this.p.subarray(0, n), o: this.o.subarray(0, n), g: this.g.subarray(0, n), width: this.terms.length };
  }

  /** The distinct terms of `column` among the `found` quads, in n3's order (distinct-terms.ts). */
  private distinct(found: Int32Array, column: Int32Array, byTermOrder: boolean): Term[] {
    return distinctTerms(found, column, this.g, this.terms, byTermOrder);
  }
}

/** Any term matches: null, or `undefined` as n3 also takes it (callers in plain JavaScript). */
function isWildcard(term: RDF.Term | null | undefined): term is null | undefined {
  return term === null || term === undefined;
}

function hash(seed: number, s: number, p: number, o: number, g: number): number {
  let h = Math.imul(s ^ seed, 0x9e3779b1);
  h = Math.imul(h ^ p ^ (h >>> 15), 0x85ebca77);
  h = Math.imul(h ^ o ^ (h >>> 13), 0xc2b2ae3d);
  h = Math.imul(h ^ g ^ (h >>> 16), 0x27d4eb2f);
  return (h ^ (h >>> 15)) >>> 0;
}

