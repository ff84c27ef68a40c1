/**
 * How a room the coordinator creates is configured (XEP-0045 §10.1.3, the owner's form):
 * real JIDs visible to occupants (identities then rest on accounts, not nicks), persistent
 * (it outlives its last occupant and, with the server's storage, a server restart), a
 * history long enough to cover a restart of the coordinator, and archived (XEP-0313) where
 * the server offers that. The form is asked for first and only the fields the room offers
 * are submitted, so a server that lacks one (no archive) still takes the rest.
 */
import { xml, type Element } from "./stanza.js";

export const NS_MUC_OWNER = "http://jabber.org/protocol/muc#owner";
const NS_DATA = "jabber:x:data";
const ROOMCONFIG = "http://jabber.org/protocol/muc#roomconfig";

/** Messages a created room keeps as history (what a restart can catch up on without an archive). */
export const CREATED_ROOM_HISTORY = 200;

/** The settings we want, by form field; each with a name for the log. */
export function wantedRoomConfig(historyLength = CREATED_ROOM_HISTORY): Array<{ field: string; value: string; what: string }> {
  return [
    { field: "muc#roomconfig_whois", value: "anyone", what: "real JIDs visible" },
    { field: "muc#roomconfig_persistentroom", value: "1", what: "persistent" },
    { field: "muc#roomconfig_historylength", value: String(historyLength), what: `history of ${historyLength}` },
    { field: "muc#roomconfig_defaulthistorymessages", value: String(historyLength), what: "" },
    // Prosody's mod_muc_mam and ejabberd's mod_mam name the switch differently.
    { field: "muc#roomconfig_enablearchiving", value: "1", what: "archived" },
    { field: "mam", value: "1", what: "archived" },
  ];
}

/** The fields a room's configuration form offers. */
export function formFields(result: Element | undefined): Set<string> {
  const form = result?.getChild("x", NS_DATA);
  return new Set((form?.getChildren("field") ?? []).map((f: Element) => String(f.attrs.var ?? "")).filter(Boolean));
}

export function configFormQuery(): Element {
  return xml("query", { xmlns: NS_MUC_OWNER });
}

/** The submitted form: our settings among those the room offers. */
export function configSubmission(wanted: ReadonlyArray<{ field: string; value: string }>): Element {
  return xml(
    "query",
    { xmlns: NS_MUC_OWNER },
    xml(
      "x",
      { xmlns: NS_DATA, type: "submit" },
      xml("field", { var: "FORM_TYPE" }, xml("value", {}, ROOMCONFIG)),
      ...wanted.map((w) => xml("field", { var: w.field }, xml("value", {}, w.value))),
    ),
  );
}
