/**
 * What happens to a room our join created (status 201): it is configured through the
 * owner's form as room-config.ts says, and given a subject unless it came with one. The rule
 * it keeps: only the fields the room offers are submitted (without the form, only the one
 * every server knows), and a server that refuses leaves the room as it is; that is logged,
 * never fatal. Nothing here touches a room we did not create, nor one we created before.
 */
import type { Logger } from "pino";
import type { XmppConnection } from "./connection.js";
import { configFormQuery, configSubmission, formFields, wantedRoomConfig } from "./room-config.js";
import type { RoomIdentities } from "./room-occupants.js";
import { xml } from "./stanza.js";

/** A room we created, as its configuration sees and updates it. */
export interface CreatedRoom {
  readonly jid: string;
  /** Set once we configured the room we created as non-anonymous. */
  madeNonAnonymous: boolean;
  /** As seen at the latest join. */
  identities: RoomIdentities | undefined;
  /** The room's subject as it came after our join (XEP-0045 §7.2.15), or changed since; undefined when none came. */
  readonly subject?: string | undefined;
}

/**
 * A room we created is configured as room-config.ts says: real JIDs visible (identities
 * rest on accounts, not on nicks), persistent, with a history that covers a restart, and
 * archived where the server offers it. A server that refuses leaves the room as it is;
 * that is logged, not fatal. `identitiesChanged` is told when real JIDs became visible.
 */
export async function configureCreatedRoom(connection: XmppConnection, log: Logger, room: CreatedRoom, identitiesChanged: (identities: RoomIdentities) => void, subject?: string): Promise<void> {
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
  if (subject) await giveSubject(connection, log, room, subject);
}

/**
 * A new room has an empty subject, which every client shows at each join ("Room subject
 * cleared"): the room we created gets `subject`, unless its subject came non-empty (a
 * server's default). Asked after the configuration: the room sends its subject right after
 * our join, so by the form's answer it has come. Our subject comes back to us from our own
 * nick, now and after every later join, where it ends the join's history as any subject does
 * (room-history-taking.ts); it is no input (xmpp/inbound.ts: our own echo).
 */
async function giveSubject(connection: XmppConnection, log: Logger, room: CreatedRoom, subject: string): Promise<void> {
  if (room.subject) {
    log.info({ room: room.jid, subject: room.subject }, "the room we created came with a subject; leaving it");
    return;
  }
  const sent = await connection.send(xml("message", { to: room.jid, type: "groupchat" }, xml("subject", {}, subject)));
  if (sent === "sent") log.info({ room: room.jid, subject }, "gave the room we created its subject");
  else log.warn({ room: room.jid, result: sent }, "could not give the room we created its subject");
}
