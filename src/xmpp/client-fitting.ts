/**
 * The library's client (@xmpp/client) fitted to our rules before it connects: the parser is
 * fed whole stanzas and skips the ones nobody reads (stanza-splitter.ts), small writes leave
 * at once (no-delay.ts), the library's own reconnecting is off (reconnection.ts does it),
 * XEP-0198 is never enabled (stream-features.ts), and every stanza the client sends, its own
 * IQ replies and presences included, passes the same XML-safe gate as ours (stanza-gate.ts).
 */
import type { Client } from "@xmpp/client";
import type { Logger } from "pino";
import { sendWithoutDelay } from "./no-delay.js";
import { feedParserWholeStanzas } from "./parser-feed.js";
import type { Element } from "./stanza.js";
import { withoutStreamManagement } from "./stream-features.js";

/** What the fitting needs from the connection. */
export interface ClientRules {
  /** Whether a stanza's text, as the server sent it, is one nobody reads: dropped unparsed. */
  drop: (raw: string) => boolean;
  /** The stanza boundary's replacement of characters XML forbids (StanzaGate.xmlSafe). */
  xmlSafe: (stanza: Element) => Element;
  log: Logger;
}

/** Fits a freshly made client to our rules; call it before any listener of the connection's own. */
export function fitClient(xmpp: Client, rules: ClientRules): void {
  // Large stanzas (model parts) would otherwise cost the parser quadratic time, and stanzas
  // nobody reads would be parsed all the same (see stanza-splitter.ts).
  feedParserWholeStanzas(xmpp, { drop: rules.drop });
  // Small writes leave at once instead of waiting out the server's delayed acknowledgement.
  sendWithoutDelay(xmpp);
  // The library retries every second, forever, each attempt a log line here; ours backs off
  // (reconnection.ts) and logs an outage once.
  xmpp.reconnect.stop();
  // Before the library's own listener reads the features: never enable XEP-0198 (stream-features.ts says why).
  xmpp.prependListener("element", (element: Element) => {
    if (withoutStreamManagement(element) > 0) rules.log.debug("the server offers XEP-0198 stream management; not enabling it");
  });
  // The client also sends stanzas it builds itself (IQ replies, presence): they pass the
  // same gate as ours, so no path reaches the socket with a character XML forbids.
  const clientSend = xmpp.send.bind(xmpp);
  xmpp.send = (stanza: Element) => clientSend(rules.xmlSafe(stanza));
}
