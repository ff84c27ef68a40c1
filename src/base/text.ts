/** Small helpers for text people read: one style of lists, durations and shortening everywhere. */

/**
 * Runs of white space that make a line break or a wide gap, flattened to one space: every
 * white space but the no-break space (NBSP), which keeps a number with its unit.
 */
const BREAKING_SPACE = /[^\S\u00a0]+/g;

/** The text on one line: breaking white space flattened to single spaces, trimmed. */
export function oneLine(text: string): string {
  return text.replace(BREAKING_SPACE, " ").trim();
}

/** Words shorter than this are never cut; a longer one (an IRI, a hash) may be, as a last resort. */
const LONGEST_WHOLE_WORD = 30;

/**
 * One line, at most `max` characters, ending in … when cut. Cuts at a word boundary, never
 * mid-word, unless the last word is longer than any word people read whole (an IRI).
 */
export function clip(text: string, max: number): string {
  const flat = oneLine(text);
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

/**
 * The space between a number and its unit, and between the parts of one duration: a
 * no-break space (U+00A0), so a chat client that wraps a line never leaves "30" at the end
 * of one line and "s." at the start of the next.
 */
export const NBSP = "\u00a0";

/**
 * A duration people read: "800 ms", "1.5 s", "30 s", "1 min", "2 min 5 s", "1 h 20 min", with
 * a no-break space inside (NBSP): tenths only under ten seconds, no zero parts ("1 min", never
 * "1 min 0 s"), and no seconds once it is an hour or more.
 */
export function seconds(ms: number): string {
  const u = (n: number | string, unit: string) => `${n}${NBSP}${unit}`;
  if (ms < 1000) return u(Math.max(0, Math.round(ms)), "ms");
  // Tenths only where they matter: "1.5 s", but "42 s", not "59.9 s". Rounded to tenths before
  // the choice, so 1,999 ms reads "2 s" and 9,960 ms "10 s", never "2.0 s" or "10.0 s".
  const tenths = Math.round(ms / 100) / 10;
  if (tenths < 10) return u(Number.isInteger(tenths) ? tenths : tenths.toFixed(1), "s");
  const whole = Math.round(ms / 1000);
  if (whole < 60) return u(whole, "s");
  if (whole < 3600) {
    const [min, sec] = [Math.floor(whole / 60), whole % 60];
    return sec === 0 ? u(min, "min") : `${u(min, "min")}${NBSP}${u(sec, "s")}`;
  }
  // Rounded once, from the milliseconds: rounding the already rounded seconds again would
  // turn 1 h 1 min 29.5 s into "1 h 2 min", half a minute further off than it need be.
  const minutes = Math.round(ms / 60_000);
  const [h, min] = [Math.floor(minutes / 60), minutes % 60];
  return min === 0 ? u(h, "h") : `${u(h, "h")}${NBSP}${u(min, "min")}`;
}

/** "in 5 s" for an instant ahead of `now`, "now" when it is due. */
export function inTime(at: number, now: number): string {
  const ms = at - now;
  return ms < 500 ? "now" : `in ${seconds(ms)}`;
}

/** "5 s ago", "3 min ago" for an instant before `now`; "just now" under a second. */
export function ago(at: number, now: number): string {
  const ms = now - at;
  return ms < 1000 ? "just now" : `${seconds(ms)} ago`;
}

/**
 * Someone's words quoted inside a sentence of ours: one line, at most `max` characters, and
 * without their closing full stop, so the sentence around it never reads `"….".`. A text a
 * few characters longer than `max` is quoted whole rather than cut just before its end.
 */
export function quoted(text: string, max: number): string {
  const flat = oneLine(text).replace(/[.!?…]+$/, "");
  return `"${clipNear(flat, max)}"`;
}

/**
 * clip, but a text at most a fifth longer than `max` (and at most 30 characters longer) is
 * kept whole: cutting the last few words of a problem helps nobody read it.
 */
export function clipNear(text: string, max: number): string {
  const flat = oneLine(text);
  return flat.length <= max + Math.min(30, Math.floor(max / 5)) ? flat : clip(flat, max);
}

/**
 * A reason or message someone else wrote, set inside a sentence of ours after a colon or in
 * parentheses: its first letter lowered when the second is not a capital too (so "The plan…"
 * becomes "the plan…", but "PDDL…" stays), and its final full stop dropped.
 */
export function inline(text: string): string {
  const flat = oneLine(text).replace(/[.]+$/, "");
  if (/^[A-Z][a-z]/.test(flat)) return flat[0]!.toLowerCase() + flat.slice(1);
  return flat;
}

/** "1 goal", "2 goals", "3 entities" (with `many` given). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
