/**
 * Splitting a model that is too large for one stanza into self-contained Turtle parts.
 * Each part is a complete Turtle document (its own prefixes) holding whole subjects, so
 * a receiver can parse each part alone and the union of the parts is the model. Blank
 * nodes are replaced by IRIs (skolemised, RDF 1.1 §3.5) because a blank node label means
 * nothing across documents.
 */
import { DataFactory, Parser, Writer, type Quad, type Term } from "n3";
import { PREFIXES } from "./vocab.js";

const { namedNode, quad } = DataFactory;

export type ModelParts = { ok: true; parts: string[]; triples: number } | { ok: false; error: string };

export function splitModel(turtle: string, maxPartBytes: number, skolemBase: string): ModelParts {
  let quads: Quad[];
  try {
    quads = new Parser({ format: "text/turtle" }).parse(turtle);
  } catch (err) {
    return { ok: false, error: `the model could not be re-read for splitting: ${(err as Error).message}` };
  }
  const skolem = (t: Term): Term => (t.termType === "BlankNode" ? namedNode(`${skolemBase}.well-known/genid/${t.value}`) : t);
  const bySubject = new Map<string, Quad[]>();
  for (const q of quads) {
    const s = skolem(q.subject);
    const key = s.value;
    const list = bySubject.get(key) ?? [];
    list.push(quad(s as Quad["subject"], q.predicate, skolem(q.object) as Quad["object"]));
    bySubject.set(key, list);
  }

  const header = write([]);
  const budget = maxPartBytes - Buffer.byteLength(header);
  const parts: string[] = [];
  let current: Quad[] = [];
  let currentBytes = 0;
  const flush = () => {
    if (current.length) parts.push(write(current));
    current = [];
    currentBytes = 0;
  };
  for (const group of bySubject.values()) {
    // A subject too large for one part is split statement by statement.
    const pieces = bytesOf(group) > budget ? group.map((q) => [q]) : [group];
    for (const piece of pieces) {
      const bytes = bytesOf(piece);
      if (bytes > budget) return { ok: false, error: `one statement of the model is ${bytes} bytes, more than a part may hold (${budget})` };
      if (currentBytes + bytes > budget) flush();
      current.push(...piece);
      currentBytes += bytes;
    }
  }
  flush();
  // Writing groups together is a little more compact than apart, so each part is within budget.
  return { ok: true, parts, triples: quads.length };
}

function write(quads: Quad[]): string {
  const writer = new Writer({ prefixes: PREFIXES });
  writer.addQuads(quads);
  let out = "";
  writer.end((_err, result) => (out = result));
  return out;
}

function bytesOf(quads: Quad[]): number {
  const writer = new Writer();
  writer.addQuads(quads);
  let out = "";
  writer.end((_err, result) => (out = result));
  return Buffer.byteLength(out);
}
