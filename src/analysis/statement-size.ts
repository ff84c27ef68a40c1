/**
 * A statement too large to ever reach the solvers: a model goes out in parts of whole
 * statements, so one statement larger than a part can hold would doom the SolutionRequest
 * of the session. Such a contribution is refused when it arrives, with the reason.
 */
import type { Quad } from "n3";
import { statementWireBytes } from "../protocol/model-parts.js";
import { formatBytes } from "../base/byte-sizes.js";
import type { ParseError } from "../rdf/syntax-error.js";

/** No character grows beyond this many bytes on the wire (`\u0001` is six). */
const WORST_GROWTH = 6;
/** Room for the punctuation, prefixes and datatype around the terms. */
const FRAME_BYTES = 512;

/** The first statement over `maxBytes` as it would be sent, described; undefined if none is. */
export function oversizedStatement(quads: readonly Quad[], maxBytes: number, skolemBase: string): ParseError | undefined {
  for (const q of quads) {
    const chars = q.subject.value.length + q.predicate.value.length + q.object.value.length + (q.object.termType === "Literal" ? q.object.datatype.value.length : 0);
    // Measuring exactly costs a Turtle writer per statement: only near-misses are measured.
    if (chars * WORST_GROWTH + FRAME_BYTES <= maxBytes) continue;
    const bytes = statementWireBytes(q, skolemBase);
    if (bytes <= maxBytes) continue;
    return {
      message:
        `one statement (subject <${clipIri(q.subject.value)}>, predicate <${clipIri(q.predicate.value)}>) is ${formatBytes(bytes)} as it would be sent, ` +
        `more than the ${formatBytes(maxBytes)} one part of a model can carry, so the model could never reach the solvers: split it into smaller statements`,
      line: null,
      column: null,
      refused: true,
    };
  }
  return undefined;
}

function clipIri(iri: string): string {
  return iri.length > 80 ? `${iri.slice(0, 77)}…` : iri;
}
