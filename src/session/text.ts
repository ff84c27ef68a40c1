/** Small helpers for text people read: one style of lists, durations and shortening everywhere. */

/** Words shorter than this are never cut; a longer one (an IRI, a hash) may be, as a last resort. */
const LONGEST_WHOLE_WORD = 30;

/**
 * One line, at most `max` characters, ending in … when cut. Cuts at a word boundary, never
 * mid-word, unless the last word is longer than any word people read whole (an IRI).
 */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  let end = Math.max(1, max - 1);
  const space = flat.lastIndexOf(" ", end);
  if (space > 0 && end - space <= LONGEST_WHOLE_WORD) end = space;
  // Never cut a surrogate pair in half: a lone half is a character XML forbids.
  if (isHighSurrogate(flat.charCodeAt(end - 1))) end -= 1;
  return `${flat.slice(0, end).replace(/[\s,;:]+$/, "")}…`;
}

function isHighSurrogate(codeUnit: number): boolean {
  return codeUnit >= 0xd800 && codeUnit <= 0xdbff;
}

/** "nobody", "a", "a and b", "a, b and c". */
export function names(list: readonly string[]): string {
  if (list.length === 0) return "nobody";
  if (list.length === 1) return list[0] as string;
  return `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
}

/** "800 ms", "1.5 s", "30 s", "2 min 5 s". */
export function seconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  // Tenths only where they matter: "1.5 s", but "42 s", not "59.9 s". Rounded to tenths before
  // the choice, so 1,999 ms reads "2 s" and 9,960 ms "10 s", never "2.0 s" or "10.0 s".
  const tenths = Math.round(ms / 100) / 10;
  if (tenths < 10) return `${Number.isInteger(tenths) ? tenths : tenths.toFixed(1)} s`;
  const whole = Math.round(s);
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** "1 goal", "2 goals", "3 entities" (with `many` given). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
