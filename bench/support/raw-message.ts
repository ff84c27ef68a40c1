/**
 * An instant agent's reading of a stanza from its text, without the XML parser: a bench's
 * agents read only a few attributes and one short child of the messages they answer, and
 * parsing every model the room fans out to them was most of the bench's own CPU.
 */
import { markupAt } from "../../src/xmpp/stanza-splitter.js";
import { startTag, unescapeXml } from "../../src/xmpp/raw-stanza.js";

/**
 * The start tag of the first element named `name` in a stanza's text, read as startTag does,
 * or null. Markup in a stanza's texts is escaped, so `<name` there is an element.
 */
export function childStartTag(stanza: string, name: string): { name: string; attrs: Record<string, string>; at: number } | null {
  let at = stanza.indexOf(`<${name}`, 1);
  while (at >= 0) {
    const end = markupAt(stanza, at)?.end ?? -1;
    const tag = end < 0 ? null : startTag(stanza.slice(at, end));
    if (tag?.name === name) return { ...tag, at };
    at = stanza.indexOf(`<${name}`, at + 1);
  }
  return null;
}

/** The text of the first element named `name` whose content is text alone (`<sessionId>…</sessionId>`), or null. */
export function childText(stanza: string, name: string): string | null {
  const child = childStartTag(stanza, name);
  if (!child) return null;
  const open = markupAt(stanza, child.at)?.end ?? 0;
  if (stanza.charCodeAt(open - 2) === 0x2f /* <name/> */) return "";
  const close = stanza.indexOf(`</${name}>`, open);
  if (close < 0) return null;
  const text = stanza.slice(open, close);
  return text.includes("<") ? null : unescapeXml(text);
}
