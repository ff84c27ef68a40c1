import { xml } from "@xmpp/client";
import { countXmlForbiddenChars, replaceXmlForbiddenChars } from "../base/xml-chars.js";

/** The element type @xmpp/client hands us and accepts for sending. */
export type Element = ReturnType<typeof xml>;
export { xml };

export const NS_MUC = "http://jabber.org/protocol/muc";
export const NS_MUC_USER = "http://jabber.org/protocol/muc#user";
export const NS_DELAY = "urn:xmpp:delay";
export const NS_DISCO_INFO = "http://jabber.org/protocol/disco#info";
export const NS_PING = "urn:xmpp:ping";
export const NS_STANZAS = "urn:ietf:params:xml:ns:xmpp-stanzas";

/** Splits `room@service/nick` into its bare part and resource. */
export function splitJid(jid: string): { bare: string; resource: string | undefined } {
  const slash = jid.indexOf("/");
  return slash < 0 ? { bare: jid, resource: undefined } : { bare: jid.slice(0, slash), resource: jid.slice(slash + 1) };
}

export function bareJid(jid: string): string {
  return splitJid(jid).bare.toLowerCase();
}

/**
 * Serialized size in bytes of the stanza as it goes on the wire (after `xmlSafeStanza`, which
 * `XmppConnection.send` applies), which is what a server's stanza limit counts. A forbidden
 * control character (1 byte) becomes U+FFFD (3 bytes).
 */
export function stanzaBytes(element: Element): number {
  return Buffer.byteLength(replaceXmlForbiddenChars(element.toString()), "utf8");
}

/**
 * Bytes `text` occupies as the content of an element on the wire: escaped as ltx writes text
 * (`&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`) and made safe as `xmlSafeStanza` does.
 * Measured with the serializer itself, so it cannot drift from what is really sent.
 */
export function textWireBytes(text: string): number {
  if (text === "") return 0;
  return stanzaBytes(xml("t", {}, text)) - EMPTY_T_BYTES;
}
const EMPTY_T_BYTES = "<t></t>".length;

/**
 * The stanza as it may go on the wire: every character XML 1.0 forbids, in any attribute
 * value or text at any depth, replaced with U+FFFD. Returns the same element when nothing
 * had to change (no copy), else a changed copy; the caller's element is never modified.
 * `replaced` counts the characters replaced.
 */
export function xmlSafeStanza(stanza: Element): { stanza: Element; replaced: number } {
  const replaced = forbiddenIn(stanza);
  return replaced === 0 ? { stanza, replaced } : { stanza: safeCopy(stanza), replaced };
}

function forbiddenIn(element: Element): number {
  let count = 0;
  for (const value of Object.values(element.attrs)) if (typeof value === "string") count += countXmlForbiddenChars(value);
  for (const child of element.children) count += typeof child === "string" ? countXmlForbiddenChars(child) : isElement(child) ? forbiddenIn(child) : 0;
  return count;
}

function safeCopy(element: Element): Element {
  const attrs: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(element.attrs)) attrs[name] = typeof value === "string" ? replaceXmlForbiddenChars(value) : value;
  const copy = xml(element.name, attrs);
  copy.append(...element.children.map((child) => (typeof child === "string" ? replaceXmlForbiddenChars(child) : isElement(child) ? safeCopy(child) : child)));
  return copy;
}

function isElement(node: unknown): node is Element {
  return typeof node === "object" && node !== null && "children" in node && "attrs" in node;
}
