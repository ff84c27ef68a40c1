/**
 * The fields a peer sends beyond those the protocol names ("any other fields kept and
 * shown", docs/protocol.md). They are stored in the durable log, exported, and sent back in
 * SessionComplete once per proposal, so only a bounded amount of them is kept: whatever one
 * stanza may carry, a proposal's extras cost at most a few KB wherever they go.
 */

export interface ExtraFieldLimits {
  /** Most extra fields kept; later ones (in the order sent) are left out. */
  maxFields: number;
  /** Most characters the kept extras may take as JSON, keys included. */
  maxChars: number;
  /** Most characters one extra field may take, so that one long field leaves room for the rest. */
  maxFieldChars: number;
}

/**
 * Peers add a few fields to a solution (`confidence`, `reasoning`, `model`); a paragraph of
 * reasoning fits, a dump of the agent's state does not.
 */
export const SOLUTION_EXTRA_LIMITS: Readonly<ExtraFieldLimits> = Object.freeze({ maxFields: 16, maxChars: 4096, maxFieldChars: 1024 });

/** A `satisfiesGoals` item may say a word more than `{goal, satisfied}` (e.g. `reason`). */
export const GOAL_EXTRA_LIMITS: Readonly<ExtraFieldLimits> = Object.freeze({ maxFields: 4, maxChars: 512, maxFieldChars: 256 });

/** Shortest start of a long string worth keeping, rather than a bare note. */
const MIN_KEPT_START = 40;

/**
 * `record` with its known fields as they are and its extra fields bounded: each extra field
 * that fits its share of the budget is kept as sent; one that does not becomes a string
 * saying so (keeping the start of a long string), when even that fits; the rest are left out.
 * Values must be JSON values (as parsed), so that their size can be measured.
 */
export function boundExtraFields<T extends Record<string, unknown>>(record: T, known: ReadonlySet<string>, limits: ExtraFieldLimits): T {
  const entries: Array<[string, unknown]> = [];
  let budget = limits.maxChars;
  let extras = 0;
  for (const [key, value] of Object.entries(record)) {
    if (known.has(key)) {
      entries.push([key, value]);
      continue;
    }
    if (extras >= limits.maxFields) continue;
    const kept = fitted(value, Math.min(budget, limits.maxFieldChars) - key.length - 2);
    if (kept === undefined) continue;
    entries.push([key, kept.value]);
    budget -= key.length + 2 + kept.size;
    extras++;
  }
  // fromEntries defines own properties, so a key like "__proto__" stays plain data.
  return Object.fromEntries(entries) as T;
}

/** `value` itself when its JSON fits in `room` characters, else a shorter note, or nothing. */
function fitted(value: unknown, room: number): { value: unknown; size: number } | undefined {
  const json = JSON.stringify(value) ?? "null";
  if (json.length <= room) return { value, size: json.length };
  if (typeof value === "string") {
    const left = (start: number) => `${value.slice(0, start)}… (${value.length - start} more characters left out)`;
    // The note's own length depends on how much is kept; measure it with the longest count.
    let start = room - JSON.stringify(left(0)).length;
    // Never split a surrogate pair: half a character is not text.
    if (/[\uD800-\uDBFF]/.test(value.charAt(start - 1))) start--;
    if (start >= MIN_KEPT_START) {
      const note = left(start);
      const size = JSON.stringify(note).length;
      if (size <= room) return { value: note, size };
    }
  }
  const note = `(left out: ${json.length} characters of JSON)`;
  const size = JSON.stringify(note).length;
  return size <= room ? { value: note, size } : undefined;
}
