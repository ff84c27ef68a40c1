/**
 * The characters XML 1.0 forbids (§2.2 `Char`), and what to do with them before they go
 * on the wire. One such character anywhere in a stanza makes the server close our stream,
 * losing everything sent and received until we rejoin, for every session.
 *
 * They reach us through escapes in what agents send (JSON `\u0000`, Turtle `"\u001F"`) and
 * would go out again wherever we quote that content. Two remedies:
 * - in formats that have an escape (JSON and Turtle text: `\u` + 4 hex digits), escape, so
 *   the receiver gets the original value back;
 * - everywhere else, replace with U+FFFD, so the reader sees that something was there.
 */

/**
 * C0 controls except tab, LF and CR; lone surrogates; U+FFFE and U+FFFF. With the `u` flag
 * a valid surrogate pair is one code point above U+FFFF and does not match the surrogate
 * range; only a surrogate that is not part of a pair does.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this matches
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/u;
// eslint-disable-next-line no-control-regex -- as above, for replacing every occurrence
const FORBIDDEN_ALL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/gu;
const LONE_SURROGATE_ALL = /[\uD800-\uDFFF]/gu;

export const REPLACEMENT_CHARACTER = "\uFFFD";

export function hasXmlForbiddenChars(text: string): boolean {
  return FORBIDDEN.test(text);
}

/** How many characters of `text` XML forbids (a lone surrogate counts as one). */
export function countXmlForbiddenChars(text: string): number {
  if (!FORBIDDEN.test(text)) return 0;
  return text.match(FORBIDDEN_ALL)?.length ?? 0;
}

/** Visible replacement: each forbidden character becomes U+FFFD. */
export function replaceXmlForbiddenChars(text: string): string {
  return FORBIDDEN.test(text) ? text.replace(FORBIDDEN_ALL, REPLACEMENT_CHARACTER) : text;
}

/**
 * JSON text with each forbidden character written as `\uXXXX`. In a document produced by
 * JSON.stringify such a character can only stand inside a string literal (raw controls are
 * not even valid JSON elsewhere), where `\uXXXX` is a valid escape; JSON.parse gives back the
 * original value, lone surrogates included. JSON.stringify already escapes controls and lone
 * surrogates, but not U+FFFE and U+FFFF.
 */
export function escapeXmlForbiddenInJson(json: string): string {
  return FORBIDDEN.test(json) ? json.replace(FORBIDDEN_ALL, unicodeEscape) : json;
}

/**
 * Turtle text with each forbidden character written as `\uXXXX`, except lone surrogates,
 * which become U+FFFD: Turtle's `\u` escape must name a code point, and n3's Parser rejects
 * `\uD800` (a contribution cannot carry one in, but our own text might). In n3 Writer output
 * a raw forbidden character can only stand inside a string literal or an IRI (the Writer
 * escapes U+0000–U+0019 itself, not U+001A–U+001F, U+FFFE or U+FFFF), where `\uXXXX` is valid.
 */
export function escapeXmlForbiddenInTurtle(turtle: string): string {
  if (!FORBIDDEN.test(turtle)) return turtle;
  return turtle.replace(LONE_SURROGATE_ALL, REPLACEMENT_CHARACTER).replace(FORBIDDEN_ALL, unicodeEscape);
}

function unicodeEscape(char: string): string {
  return `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
}
