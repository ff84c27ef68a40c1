/**
 * The contributions a model worker has just checked, kept as parsed so that the validation
 * which follows does not parse them again. A contribution is checked on arrival and parsed
 * once more, in its session's merged store, when the session is validated: at ~1k triples
 * per session the second parse was a fifth of the worker's time (bench/load.ts). The pool
 * runs a small validation as soon as it is asked for (model-worker.ts), which is just after
 * its contributions were checked, so a few dozen entries are enough.
 *
 * The check parses with the blank-node prefix CHECK_BLANK_PREFIX; the quads handed to a
 * validation carry the prefix that validation gives the contribution, so the merged store
 * is exactly the one a fresh parse would have made (test/analysis/parsed-contributions.test.ts).
 * Anything unexpected is simply a miss: the validation then parses the text as before.
 */
import { DataFactory } from "n3";
import type { BlankNode, Quad, Quad_Object, Quad_Subject, Term } from "n3";

/** The blank-node prefix a check parses with (parse.ts appends `_` and names anonymous nodes `ka_…`). */
export const CHECK_BLANK_PREFIX = "k_";

/** Entries kept; the least recently used goes first. */
const MAX_ENTRIES = 64;
/** Quads kept in all: a large contribution is parsed again rather than held (memory at 1M triples). */
const MAX_QUADS = 50_000;

interface Entry {
  turtle: string;
  quads: Quad[];
}

/**
 * The worker's small cache of checked contributions (see the header), least recently used
 * out, bounded by entries and by quads held. One per model thread; a miss is never an error.
 */
export class ParsedContributions {
  /** By base and graph IRI (one per agent of a session); insertion order is use order. */
  private readonly entries = new Map<string, Entry>();
  private quads = 0;

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly maxQuads = MAX_QUADS,
  ) {}

  /** Keeps the quads a check parsed from `turtle` (with CHECK_BLANK_PREFIX) for graph `graphIri`. */
  remember(baseIri: string, graphIri: string, turtle: string, quads: Quad[]): void {
    const key = keyOf(baseIri, graphIri);
    this.drop(key);
    if (quads.length > this.maxQuads) return;
    this.entries.set(key, { turtle, quads });
    this.quads += quads.length;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.quads <= this.maxQuads) break;
      this.drop(oldest);
    }
  }

  /**
   * The quads of `turtle` in graph `graphIri`, as a parse with `blankNodePrefix` (ending in
   * `_`) would make them; undefined unless exactly that text was checked and is still held.
   */
  reuse(baseIri: string, graphIri: string, turtle: string, blankNodePrefix: string): Quad[] | undefined {
    const key = keyOf(baseIri, graphIri);
    const entry = this.entries.get(key);
    if (entry === undefined || entry.turtle !== turtle) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return relabelled(entry.quads, blankNodePrefix);
  }

  /** Entries held (for tests). */
  get size(): number {
    return this.entries.size;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.quads -= entry.quads.length;
  }
}

function keyOf(baseIri: string, graphIri: string): string {
  return `${baseIri} ${graphIri}`;
}

/**
 * The quads with every blank node renamed from the check's prefix to `prefix`: `k_x` (a
 * labelled node) to `<prefix>x`, `ka_n` (an anonymous one, see parse.ts) to `<prefix minus _>a_n`.
 * Quads without blank nodes are shared as they are; terms are immutable. Undefined when a
 * blank node does not carry the check's prefix (then nothing is reused).
 */
function relabelled(quads: readonly Quad[], prefix: string): Quad[] | undefined {
  const labelled = CHECK_BLANK_PREFIX;
  const anonymous = `${CHECK_BLANK_PREFIX.slice(0, -1)}a_`;
  const anonymousTo = `${prefix.slice(0, -1)}a_`;
  const renamed = new Map<string, BlankNode>();
  let failed = false;
  const term = <T extends Term>(t: T): T => {
    if (t.termType !== "BlankNode") return t;
    let to = renamed.get(t.value);
    if (to === undefined) {
      const name = t.value.startsWith(anonymous) ? anonymousTo + t.value.slice(anonymous.length) : t.value.startsWith(labelled) ? prefix + t.value.slice(labelled.length) : undefined;
      if (name === undefined) {
        failed = true;
        return t;
      }
      to = DataFactory.blankNode(name);
      renamed.set(t.value, to);
    }
    return to as unknown as T;
  };
  const out = new Array<Quad>(quads.length);
  for (let i = 0; i < quads.length; i++) {
    const q = quads[i] as Quad;
    // A triple term (RDF 1.2) may hold blank nodes inside: such text is parsed again instead.
    if ((q.object.termType as string) === "Quad" || (q.subject.termType as string) === "Quad") return undefined;
    out[i] = q.subject.termType !== "BlankNode" && q.object.termType !== "BlankNode" ? q : DataFactory.quad(term(q.subject as Quad_Subject), q.predicate, term(q.object as Quad_Object), q.graph);
  }
  return failed ? undefined : out;
}
