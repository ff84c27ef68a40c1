/**
 * Reads one agent's Turtle contribution into quads in that contribution's named graph.
 *
 * Each contribution is parsed on its own (never concatenated with others): one syntax error
 * then costs only that agent's work, prefixes cannot leak between documents, and blank nodes
 * stay scoped to the contribution. Relative IRIs resolve against one base per session, so
 * `<#alice>` from two agents is the same node. n3 never dereferences IRIs, and nothing here
 * does either.
 */
import { DataFactory, Parser } from "n3";
import type { Lexer, Quad, Quad_Object, Quad_Predicate, Quad_Subject, Token } from "n3";
import type { QuadStore } from "./quad-store.js";
import { MAX_TURTLE_NESTING, NestingTooDeep, checkNesting, nestingGuard, nestingGuardedLexer } from "./nesting.js";
import { describeSyntaxError } from "./syntax-error.js";
import { distinctTriples } from "./triples.js";
import type { ParseError } from "./syntax-error.js";

export type { ParseError } from "./syntax-error.js";

/** How one contribution is read: where relative IRIs resolve, which graph holds it, and its size limit. */
export interface ParseOptions {
  /** Absolute http(s) IRI, one per session, ideally ending in `/`. */
  baseIri: string;
  /** The named graph that holds this contribution (its provenance). */
  graphIri: string;
  /** Contributions with more triples than this are refused. */
  maxTriples: number;
  /**
   * Prefix for this contribution's blank-node labels (`_` is appended if missing), e.g. `c0`.
   * Must differ between contributions merged together; by default every parse gets a fresh one.
   */
  blankNodePrefix?: string;
}

/** The options of `parseInto`/`addParsed`, which write into a shared store rather than return a fresh set. */
export interface ParseIntoOptions extends ParseOptions {
  /**
   * Which of the parsed quads to return (all by default). The store gets every one either
   * way; a caller that needs only a few back (the formal reader's) does not hold the rest
   * until the whole model is read.
   */
  keep?: (quad: Quad) => boolean;
}

/**
 * A parse's result: the quads and the count of distinct triples, or a ParseError for the agent.
 * Bad input is never thrown: bad Turtle, an empty text and one over the limit come back as
 * `ok: false`. Only a caller's bug throws (a base IRI that is not absolute: TypeError).
 */
export type ParseOutcome =
  | { ok: true; quads: Quad[]; tripleCount: number }
  | { ok: false; error: ParseError };

let parsesSoFar = 0;

/** One contribution's distinct triples, as quads in its graph. */
export function parseContribution(turtle: string, opts: ParseOptions): ParseOutcome {
  const read = readTurtle(turtle, opts);
  if (!read.ok) return read;
  const quads = distinctTriples(read.quads);
  const refused = refusal(quads.length, opts.maxTriples);
  return refused ? { ok: false, error: refused } : { ok: true, quads, tripleCount: quads.length };
}

/**
 * Parses one contribution straight into `store` (the session's merged model), in its own
 * graph: the store's index removes duplicate triples, so no other pass is needed. Returns
 * the quads in text order, repeats included (what the formal reader wants), those `keep`
 * accepts, and the number of distinct triples. A refused contribution leaves the store as
 * it was.
 */
export function parseInto(store: QuadStore, turtle: string, opts: ParseIntoOptions): ParseOutcome {
  const read = readTurtle(turtle, opts);
  if (!read.ok) return read;
  return addParsed(store, read.quads, opts);
}

/**
 * What `parseInto` does once the text is read: `quads` (a contribution's, as the parser made
 * them, in its graph) into `store`, unless they are too many. For quads parsed earlier
 * (parsed-contributions.ts).
 */
export function addParsed(store: QuadStore, quads: Quad[], opts: Pick<ParseIntoOptions, "graphIri" | "maxTriples" | "keep">): ParseOutcome {
  const fresh = store.countQuads(null, null, null, DataFactory.namedNode(opts.graphIri)) === 0;
  // More quads than the limit may still be few enough triples: only then count them apart.
  const tooMany = quads.length > opts.maxTriples ? refusal(distinctTriples(quads).length, opts.maxTriples) : refusal(quads.length, opts.maxTriples);
  if (tooMany) return { ok: false, error: tooMany };
  let added = 0;
  for (const q of quads) if (store.addQuad(q)) added++;
  // Into an empty graph each distinct triple is added once; a graph already holding an
  // earlier text (one agent sending twice) needs this text's own count.
  const tripleCount = fresh ? added : distinctTriples(quads).length;
  return { ok: true, quads: opts.keep ? quads.filter(opts.keep) : quads, tripleCount };
}

/** Why a contribution of `triples` distinct triples is refused, if it is. */
function refusal(triples: number, maxTriples: number): ParseError | undefined {
  if (triples === 0) {
    // Accepted, it would replace the agent's earlier contribution with nothing.
    return { message: "it holds no statements (empty, or only comments/prefixes)", line: null, column: null, refused: true };
  }
  if (triples <= maxTriples) return undefined;
  return {
    message:
      `The contribution has ${triples} triples, more than the limit of ${maxTriples} ` +
      "per contribution: send a smaller model (leave out detail the solvers do not need)",
    line: null,
    refused: true,
    column: null,
  };
}

/**
 * n3 (2.x) also takes named callbacks, onToken among them, and without onQuad parses
 * synchronously and returns the quads; an exception from onToken aborts the parse. Its
 * typings predate that, and its Parser's `lexer` option.
 */
interface TokenObservingParser {
  parse(input: string, callbacks: { onToken: (token: Token) => void }): Quad[];
}
type ParserOptionsWithLexer = ConstructorParameters<typeof Parser>[0] & { lexer?: Lexer };

/** The parser's quads in the contribution's graph, text order, repeats included; or why the text cannot be read. */
function readTurtle(turtle: string, opts: ParseOptions): { ok: true; quads: Quad[] } | { ok: false; error: ParseError } {
  if (!URL.canParse(opts.baseIri)) {
    // A bug in the caller, not bad input from an agent.
    throw new TypeError(`parseContribution needs an absolute baseIri, got "${opts.baseIri}"`);
  }
  if (typeof turtle !== "string") {
    return { ok: false, error: { message: "The contribution is not text", line: null, column: null } };
  }
  const blankNodePrefix = (opts.blankNodePrefix ?? `p${parsesSoFar++}`).replace(/_?$/, "_");
  const graph = DataFactory.namedNode(opts.graphIri);
  // RDF 1.2 triple terms are quads too, made by the same factory call: only text without
  // `<<` can have every quad made in the contribution's graph as it is parsed.
  const directly = !turtle.includes("<<");
  const parser = (lexer?: Lexer): Parser =>
    new Parser({
      baseIRI: opts.baseIri,
      format: "text/turtle",
      blankNodePrefix,
      factory: scopedFactory(blankNodePrefix, directly ? graph : undefined),
      ...(lexer ? { lexer } : {}),
    } as ParserOptionsWithLexer);
  let parsed: Quad[];
  try {
    parsed = guardedParse(parser, turtle);
  } catch (error) {
    if (error instanceof NestingTooDeep) return { ok: false, error: error.error };
    // The text nests too deeply further on: that is what the agent hears first, as always.
    const tooDeep = checkNesting(turtle, MAX_TURTLE_NESTING);
    if (tooDeep) return { ok: false, error: tooDeep };
    // Lexing for the nesting rule, n3 may report the last token read rather than the one
    // before the error: parse once more without, for the exact place (only ever on failure).
    try {
      parser().parse(turtle);
    } catch (plainError) {
      return { ok: false, error: describeSyntaxError(plainError, turtle) };
    }
    return { ok: false, error: describeSyntaxError(error, turtle) };
  }
  const quads = directly ? parsed : parsed.map((q) => DataFactory.quad(q.subject, q.predicate, q.object, graph));
  return { ok: true, quads };
}

/**
 * One pass over the text with the nesting rule (nesting.ts) applied to the parser's own
 * tokens: in the lexer, token by token, where this n3 allows it; else through onToken.
 */
function guardedParse(parser: (lexer?: Lexer) => Parser, turtle: string): Quad[] {
  const lexer = nestingGuardedLexer(MAX_TURTLE_NESTING);
  if (lexer) return parser(lexer).parse(turtle);
  const guard = nestingGuard(MAX_TURTLE_NESTING);
  return (parser() as unknown as TokenObservingParser).parse(turtle, {
    onToken: (token) => {
      const tooDeep = guard(token);
      if (tooDeep) throw new NestingTooDeep(tooDeep);
    },
  });
}

/**
 * n3 prefixes labelled blank nodes (`_:x` → `<prefix>x`) but names anonymous ones (`[]`,
 * collections) from a process-wide counter. Name those under the contribution's prefix too
 * (`c0_` → `c0a_1`), so every blank node shows which contribution it came from and a model
 * serialises the same way each time. `c0a_…` cannot clash with a labelled node (`c0_…`),
 * since the prefix always ends in `_`. With `graph`, every quad is made in that graph.
 */
function scopedFactory(blankNodePrefix: string, graph: ReturnType<typeof DataFactory.namedNode> | undefined): typeof DataFactory {
  const anonymousPrefix = `${blankNodePrefix.slice(0, -1)}a_`;
  let anonymous = 0;
  const factory: typeof DataFactory = {
    ...DataFactory,
    blankNode: (name?: string) => DataFactory.blankNode(name ?? `${anonymousPrefix}${anonymous++}`),
  };
  if (graph !== undefined) {
    factory.quad = ((subject: Quad_Subject, predicate: Quad_Predicate, object: Quad_Object) =>
      DataFactory.quad(subject, predicate, object, graph)) as typeof DataFactory.quad;
  }
  return factory;
}
