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
import type { Quad } from "n3";
import { MAX_TURTLE_NESTING, checkNesting } from "./nesting.js";
import { describeSyntaxError } from "./syntax-error.js";
import { distinctTriples } from "./triples.js";
import type { ParseError } from "./syntax-error.js";

export type { ParseError } from "./syntax-error.js";

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

export type ParseOutcome =
  | { ok: true; quads: Quad[]; tripleCount: number }
  | { ok: false; error: ParseError };

let parsesSoFar = 0;

export function parseContribution(turtle: string, opts: ParseOptions): ParseOutcome {
  if (!URL.canParse(opts.baseIri)) {
    // A bug in the caller, not bad input from an agent.
    throw new TypeError(`parseContribution needs an absolute baseIri, got "${opts.baseIri}"`);
  }
  if (typeof turtle !== "string") {
    return { ok: false, error: { message: "The contribution is not text", line: null, column: null } };
  }
  const tooDeep = checkNesting(turtle, MAX_TURTLE_NESTING);
  if (tooDeep) return { ok: false, error: tooDeep };
  const blankNodePrefix = (opts.blankNodePrefix ?? `p${parsesSoFar++}`).replace(/_?$/, "_");
  let parsed: Quad[];
  try {
    parsed = new Parser({
      baseIRI: opts.baseIri,
      format: "text/turtle",
      blankNodePrefix,
      factory: scopedFactory(blankNodePrefix),
    }).parse(turtle);
  } catch (error) {
    return { ok: false, error: describeSyntaxError(error, turtle) };
  }
  const triples = distinctTriples(parsed);
  if (triples.length === 0) {
    // Accepted, it would replace the agent's earlier contribution with nothing.
    return { ok: false, error: { message: "it holds no statements (empty, or only comments/prefixes)", line: null, column: null, refused: true } };
  }
  if (triples.length > opts.maxTriples) {
    return {
      ok: false,
      error: {
        message:
          `The contribution has ${triples.length} triples, more than the limit of ${opts.maxTriples} ` +
          "per contribution: send a smaller model (leave out detail the solvers do not need)",
        line: null,
        refused: true,
        column: null,
      },
    };
  }
  const graph = DataFactory.namedNode(opts.graphIri);
  const quads = triples.map((q) => DataFactory.quad(q.subject, q.predicate, q.object, graph));
  return { ok: true, quads, tripleCount: quads.length };
}

/**
 * n3 prefixes labelled blank nodes (`_:x` → `<prefix>x`) but names anonymous ones (`[]`,
 * collections) from a process-wide counter. Name those under the contribution's prefix too
 * (`c0_` → `c0a_1`), so every blank node shows which contribution it came from and a model
 * serialises the same way each time. `c0a_…` cannot clash with a labelled node (`c0_…`),
 * since the prefix always ends in `_`.
 */
function scopedFactory(blankNodePrefix: string): typeof DataFactory {
  const anonymousPrefix = `${blankNodePrefix.slice(0, -1)}a_`;
  let anonymous = 0;
  return {
    ...DataFactory,
    blankNode: (name?: string) => DataFactory.blankNode(name ?? `${anonymousPrefix}${anonymous++}`),
  };
}
