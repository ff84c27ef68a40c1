/**
 * Model splits worked out ahead of time, off the main thread: the model worker splits the
 * merged model for every room its SolutionRequest will go to as part of the analysis
 * (splitting 100k triples takes about a second), and the main thread finds the parts here
 * when it renders the SolutionRequest. A split is a pure function of (model, part size,
 * skolem base), so a remembered split is exactly what `splitModel` would compute; rendering
 * without one (a restore, `verify`) computes the same parts itself.
 *
 * Keyed by the model text: V8 hashes a long string by its length, and the model the core
 * sends is the very string the analysis returned, so a lookup is a pointer comparison.
 */

/**
 * A model cut into parts that each fit one stanza, or why it cannot be cut. Declared here,
 * beside the memo that keeps them, so that `model-parts.ts` (which computes splits and reads
 * the memo) and this module do not import each other.
 */
export type ModelParts = { ok: true; parts: string[]; triples: number } | { ok: false; error: string };

/** What a split depends on besides the model. */
export interface SplitKey {
  maxPartWireBytes: number;
  skolemBase: string;
}

/** A split the model worker worked out, with what it depends on. */
export interface PrecomputedSplit extends SplitKey {
  parts: ModelParts;
}

/** Models remembered at most (each holds its parts, about the model's size per room). */
const MAX_MODELS = 4;
const memo = new Map<string, readonly PrecomputedSplit[]>();

/** Keeps the splits of one model (the oldest model goes past MAX_MODELS). */
export function rememberSplits(turtle: string, splits: readonly PrecomputedSplit[]): void {
  if (splits.length === 0) return;
  memo.delete(turtle);
  memo.set(turtle, splits);
  while (memo.size > MAX_MODELS) {
    const oldest = memo.keys().next();
    if (oldest.done) break;
    memo.delete(oldest.value);
  }
}

/** The split remembered for this model and key, if the model worker worked it out. */
export function rememberedSplit(turtle: string, key: SplitKey): ModelParts | undefined {
  return memo.get(turtle)?.find((s) => s.maxPartWireBytes === key.maxPartWireBytes && s.skolemBase === key.skolemBase)?.parts;
}

/** Drops a model's splits (its session has left memory). */
export function forgetSplits(turtle: string): void {
  memo.delete(turtle);
}
