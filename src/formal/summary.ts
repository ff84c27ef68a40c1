/**
 * What the rest of the coordinator keeps of a formal model: a few numbers and the digest of
 * the model's JSON. The model itself is megabytes at 100k triples and costs its size again
 * to copy between threads, so it stays in the model worker, which checks plans against it,
 * and in the store; the session core and its reports need only this summary.
 */
import type { FormalModel } from "./model.js";

/** How many free-text parts one predicate holds (`predicate` is its IRI). */
export interface InformalCount {
  predicate: string;
  count: number;
}

export interface FormalSummary {
  /**
   * SHA-256 of the formal model's JSON (hex): which model plans are checked against, and the
   * key of its blob in the store (store/blobs.ts), where export reads it from.
   */
  digest: string;
  /** Whether a plan can be checked at all (see `hasFormalPart`). */
  hasFormalPart: boolean;
  /**
   * The free-text parts counted by predicate, in the order each predicate first occurs.
   * Bounded: the reader takes literals of a handful of predicates only.
   */
  notMachineCheckable: InformalCount[];
}

/** Whether the model states anything a plan can be checked against. */
export function hasFormalPart(model: FormalModel): boolean {
  return model.goals.length > 0 || model.constraints.length > 0 || model.actions.some((a) => a.informal.length === 0);
}

/** The summary of `model`, whose JSON has the digest `digest`. */
export function summariseFormalModel(model: FormalModel, digest: string): FormalSummary {
  const counts = new Map<string, number>();
  for (const part of model.notMachineCheckable) counts.set(part.predicate, (counts.get(part.predicate) ?? 0) + 1);
  return {
    digest,
    hasFormalPart: hasFormalPart(model),
    notMachineCheckable: [...counts].map(([predicate, count]) => ({ predicate, count })),
  };
}
