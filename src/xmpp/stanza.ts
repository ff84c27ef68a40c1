import { xml } from "@xmpp/client";

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

/** Serialized size in bytes, which is what a server's stanza limit counts. */
export function stanzaBytes(element: Element): number {
  return Buffer.byteLength(element.toString(), "utf8");
}
