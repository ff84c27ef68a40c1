/**
 * Who an occupant of one room is, across renames and returns, from what the room reveals.
 *
 * A nick is not an identity: anyone may take a nick that is free. Strongest first:
 * - the real bare JID, where the room shows it to us: the same in every room, so an agent
 *   that contributes in one of the coordinator's rooms and proposes in another is one agent;
 * - the XEP-0421 occupant id the room stamps on presence and messages (stable per account
 *   and room, and the room strips forged ones, but different in each room by design);
 * - otherwise a nick lineage: it follows a rename (status 303) but not a departure, so a
 *   nick that leaves and comes back is someone new (`nick:alice#2`).
 */
export const NS_OCCUPANT_ID = "urn:xmpp:occupant-id:0";

export interface OccupantFacts {
  nick: string;
  occupantId: string | undefined;
  realJid: string | undefined;
}

/** The identity key of an occupant; nothing else should build one. */
export function identityOf(facts: OccupantFacts, lineage: () => string): string {
  if (facts.realJid) return `jid:${facts.realJid.toLowerCase()}`;
  if (facts.occupantId) return `occupant:${facts.occupantId}`;
  return lineage();
}

/**
 * What a rate limit counts against: the identity, except that a nick lineage that left and
 * came back (`nick:alice#2`) shares the bucket of its earlier self, so leaving and
 * rejoining does not buy a fresh allowance.
 */
export function rateLimitKey(identity: string): string {
  return identity.startsWith("nick:") ? identity.replace(/#\d+$/, "") : identity;
}

/** The identity key of a 1:1 sender outside any room: the bare JID the server vouches for. */
export function directIdentity(bareJid: string): string {
  return `jid:${bareJid.toLowerCase()}`;
}

/**
 * Nick lineages of one room. Arrivals of a nick are counted while we watch; a rename
 * hands the lineage to the new nick. Across our own rejoin (a reconnect), a nick present
 * before and after keeps its lineage: a swap while we were away cannot be seen.
 */
export class NickLineages {
  private readonly arrivals = new Map<string, number>();
  /** Lineages handed on by a rename, waiting for the new nick's presence. */
  private readonly renamed = new Map<string, string>();
  /** Lineages of the occupants present when we lost the room, until we are back in. */
  private readonly beforeRejoin = new Map<string, string>();

  /** The lineage of a nick that has just arrived. */
  arrive(nick: string): string {
    const key = nick.toLowerCase();
    const handedOn = this.renamed.get(key);
    if (handedOn) {
      this.renamed.delete(key);
      return handedOn;
    }
    const kept = this.beforeRejoin.get(key);
    if (kept) {
      this.beforeRejoin.delete(key);
      return kept;
    }
    const n = (this.arrivals.get(key) ?? 0) + 1;
    this.arrivals.set(key, n);
    return n === 1 ? `nick:${key}` : `nick:${key}#${n}`;
  }

  /** `from` is now called `to` (status 303): same occupant, same lineage. */
  rename(to: string, lineage: string): void {
    this.renamed.set(to.toLowerCase(), lineage);
  }

  /** We lost the room (reconnect): remember who was there. */
  suspend(present: Iterable<{ nick: string; identity: string }>): void {
    for (const o of present) if (o.identity.startsWith("nick:")) this.beforeRejoin.set(o.nick.toLowerCase(), o.identity);
  }

  /** We are back in the room: whoever did not reappear has left. */
  resume(): void {
    this.beforeRejoin.clear();
  }
}
