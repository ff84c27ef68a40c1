/**
 * Why the coordinator never enables XEP-0198 stream management, even where the server
 * offers it (ejabberd by default, Prosody with mod_smacks):
 *
 * - With resumption the server keeps a dropped session "hibernated" and queues what the
 *   room sends to it. After a `kill -9` and a restart, the new login replaces that session
 *   and the server bounces the queue back to the room as errors from our full JID; the room
 *   then kicks the coordinator ("has sent an error message … and got kicked", status 307).
 * - @xmpp/client 0.14 miscounts acknowledgements under load; Prosody then closes the
 *   stream ("Client acknowledged less stanzas than already acknowledged"), measured here.
 * - The coordinator needs neither: every input is logged before it is acted on, what was
 *   sent is recorded, and it rejoins its rooms after every reconnect.
 *
 * So the offer is taken out of the server's stream features before the client library
 * reads them, on every path it could enable from: the classic `<sm/>` feature, and the
 * SASL2 inline `<sm/>` and Bind2 inline feature.
 */
import type { Element } from "./stanza.js";

export const NS_STREAMS = "http://etherx.jabber.org/streams";
export const NS_SM = "urn:xmpp:sm:3";
const NS_SASL2 = "urn:xmpp:sasl:2";
const NS_BIND2 = "urn:xmpp:bind:0";

/** Removes every stream-management offer from a `<stream:features/>` in place; returns how many it removed. */
export function withoutStreamManagement(features: Element): number {
  if (!features.is("features", NS_STREAMS)) return 0;
  let removed = removeChildren(features, (c) => c.is("sm", NS_SM));
  const inline = features.getChild("authentication", NS_SASL2)?.getChild("inline");
  if (inline) {
    removed += removeChildren(inline, (c) => c.is("sm", NS_SM));
    const bindInline = inline.getChild("bind", NS_BIND2)?.getChild("inline");
    if (bindInline) removed += removeChildren(bindInline, (c) => c.is("feature") && c.attrs.var === NS_SM);
  }
  return removed;
}

function removeChildren(parent: Element, match: (child: Element) => boolean): number {
  const before = parent.children.length;
  parent.children = parent.children.filter((c) => typeof c === "string" || !match(c as Element));
  return before - parent.children.length;
}
