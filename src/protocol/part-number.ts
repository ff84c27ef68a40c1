/**
 * The `modelPart` sibling of a ModelFirstRDF message ("k/n", docs/protocol.md): read in one place
 * for the coordinator (agents' contributions in parts) and the reference solver (the
 * coordinator's model in parts).
 */

export interface PartNumber {
  k: number;
  n: number;
}

/** Most parts a contribution may come in: the coordinator's own model parts allow 999. */
export const MAX_PARTS = 1000;

/** Reads `modelPart` = "k/n" (1 ≤ k ≤ n ≤ maxParts); the error says what is wrong. */
export function readPartNumber(text: string, maxParts = MAX_PARTS): { ok: true; part: PartNumber } | { ok: false; error: string } {
  const m = /^\s*(\d{1,9})\s*\/\s*(\d{1,9})\s*$/.exec(text);
  if (!m) return { ok: false, error: `it should read "k/n", such as "2/5"` };
  const k = Number(m[1]);
  const n = Number(m[2]);
  if (n > maxParts) return { ok: false, error: `a contribution may come in at most ${maxParts} parts` };
  if (k < 1 || k > n) return { ok: false, error: `the part number must be between 1 and ${n}` };
  return { ok: true, part: { k, n } };
}

