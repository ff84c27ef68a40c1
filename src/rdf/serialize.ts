/**
 * Writing the merged model out: as one Turtle graph for solvers (provenance does not
 * matter to them), or as TriG with one named graph per contribution for export.
 */
import { Writer, termToId } from "n3";
import type { Quad, Term } from "n3";
import type { QuadQueries } from "./quad-store.js";
import { PREFIXES } from "../base/vocab.js";

/** The union of all graphs as Turtle; a triple stated by several agents appears once. */
export function modelToTurtle(store: QuadQueries, prefixes: Record<string, string> = PREFIXES): string {
  return modelForSolvers(store, prefixes).turtle;
}

/**
 * The prefixes a session's model is written with: the usual vocabularies, and the empty
 * prefix for the names agents write relative to the session (`<#truck-1>` is written
 * `:truck-1`). Those names are most of a model's IRIs, and each written in full is some
 * 60 characters more in every SolutionRequest, for the room to carry to every occupant and
 * for every solver to read: a ~1.3k-triple model is 40% shorter with it (bench/load.ts).
 */
export function sessionPrefixes(baseIri: string): Record<string, string> {
  return { ...PREFIXES, "": `${baseIri}#` };
}

/**
 * The model for solvers (the union of all graphs) as Turtle, and how many distinct triples it
 * holds (counted while writing). The store is read once and its quads grouped by subject, in
 * the order subjects first appear, so the writer can group with `;` and `,`. The TriG (one
 * graph per contribution) is written only when a session is exported (store/model-trig.ts).
 * `prefixes`: see `sessionPrefixes`.
 */
export function modelForSolvers(store: QuadQueries, prefixes: Record<string, string> = PREFIXES): { turtle: string; triples: number } {
  const bySubject = new Map<string, Quad[]>();
  for (const q of store.getQuads(null, null, null, null)) {
    const key = termToId(q.subject);
    const group = bySubject.get(key);
    if (group === undefined) bySubject.set(key, [q]);
    else group.push(q);
  }
  const union = new SubjectLineWriter(new TextSink(), { prefixes, format: "text/turtle" });
  let triples = 0;
  for (const group of bySubject.values()) triples += writeSubject(union, group);
  return { turtle: finish(union), triples };
}

/** One subject's statements into the union, each once; returns how many were written. */
function writeSubject(writer: Writer, quads: readonly Quad[]): number {
  // Most subjects are described in one graph, which holds no triple twice: nothing to skip.
  const graph = quads[0]?.graph.id;
  if (quads.every((q) => q.graph.id === graph)) {
    for (const q of quads) writer.addQuad(q.subject, q.predicate, q.object);
    return quads.length;
  }
  const seen = new Set<string>();
  for (const q of quads) {
    const key = `${termToId(q.predicate)} ${termToId(q.object)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    writer.addQuad(q.subject, q.predicate, q.object);
  }
  return seen.size;
}

/** Every named graph kept; parses back with n3 into the same quads. */
export function modelToTrig(store: QuadQueries, prefixes: Record<string, string> = PREFIXES): string {
  const writer = new IriMemoWriter(new TextSink(), { prefixes, format: "application/trig" });
  writer.addQuads(store.getQuads(null, null, null, null));
  return finish(writer);
}

/** n3's own way of writing an IRI or a blank node, which IriMemoWriter calls. */
const encode = (Writer.prototype as unknown as { _encodeIriOrBlank(this: Writer, entity: Term): string })._encodeIriOrBlank;

/**
 * n3's Writer, writing each IRI the way it first wrote it. n3 escapes an IRI and matches it
 * against every prefix (two regular expressions) each time it occurs; in a model the same
 * predicates, classes and subjects occur over and over, and that matching was 4 % of a small
 * model's analysis. An IRI's text depends on the IRI and the prefixes alone, and the prefixes
 * are fixed when the writer is made (nothing here adds any later), so the text is the same.
 */
export class IriMemoWriter extends Writer {
  private readonly iris = new Map<string, string>();

  /** Overrides n3's (untyped) `_encodeIriOrBlank`: test/rdf/serialize.test.ts checks the output against n3's own. */
  _encodeIriOrBlank(entity: Term): string {
    if (entity.termType !== "NamedNode") return encode.call(this, entity);
    let text = this.iris.get(entity.value);
    if (text === undefined) {
      text = encode.call(this, entity);
      this.iris.set(entity.value, text);
    }
    return text;
  }
}

/** n3's own way of appending a piece of output, which SubjectLineWriter calls. */
const writePiece = (Writer.prototype as unknown as { _write(this: Writer, text: string, done?: (error?: Error | null) => void): void })._write;

/** What n3 writes before a subject's next predicate: a new line, indented. */
const NEXT_PREDICATE = ";\n    ";

/**
 * IriMemoWriter, writing each subject on one line: `:truck-1 a mfr:Entity; mfr:entityType
 * "Truck".` This is the model every SolutionRequest carries, which the room re-writes for
 * every occupant and every solver parses. n3 puts each further predicate on a new, indented
 * line: in the JSON of a SolutionRequest that is `;\n    `, five characters more than `; `
 * for each, about a tenth of a ~1.3k-triple model's message (bench/load.ts prints its size).
 * n3 starts exactly that piece with NEXT_PREDICATE, and a literal never holds a raw line
 * break (n3 escapes it), so no other piece does.
 */
export class SubjectLineWriter extends IriMemoWriter {
  /** Overrides n3's (untyped) `_write`: test/rdf/serialize.test.ts parses the output back. */
  _write(text: string, done?: (error?: Error | null) => void): void {
    writePiece.call(this, text.startsWith(NEXT_PREDICATE) ? `; ${text.slice(NEXT_PREDICATE.length)}` : text, done);
  }
}

/**
 * Where a Writer puts its text. n3's own sink appends every chunk to one string, and V8 keeps
 * such a string as a tree of its millions of pieces until it is read: 480 MiB for the Turtle
 * and TriG of a 1M-triple model, against 150 MiB as flat text. Joined in batches, the pieces
 * become flat text as they come.
 */
class TextSink {
  private batch: string[] = [];
  private readonly joined: string[] = [];

  write(chunk: string, _encoding?: string, done?: () => void): void {
    this.batch.push(chunk);
    if (this.batch.length === TEXT_BATCH) {
      this.joined.push(this.batch.join(""));
      this.batch = [];
    }
    done?.();
  }

  end(done?: (error: Error | null, result: string) => void): void {
    this.joined.push(this.batch.join(""));
    this.batch = [];
    done?.(null, this.joined.join(""));
  }
}

/** Chunks joined at a time: a few KiB to a few hundred KiB of text. */
const TEXT_BATCH = 4096;

function finish(writer: Writer): string {
  let failure: unknown;
  let output: unknown;
  // n3's writer reports to the callback synchronously. It swallows what is thrown inside its
  // `end`, so the outcome is read here, after it: an error (a malformed term), or no text at
  // all when the sink could not join it (past V8's longest string).
  writer.end((error, result: unknown) => {
    failure = error;
    output = result;
  });
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  if (typeof output !== "string") throw new Error("the model could not be written out as one text (too long?)");
  return output;
}
