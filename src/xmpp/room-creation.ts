/**
 * What happens to a room our join created (status 201): it is configured through the
 * owner's form as room-config.ts says. The rule it keeps: only the fields the room offers
 * are submitted (without the form, only the one every server knows), and a server that
 * refuses leaves the room as it is; that is logged, never fatal.
 */
import type { Logger } from "pino";
import type { XmppConnection } from "./connection.js";
import { configFormQuery, configSubmission, formFields, wantedRoomConfig } from "./room-config.js";
import type { RoomIdentities } from "./room-occupants.js";

/** A room we created, as its configuration sees and updates it. */
export interface CreatedRoom {
  readonly jid: string;
  /** Set once we configured the room we created as non-anonymous. */
  madeNonAnonymous: boolean;
  /** As seen at the latest join. */
  identities: RoomIdentities | undefined;
}

/**
 * A room we created is configured as room-config.ts says: real JIDs visible (identities
 * rest on accounts, not on nicks), persistent, with a history that covers a restart, and
 * archived where the server offers it. A server that refuses leaves the room as it is;
 * that is logged, not fatal. `identitiesChanged` is told when real JIDs became visible.
 */
export async function configureCreatedRoom(connection: XmppConnection, log: Logger, room: CreatedRoom, identitiesChanged: (identities: RoomIdentities) => void): Promise<void> {
  const form = await connection.iqGet(room.jid, configFormQuery());
  const offered = form.ok ? formFields(form.result) : new Set<string>();
  // Without the form, submit what every server knows: the rest may be refused as unknown.
  const wanted = wantedRoomConfig().filter((w) => (offered.size > 0 ? offered.has(w.field) : w.field === "muc#roomconfig_whois"));
  const answer = await connection.iqSet(room.jid, configSubmission(wanted));
  if (answer.ok) {
    const settings = [...new Set(wanted.map((w) => w.what).filter(Boolean))];
    const missing = ["persistent", "archived"].filter((what) => !settings.includes(what));
    room.madeNonAnonymous = wanted.some((w) => w.field === "muc#roomconfig_whois");
    log.info({ room: room.jid, settings, notOffered: missing }, `created the room and configured it: ${settings.join(", ")}`);
    if (missing.length > 0) log.warn({ room: room.jid, notOffered: missing }, "the server does not offer every setting that keeps what the room says across a restart; see docs/operating.md, \"Across an absence\"");
    if (room.madeNonAnonymous) {
      room.identities = { occupantIds: room.identities?.occupantIds ?? false, realJids: true };
      identitiesChanged(room.identities);
    }
  } else {
    log.warn({ room: room.jid, err: answer.error }, "could not configure the new room (real JIDs, persistence, history); identities rest on occupant ids or nicks");
  }
}
