import { xml, type Element } from "../xmpp/stanza.js";
import { escapeXmlForbiddenInJson, escapeXmlForbiddenInTurtle } from "../base/xml-chars.js";
import { LINGUE, MimeForMode, type ModeIri } from "../base/vocab.js";

/** The `<payload xmlns="L">` of a protocol message. */
export interface LinguePayload {
  mode: string;
  mime: string | undefined;
  /** The `messageType` attribute, when the sender copied it there. */
  messageType: string | undefined;
  content: string;
}

/** What a message stanza carries, read once at the edge. */
export interface DecodedMessage {
  body: string | undefined;
  payload: LinguePayload | undefined;
  /** Other Lingue-namespace children, e.g. `sessionId`, `contributionType`, `agentRole`. */
  siblings: Record<string, string>;
}

export function decodeMessage(stanza: Element): DecodedMessage {
  const bodyText = stanza.getChildText("body");
  let payload: LinguePayload | undefined;
  // Keyed by element names a sender chose: no prototype, so `<constructor/>` is one more name.
  const siblings = Object.create(null) as Record<string, string>;
  for (const child of stanza.getChildElements()) {
    if (child.attrs.xmlns !== LINGUE) continue;
    if (child.name === "payload" && !payload) {
      payload = {
        mode: String(child.attrs.mode ?? ""),
        mime: child.attrs.mime === undefined ? undefined : String(child.attrs.mime),
        messageType: child.attrs.messageType === undefined ? undefined : String(child.attrs.messageType),
        content: child.text(),
      };
    } else if (child.name !== "payload") {
      siblings[child.name] = child.text().trim();
    }
  }
  return { body: bodyText === null ? undefined : bodyText, payload, siblings };
}

export interface OutboundMessage {
  to: string;
  type: "groupchat" | "chat";
  /** One line for humans; generic clients and room history show only this. */
  body?: string;
  payload?: { mode: ModeIri; content: string; messageType?: string };
  siblings?: Record<string, string>;
}

/**
 * Payload formats that can escape a character XML forbids, so the receiver gets the value
 * back unchanged. Other text (plain-text payloads, bodies, siblings) is made safe with U+FFFD
 * by `XmppConnection.send`.
 */
const escapeForMime: Record<string, (content: string) => string> = {
  "application/json": escapeXmlForbiddenInJson,
  "text/turtle": escapeXmlForbiddenInTurtle,
};

/** The one place MFR stanzas are built: JSON and Turtle payloads leave here XML-safe. */
export function encodeMessage(message: OutboundMessage): Element {
  const children: Element[] = [];
  if (message.body !== undefined) children.push(xml("body", {}, message.body));
  if (message.payload) {
    const { mode, content, messageType } = message.payload;
    const mime = MimeForMode[mode];
    const attrs: Record<string, string> = { xmlns: LINGUE, mime, mode };
    if (messageType) attrs.messageType = messageType;
    children.push(xml("payload", attrs, escapeForMime[mime]?.(content) ?? content));
  }
  for (const [name, value] of Object.entries(message.siblings ?? {})) {
    children.push(xml(name, { xmlns: LINGUE }, value));
  }
  return xml("message", { to: message.to, type: message.type }, ...children);
}
