/**
 * Splitting a model that is too large for one stanza into self-contained Turtle parts.
 * Each part is a complete Turtle document (its own prefixes) holding whole subjects, so
 * a receiver can parse each part alone and the union of the parts is the model. Blank
 * nodes are replaced by IRIs (skolemised, RDF 1.1 §3.5) because a blank node label means
 * nothing across documents.
 *
 * Sizes here are wire bytes: what a piece of Turtle occupies inside `<payload>` once the
 * characters XML forbids are `\u`-escaped (as `encodeMessage` does) and `& < >` are
 * XML-escaped (as the serializer does). They add up: the Turtle of a part is its prefixes
 * followed by its subjects, and writing two subjects together is the two texts one after
 * the other (a subject split statement by statement is a little shorter together).
 */
import { DataFactory, Parser, Writer, type Quad, type Term } from "n3";
import { stanzaBytes, textWireBytes, type Element } from "../xmpp/stanza.js";
import { escapeXmlForbiddenInTurtle } from "../base/xml-chars.js";
import { encodeMessage } from "./codec.js";
import { rememberedSplit, type ModelParts, type PrecomputedSplit, type SplitKey } from "./split-memo.js";
import { Mode, PREFIXES } from "../base/vocab.js";

const { namedNode, quad } = DataFactory;

export type { ModelParts };

/** Bytes a Turtle text occupies as `<payload>` content on the wire. */
export function turtleWireBytes(turtle: string): number {
  return textWireBytes(escapeXmlForbiddenInTurtle(turtle));
}

/**
 * Parses the model with blank-node names that depend on the text alone. n3 names them from
 * process-wide counters by default (`b12_x`, `n3-7`), which would make the skolem IRIs, and
 * so the parts, differ between the live run and a replay of the same session.
 */
function rereadModel(turtle: string): Quad[] {
  let anonymous = 0;
  const factory = { ...DataFactory, blankNode: (name?: string) => DataFactory.blankNode(name ?? `a_${anonymous++}`) };
  return new Parser({ format: "text/turtle", blankNodePrefix: "b_", factory }).parse(turtle);
}

/**
 * Splits `turtle` into parts of at most `maxPartWireBytes` wire bytes each (prefixes
 * included). Fails when one statement alone is larger than a part may be.
 */
export function splitModel(turtle: string, maxPartWireBytes: number, skolemBase: string): ModelParts {
  let quads: Quad[];
  try {
    quads = rereadModel(turtle);
  } catch (err) {
    return { ok: false, error: `the model could not be re-read for splitting: ${(err as Error).message}` };
  }
  const bySubject = new Map<string, Quad[]>();
  for (const q of quads) {
    const s = skolemised(q, skolemBase);
    const list = bySubject.get(s.subject.value) ?? [];
    list.push(s);
    bySubject.set(s.subject.value, list);
  }

  const budget = maxPartWireBytes - headerWireBytes();
  const parts: string[] = [];
  let current: Quad[] = [];
  let currentBytes = 0;
  const flush = () => {
    if (current.length) parts.push(write(current));
    current = [];
    currentBytes = 0;
  };
  const groups = [...bySubject.values()];
  const sizes = subjectWireBytes(groups);
  for (const [i, group] of groups.entries()) {
    // A subject too large for one part is split statement by statement.
    const groupBytes = sizes[i] ?? bodyWireBytes(group);
    const pieces = groupBytes > budget ? group.map((q) => [q]) : [group];
    for (const piece of pieces) {
      const bytes = pieces.length === 1 ? groupBytes : bodyWireBytes(piece);
      if (bytes > budget) return { ok: false, error: `one statement of the model is ${bytes} bytes on the wire, more than a part may hold (${budget})` };
      if (currentBytes + bytes > budget) flush();
      current.push(...piece);
      currentBytes += bytes;
    }
  }
  flush();
  return { ok: true, parts, triples: quads.length };
}

/** Where the parts go: the room and the session appear in every part stanza. */
export interface PartAddress {
  room: string;
  sessionId: string;
}

export type ModelPartStanzas = { ok: true; stanzas: Element[]; triples: number } | { ok: false; error: string };

/**
 * The model as `ModelFirstRDF` stanzas (siblings `sessionId` and `modelPart` = "k/n"), each
 * within `maxStanzaBytes` as sent.
 */
export function modelPartStanzas(turtle: string, address: PartAddress, maxStanzaBytes: number, skolemBase: string): ModelPartStanzas {
  const sources = modelPartSources(turtle, address, maxStanzaBytes, skolemBase);
  return sources.ok ? { ok: true, stanzas: sources.parts.map((build) => build()), triples: sources.triples } : sources;
}

/** A model's part stanzas, each built when it is about to be sent. */
export type ModelPartSources = { ok: true; parts: Array<() => Element>; triples: number } | { ok: false; error: string };

/**
 * The stanzas of `modelPartStanzas`, each built only when asked for: building all of a
 * 100k-triple model's ~46 parts at once (~200 KB of escaping and serializing each) was one
 * long task of the main thread; built one per send, each is a short one.
 */
export function modelPartSources(turtle: string, address: PartAddress, maxStanzaBytes: number, skolemBase: string): ModelPartSources {
  const key = { maxPartWireBytes: partBudget(address, maxStanzaBytes), skolemBase };
  // Split in the model worker when the analysis made the model (see split-memo.ts).
  const split = rememberedSplit(turtle, key) ?? splitModel(turtle, key.maxPartWireBytes, key.skolemBase);
  if (!split.ok) return split;
  const n = split.parts.length;
  const parts = split.parts.map((part, i) => () => partStanza(part, i + 1, n, address));
  // Each part's Turtle is within its budget by construction, and the overhead allows for
  // labels up to "999/999": only past that can a stanza be over, so only then is each one
  // built and measured now (measuring every one cost 100 ms of main thread at 100k triples).
  if (n <= MAX_PARTS_MEASURED) return { ok: true, parts, triples: split.triples };
  const stanzas = parts.map((build) => build());
  if (stanzas.some((s) => stanzaBytes(s) > maxStanzaBytes)) return { ok: false, error: "a model part is over the stanza limit" };
  return { ok: true, parts: stanzas.map((stanza) => () => stanza), triples: split.triples };
}

/** Wire bytes of Turtle (prefixes included) one part stanza to `address` may carry under `maxStanzaBytes`. */
export function partBudget(address: PartAddress, maxStanzaBytes: number): number {
  return maxStanzaBytes - partOverheadBytes(address);
}

/**
 * The splits of a model for these part sizes, as the model worker works them out ahead of
 * the SolutionRequest: none when the model would fit in one part (it may then go in one
 * stanza, and a split is cheap anyway).
 */
export function splitsAhead(turtle: string, keys: readonly SplitKey[]): PrecomputedSplit[] {
  if (keys.length === 0) return [];
  const wire = turtleWireBytes(turtle);
  return keys.filter((k) => wire > k.maxPartWireBytes).map((k) => ({ ...k, parts: splitModel(turtle, k.maxPartWireBytes, k.skolemBase) }));
}

/**
 * The largest statement, in wire bytes as `statementWireBytes` counts them, that can still
 * be sent when a model for session `sessionId` goes in parts to `room` under a stanza limit
 * of `maxStanzaBytes`: one part holding that statement alone (with its prefixes, body and
 * siblings) is then exactly at the limit. A contribution holding a larger statement could
 * never reach the solvers, so it can be refused when it arrives.
 */
export function maxStatementWireBytes(maxStanzaBytes: number, sessionId: string, room: string): number {
  return maxStanzaBytes - partOverheadBytes({ room, sessionId }) - headerWireBytes();
}

/**
 * Wire bytes one statement takes in a model part, in the units of `maxStatementWireBytes`.
 * Blank nodes are measured as the IRIs they become under `skolemBase`, with their current
 * label; when the merged model is re-read for splitting, n3 prefixes labels with a few
 * characters (`b12_`), so leave a small margin when measuring a contribution's statements.
 */
export function statementWireBytes(statement: Quad, skolemBase: string): number {
  return bodyWireBytes([skolemised(statement, skolemBase)]);
}

function skolemised(q: Quad, skolemBase: string): Quad {
  const skolem = (t: Term): Term => (t.termType === "BlankNode" ? namedNode(`${skolemBase}.well-known/genid/${t.value}`) : t);
  return quad(skolem(q.subject) as Quad["subject"], q.predicate, skolem(q.object) as Quad["object"]);
}

function partStanza(turtle: string, k: number, n: number, { room, sessionId }: PartAddress): Element {
  return encodeMessage({
    to: room,
    type: "groupchat",
    body: `Model for ${sessionId}, part ${k} of ${n}`,
    payload: { mode: Mode.ModelFirstRDF, content: turtle },
    siblings: { sessionId, modelPart: `${k}/${n}` },
  });
}

/** Parts whose `modelPart` label `partOverheadBytes` allows for. */
const MAX_PARTS_MEASURED = 999;

/** Bytes of a part stanza besides its Turtle, for up to 999 parts. */
function partOverheadBytes(address: PartAddress): number {
  // One character of content, because an empty payload is written `<payload …/>`.
  return stanzaBytes(partStanza("x", 999, 999, address)) - 1;
}

let header: number | undefined;
/** The prefixes every part starts with. */
function headerWireBytes(): number {
  header ??= turtleWireBytes(write([]));
  return header;
}

/**
 * The wire bytes each subject's statements add to a part, as `bodyWireBytes` would say for
 * each group, with one writer for all (a writer per subject costs five times as much). The
 * writer ends a subject with ".\n" when the next one starts, so that is moved back to the
 * subject it ends.
 */
function subjectWireBytes(groups: Quad[][]): number[] {
  let written = "";
  const writer = new Writer({ write: (text: string) => (written += text) }, { prefixes: PREFIXES, end: false });
  return groups.map((group, i) => {
    written = "";
    writer.addQuads(group);
    if (i > 0 && !written.startsWith(END_OF_SUBJECT)) return bodyWireBytes(group);
    return turtleWireBytes(`${i === 0 ? written : written.slice(END_OF_SUBJECT.length)}${END_OF_SUBJECT}`);
  });
}
const END_OF_SUBJECT = ".\n";

/** The wire bytes these statements add to a part after its prefixes. */
function bodyWireBytes(quads: Quad[]): number {
  return turtleWireBytes(write(quads)) - headerWireBytes();
}

function write(quads: Quad[]): string {
  const writer = new Writer({ prefixes: PREFIXES });
  writer.addQuads(quads);
  let out = "";
  writer.end((_err, result) => (out = result));
  return out;
}
