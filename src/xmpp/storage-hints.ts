/**
 * XEP-0334 hints on what the coordinator sends into a room: whether the room should keep it
 * in its history and archive.
 *
 * - A model's parts (tens of 200 KiB stanzas) are for the solvers now, not for the room to
 *   keep: `<no-store/>`.
 * - A protocol message without a `<body>` (a ModelValidationResult that found nothing, for
 *   instance) is kept by ejabberd 23.01 neither as history nor in the archive unless it
 *   carries `<store/>`; yet after a crash the coordinator looks for its own messages there
 *   (by origin-id) to tell what went out before (`sendRestoredTail`). So it asks: `<store/>`.
 *   A message with a body is kept anyway and gets no hint.
 */
import { xml, type Element } from "./stanza.js";

export const NS_HINTS = "urn:xmpp:hints";

const HINTS = ["store", "no-store", "no-permanent-store"] as const;

/** Adds the hint `stanza` needs (see above), unless it already carries one. */
export function hintStorage(stanza: Element, bulk: boolean): void {
  if (HINTS.some((hint) => stanza.getChild(hint, NS_HINTS))) return;
  if (bulk) stanza.append(xml("no-store", { xmlns: NS_HINTS }));
  else if (stanza.attrs.type === "groupchat" && !stanza.getChild("body")) stanza.append(xml("store", { xmlns: NS_HINTS }));
}
