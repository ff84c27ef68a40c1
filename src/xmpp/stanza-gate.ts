/**
 * The gate every stanza passes on its way out of a connection. A message goes out only while
 * this instance may speak; characters XML forbids become U+FFFD, so no path reaches the
 * socket with one; and a stanza over the size limit is refused, because the server would
 * close our stream on it. What is measured is the safe copy: exactly what goes out.
 */
import type { Logger } from "pino";
import { stanzaBytes, xmlSafeStanza, type Element } from "./stanza.js";

/** The gate's rules, as the connection's options give them (see ConnectionOptions). */
export interface GateRules {
  /** Stanzas larger than this are never sent. */
  maxStanzaBytes: number;
  /** Asked before every message stanza: false holds it back. Default: always. */
  maySpeak?: () => boolean;
}

/** Admits outgoing stanzas, or refuses them with a log line; never throws. */
export class StanzaGate {
  constructor(
    private readonly rules: GateRules,
    private readonly log: Logger,
  ) {}

  /**
   * The stanza as it may go out (its XML-safe copy), or undefined when it may not. A stanza
   * `sized` when it was built (after the same replacement xmlSafe makes) is not measured again:
   * measuring writes the whole stanza out once more (200 KB for a model part).
   */
  admit(original: Element, sized = false): Element | undefined {
    if (original.name === "message" && this.rules.maySpeak?.() === false) {
      this.log.warn({ to: original.attrs.to }, "not sending: this instance no longer owns the room");
      return undefined;
    }
    const stanza = this.xmlSafe(original);
    const bytes = sized ? 0 : stanzaBytes(stanza);
    if (bytes > this.rules.maxStanzaBytes) {
      this.log.error({ bytes, limit: this.rules.maxStanzaBytes, to: stanza.attrs.to }, "refusing to send a stanza over the size limit");
      return undefined;
    }
    return stanza;
  }

  /**
   * The one replacement at the stanza boundary: characters XML forbids become U+FFFD. Payload
   * encoders escape them where the format allows; anything left here was missed by an
   * encoder or sits in text without an escape (a body quoting an agent), so it is logged.
   */
  xmlSafe(stanza: Element): Element {
    const safe = xmlSafeStanza(stanza);
    if (safe.replaced > 0) {
      this.log.warn({ replaced: safe.replaced, stanza: stanza.name, to: stanza.attrs.to }, "replaced characters XML forbids with U+FFFD before sending");
    }
    return safe.stanza;
  }
}
