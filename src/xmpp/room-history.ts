/**
 * What a room tells us about its messages beyond their content: when the room stamped one it
 * gives back as history (XEP-0203 delay), the id the room gave it (XEP-0359 stanza-id), the
 * id its sender gave it (XEP-0359 origin-id), and the history we ask for when we join
 * (XEP-0045 §7.2.15). Pure functions over stanzas; nothing here keeps state.
 */
import { NS_DELAY, NS_MUC, bareJid, xml, type Element } from "./stanza.js";

export const NS_SID = "urn:xmpp:sid:0";

/**
 * The history to ask for at a join: none (a room we have never heard, or we do not want its
 * past), or everything the room says was said from `since` (epoch ms) on.
 */
export type HistoryRequest =
  | { kind: "none" }
  /**
   * From `since` on (the join's history, and the archive where it cannot go by position);
   * and where `after` is known (the archive id of the last message taken in from the room),
   * the archive is read from the message after it, whatever its size and the clocks.
   */
  | { kind: "since"; since: number; after?: string };

/** The MUC join's `<x>` with the history we ask for. */
export function joinHistory(request: HistoryRequest): Element {
  const history =
    request.kind === "none"
      ? xml("history", { maxstanzas: "0" })
      : // XEP-0082 date-time; Prosody compares it with whole seconds, so it is floored.
        xml("history", { since: new Date(Math.floor(request.since / 1000) * 1000).toISOString().replace(/\.000Z$/, "Z") });
  return xml("x", { xmlns: NS_MUC }, history);
}

/**
 * When the room says it received the message (epoch ms): the last XEP-0203 `<delay>` that
 * the room itself signed (`from` = the room). The room appends its own after whatever the
 * sender put in, so a sender's forged delay, signed or not, is never the last one.
 */
export function roomStampOf(stanza: Element, roomJid: string): number | undefined {
  return stampSignedBy(stanza, roomJid);
}

/**
 * The last XEP-0203 `<delay>` stamp (epoch ms) signed by `signer` (a room, or our own server's
 * domain for a message it kept for us while we were away), or undefined.
 */
export function stampSignedBy(stanza: Element, signer: string): number | undefined {
  const by = bareJid(signer);
  let stamp: number | undefined;
  for (const child of stanza.getChildren("delay", NS_DELAY)) {
    const from = child.attrs.from ? bareJid(String(child.attrs.from)) : "";
    const at = Date.parse(String(child.attrs.stamp ?? ""));
    if (from === by && Number.isFinite(at)) stamp = at;
  }
  return stamp;
}

/** Whether the message carries any XEP-0203 delay (history, or a sender's claim of one). */
export function isDelayed(stanza: Element): boolean {
  return stanza.getChild("delay", NS_DELAY) !== undefined;
}

/**
 * The id the room gave the message (XEP-0359 `<stanza-id by="room">`). The room removes
 * stanza-ids that claim to be its own from what occupants send, so one signed by the room is
 * the room's; the last one wins for the same reason as the delay.
 */
export function roomStanzaIdOf(stanza: Element, roomJid: string): string | undefined {
  const room = bareJid(roomJid);
  let id: string | undefined;
  for (const child of stanza.getChildren("stanza-id", NS_SID)) {
    const by = child.attrs.by ? bareJid(String(child.attrs.by)) : "";
    if (by === room && child.attrs.id) id = String(child.attrs.id);
  }
  return id;
}

/** The sender's own id for the message (XEP-0359 `<origin-id>`), when it gave one. */
export function originIdOf(stanza: Element): string | undefined {
  const id = stanza.getChild("origin-id", NS_SID)?.attrs.id;
  return id ? String(id) : undefined;
}

/** An `<origin-id>` element: the same stanza sent twice carries the same one. */
export function originIdElement(id: string): Element {
  return xml("origin-id", { xmlns: NS_SID, id });
}

/** The origin-id in a stanza's text, read without parsing it (own echoes are not parsed). */
export function originIdInText(raw: string): string | undefined {
  // The room may write attributes in any order and either quote; a stanza-id shares the namespace.
  for (let at = raw.indexOf("<origin-id"); at >= 0; at = raw.indexOf("<origin-id", at + 1)) {
    const end = raw.indexOf(">", at);
    if (end < 0) return undefined;
    const tag = raw.slice(at, end);
    if (!tag.includes(NS_SID)) continue;
    const match = /\sid=(["'])([^"']*)\1/.exec(tag);
    if (match) return match[2];
  }
  return undefined;
}
