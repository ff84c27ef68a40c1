/**
 * The characters XML 1.0 forbids, written out from the spec independently of src/, so a
 * mistake in the coordinator's rule cannot hide itself in the tests.
 */

/** XML 1.0 §2.2: Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF] */
export function isXmlChar(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
}

/** The code points of `text` that XML forbids (a surrogate not in a valid pair is one). */
export function forbiddenCodePoints(text: string): number[] {
  const found: number[] = [];
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 0;
    if (!isXmlChar(cp)) found.push(cp);
  }
  return found;
}

export interface ForbiddenChar {
  name: string;
  /** The character as a JS string (one UTF-16 code unit). */
  char: string;
  /** A lone surrogate: Turtle cannot carry it (`\uD800` names no code point). */
  loneSurrogate: boolean;
}

const codeUnits = [
  ...Array.from({ length: 9 }, (_, i) => i), // U+0000–U+0008
  0x0b,
  0x0c,
  ...Array.from({ length: 0x1f - 0x0e + 1 }, (_, i) => 0x0e + i), // U+000E–U+001F
  0xfffe,
  0xffff,
];

/** Every forbidden BMP code point, and a lone high and a lone low surrogate. */
export const FORBIDDEN_CHARS: ForbiddenChar[] = [
  ...codeUnits.map((cu) => ({ name: `U+${cu.toString(16).toUpperCase().padStart(4, "0")}`, char: String.fromCharCode(cu), loneSurrogate: false })),
  { name: "lone high surrogate U+D800", char: "\uD800", loneSurrogate: true },
  { name: "lone low surrogate U+DFFF", char: "\uDFFF", loneSurrogate: true },
];

/** All of them in one string, each between letters so no two surrogates form a pair. */
export const ALL_FORBIDDEN = FORBIDDEN_CHARS.map((f) => `${f.char}x`).join("");

/** `\uXXXX` as JSON and Turtle write it (ASCII only, so it can travel inside XML). */
export function uEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}
