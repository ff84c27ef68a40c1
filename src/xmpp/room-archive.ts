/**
 * A room's archive (XEP-0313, Message Archive Management, on the room's JID): where the room
 * advertises `urn:xmpp:mam:2`, what it said after the last message taken in (or since an
 * instant, where the archive does not know that message) is asked for page by page
 * (XEP-0059 result sets) instead of the join's history, which a room caps at its history
 * length. Pure builders and readers; the paging lives in xmpp/rooms.ts.
 */
import { NS_DELAY, bareJid, xml, type Element } from "./stanza.js";
import { NS_SID } from "./room-history.js";

export const NS_MAM = "urn:xmpp:mam:2";
const NS_RSM = "http://jabber.org/protocol/rsm";
const NS_FORWARD = "urn:xmpp:forward:0";
const NS_DATA = "jabber:x:data";

/**
 * Messages asked for in one page. A server may cap it (Prosody at 50 unless
 * `max_archive_query_results` is raised: docs/operating.md, "Prosody"); fewer, larger pages
 * make a catch-up faster where each page costs in proportion to the archive.
 */
export const MAM_PAGE = 250;

/**
 * The query for the room's messages after the archive id `after` (a position: the last message
 * taken in, or the last of the page before), from `since` (epoch ms) on when given (the
 * window a catch-up falls back on where the archive has no position for it).
 */
export function archiveQuery(queryId: string, since: number | undefined, after: string | undefined, max = MAM_PAGE): Element {
  return xml(
    "query",
    { xmlns: NS_MAM, queryid: queryId },
    xml(
      "x",
      { xmlns: NS_DATA, type: "submit" },
      xml("field", { var: "FORM_TYPE", type: "hidden" }, xml("value", {}, NS_MAM)),
      ...(since !== undefined ? [xml("field", { var: "start" }, xml("value", {}, new Date(since).toISOString()))] : []),
    ),
    xml("set", { xmlns: NS_RSM }, xml("max", {}, String(max)), ...(after !== undefined ? [xml("after", {}, after)] : [])),
  );
}

/**
 * One archived message the room sends in answer to our query `queryId`: the message as it
 * was said, with the archive's instant and id added as the room's own delay and stanza-id,
 * appended last (room-history.ts reads the last ones the room signed), so the rest of the
 * inbound path reads it as any message the room gives back. Undefined for anything else,
 * including a result that does not come from the room itself.
 */
export function archivedMessageOf(stanza: Element, roomJid: string, queryId: string): Element | undefined {
  const room = bareJid(roomJid);
  if (bareJid(String(stanza.attrs.from ?? "")) !== room || String(stanza.attrs.from ?? "").includes("/")) return undefined;
  const result = stanza.getChild("result", NS_MAM);
  if (!result || result.attrs.queryid !== queryId) return undefined;
  const forwarded = result.getChild("forwarded", NS_FORWARD);
  const message = forwarded?.getChild("message");
  const stamp = forwarded?.getChild("delay", NS_DELAY)?.attrs.stamp;
  if (!message || stamp === undefined || !Number.isFinite(Date.parse(String(stamp)))) return undefined;
  message.append(xml("delay", { xmlns: NS_DELAY, from: room, stamp: String(stamp) }));
  if (result.attrs.id) message.append(xml("stanza-id", { xmlns: NS_SID, by: room, id: String(result.attrs.id) }));
  return message;
}

/** Whether a message is a MAM result at all (for our queries or not): never live input. */
export function isArchiveResult(stanza: Element): boolean {
  return stanza.getChild("result", NS_MAM) !== undefined;
}

/**
 * The end of one page (`<fin>`, which the IQ caller hands over as the result itself, or an
 * element holding it): whether the archive has no more, and where the next page starts.
 */
export function finOf(result: Element | undefined): { complete: boolean; last: string | undefined } {
  const fin = result?.name === "fin" && result.attrs.xmlns === NS_MAM ? result : result?.getChild("fin", NS_MAM);
  const last = fin?.getChild("set", NS_RSM)?.getChildText("last") ?? undefined;
  return { complete: fin?.attrs.complete === "true" || fin?.attrs.complete === "1", last: last === null ? undefined : last };
}
