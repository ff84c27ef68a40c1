/**
 * The occupants of one room, as its presences tell them (XEP-0045), and who each one is
 * (occupant-identity.ts). The rule it keeps: an occupant's identity is settled when it
 * arrives and kept through presence updates and renames (status 303), never taken from the
 * nick alone; a message's stamped occupant id is trusted over the table, which may lag
 * behind presence.
 */
import { NS_OCCUPANT_ID, identityOf, type NickLineages } from "./occupant-identity.js";
import { NS_MUC_USER, bareJid, type Element } from "./stanza.js";

/** One occupant of a room, as its latest presence told it. */
export interface Occupant {
  nick: string;
  /** The occupant's real bare JID, when the room reveals it. */
  realJid: string | undefined;
  /** The XEP-0421 occupant id the room stamps, when it does. */
  occupantId: string | undefined;
  /** Who this occupant is across renames (see occupant-identity.ts); never just the nick. */
  identity: string;
  /** Nicks this occupant had before renaming to the current one, oldest first. */
  formerNicks: string[];
  role: string | undefined;
  affiliation: string | undefined;
}

/** What a room reveals about who its occupants are, as seen when we joined. */
export interface RoomIdentities {
  /** The room stamps XEP-0421 occupant ids. */
  occupantIds: boolean;
  /** We see occupants' real JIDs (non-anonymous room, or we moderate a semi-anonymous one). */
  realJids: boolean;
}

/** A room's table of occupants (other than us), under their current nicks. */
export interface OccupantTable {
  occupants: Map<string, Occupant>;
  lineages: NickLineages;
  /** Occupants that announced a rename (303), under their new nick, until its presence comes. */
  renaming: Map<string, Occupant>;
}

/** What a presence changed in the table that is news: an occupant arrived or left. */
export type OccupantChange = { kind: "joined"; occupant: Occupant } | { kind: "left"; nick: string } | undefined;

/** Applies the presence of another occupant (`nick`) to the table; returns the arrival or departure it made. */
export function applyOccupantPresence(table: OccupantTable, nick: string, stanza: Element, statuses: Set<string>, item: Element | undefined, unavailable: boolean): OccupantChange {
  const previous = table.occupants.get(nick);
  if (unavailable) {
    const newNick = statuses.has("303") && item?.attrs.nick ? String(item.attrs.nick) : undefined;
    if (previous && newNick) {
      // A rename: the same occupant under a new nick, whatever the room reveals.
      table.renaming.set(newNick, previous);
      if (previous.identity.startsWith("nick:")) table.lineages.rename(newNick, previous.identity);
    }
    return table.occupants.delete(nick) ? { kind: "left", nick } : undefined;
  }
  const facts = {
    nick,
    occupantId: occupantIdOf(stanza),
    realJid: item?.attrs.jid ? bareJid(String(item.attrs.jid)) : undefined,
  };
  const renamedFrom = table.renaming.get(nick);
  table.renaming.delete(nick);
  const occupant: Occupant = {
    ...facts,
    // A presence update (role, status) keeps the identity the occupant arrived with.
    identity: previous?.identity ?? identityOf(facts, () => table.lineages.arrive(nick)),
    formerNicks: previous?.formerNicks ?? (renamedFrom ? [...renamedFrom.formerNicks, renamedFrom.nick] : []),
    role: item?.attrs.role ? String(item.attrs.role) : undefined,
    affiliation: item?.attrs.affiliation ? String(item.attrs.affiliation) : undefined,
  };
  table.occupants.set(nick, occupant);
  return previous ? undefined : { kind: "joined", occupant };
}

/**
 * We are out of the room (a drop, or the room lost us): the table empties, and the nick
 * lineages wait, suspended, for whoever comes back at the next join.
 */
export function forgetOccupants(table: OccupantTable): void {
  table.lineages.suspend(table.occupants.values());
  table.occupants.clear();
  table.renaming.clear();
}

/**
 * How occupants can be told apart, read at a join from our self-presence and its `statuses`
 * (the table already holds everyone else: the room sends their presence before ours). Real
 * JIDs are visible in a non-anonymous room (status 100), to a moderator of a semi-anonymous
 * one, and in a room we configured as non-anonymous (`madeNonAnonymous`).
 */
export function identitiesAtJoin(table: OccupantTable, selfPresence: Element, statuses: Set<string>, madeNonAnonymous: boolean): RoomIdentities {
  const role = selfPresence.getChild("x", NS_MUC_USER)?.getChild("item")?.attrs.role;
  return {
    occupantIds: occupantIdOf(selfPresence) !== undefined,
    realJids: statuses.has("100") || role === "moderator" || madeNonAnonymous || [...table.occupants.values()].some((o) => o.realJid),
  };
}

/**
 * Who sent a message through the room under `nick`: the occupant id the message carries is
 * trusted over the table's occupant (see Rooms.senderOf).
 */
export function senderFrom(table: OccupantTable | undefined, nick: string, stanza: Element): Occupant {
  const known = table?.occupants.get(nick);
  const stamped = occupantIdOf(stanza);
  if (known && (!stamped || stamped === known.occupantId)) return known;
  // Not the occupant the table knows (or none): any real JID there is an earlier holder's
  // of the nick and says nothing about this sender, so only the stamp can speak for it.
  const facts = { nick, occupantId: stamped, realJid: undefined };
  return {
    ...facts,
    identity: identityOf(facts, () => known?.identity ?? `nick:${nick.toLowerCase()}`),
    formerNicks: known?.formerNicks ?? [],
    role: known?.role,
    affiliation: known?.affiliation,
  };
}

/** The XEP-0421 occupant id a stanza carries, if any. */
export function occupantIdOf(stanza: Element): string | undefined {
  const id = stanza.getChild("occupant-id", NS_OCCUPANT_ID)?.attrs.id;
  return id ? String(id) : undefined;
}
