/**
 * The coordinator's catalogue of agents: what their profiles say they can do, combined with
 * who is in the room right now and which Lingue features each occupant advertises.
 *
 * Pure bookkeeping: the shell reports presence and disco#info results; nothing here talks to
 * the network. Nicks are compared case-insensitively throughout, because people and Chair
 * agents write "prolog" for the agent whose profile says "Prolog".
 */
import { LINGUE } from "../protocol/vocab.js";
import type { AgentProfile } from "./agent-profile.js";

/** One known agent: from a profile, from the room (Lingue features or protocol traffic), or both. */
export interface CatalogEntry {
  /** The room nick when present (as the room spells it), otherwise the profile's nick. */
  nick: string;
  profile?: AgentProfile;
  present: boolean;
  /** disco#info features of the current occupant with this nick (empty until discovered). */
  features: string[];
  /** Advertises at least one Lingue feature. */
  lingue: boolean;
}

export interface CatalogOptions {
  /** The coordinator's own nick: never an entry, never queried. */
  selfNick?: string;
  /** Most room occupants without a profile to remember (absent ones are forgotten first). */
  maxUnprofiled?: number;
}

interface Occupant {
  nick: string;
  realJid: string | undefined;
  present: boolean;
  /** Sent protocol payloads: an agent even if it never answers disco#info. */
  spokeProtocol: boolean;
  /** Increases on every join/leave, so the least recently seen can be dropped first. */
  seen: number;
}

const DEFAULT_MAX_UNPROFILED = 1000;
/** disco#info answers come from the network; an occupant's feature list is kept short. */
const MAX_FEATURES = 100;
const MAX_FEATURE_LENGTH = 300;

export class AgentCatalog {
  private readonly profiles = new Map<string, AgentProfile>();
  private readonly occupants = new Map<string, Occupant>();
  /** disco#info results per occupant identity (nick + real JID); `null` while the query is out. */
  private readonly discovered = new Map<string, string[] | null>();
  private readonly selfKey: string | undefined;
  private readonly maxUnprofiled: number;
  private clock = 0;

  constructor(profiles: readonly AgentProfile[] = [], opts: CatalogOptions = {}) {
    for (const profile of profiles) {
      const key = keyOf(profile.nick);
      if (!this.profiles.has(key)) this.profiles.set(key, profile);
    }
    this.selfKey = opts.selfNick === undefined ? undefined : keyOf(opts.selfNick);
    this.maxUnprofiled = Math.max(1, opts.maxUnprofiled ?? DEFAULT_MAX_UNPROFILED);
  }

  occupantJoined(nick: string, realJid?: string): void {
    const key = keyOf(nick);
    if (key === this.selfKey || key === "") return;
    const previous = this.occupants.get(key);
    const jid = bareJid(realJid) ?? (previous?.present ? previous.realJid : undefined);
    this.occupants.set(key, {
      nick,
      realJid: jid,
      present: true,
      // Someone else under a known nick has not spoken the protocol yet.
      spokeProtocol: previous !== undefined && previous.realJid === jid ? previous.spokeProtocol : false,
      seen: ++this.clock,
    });
    this.bound();
  }

  occupantLeft(nick: string): void {
    const occupant = this.occupants.get(keyOf(nick));
    if (!occupant) return;
    occupant.present = false;
    occupant.seen = ++this.clock;
    this.bound();
  }

  /**
   * True exactly once per new occupant identity (nick + real JID): the caller then sends one
   * disco#info query. Asking is claiming: a second call returns false, so the room is never
   * flooded with queries, and a rejoin by the same identity reuses the cached answer.
   */
  needsDiscovery(nick: string): boolean {
    const occupant = this.occupants.get(keyOf(nick));
    if (!occupant?.present) return false;
    const identity = identityOf(occupant);
    if (this.discovered.has(identity)) return false;
    this.discovered.set(identity, null);
    this.boundDiscoveries();
    return true;
  }

  /** Records a disco#info answer. Lingue features make the occupant an agent even without a profile. */
  featuresDiscovered(nick: string, features: readonly string[]): void {
    const occupant = this.occupants.get(keyOf(nick));
    const identity = occupant ? identityOf(occupant) : `${keyOf(nick)}\u0000`;
    const kept = [...new Set(features.filter((f) => typeof f === "string" && f.length <= MAX_FEATURE_LENGTH))].slice(0, MAX_FEATURES);
    this.discovered.set(identity, kept);
    this.boundDiscoveries();
  }

  /** The occupant sent protocol payloads (a contribution, a proposal): it is an agent. */
  markAgent(nick: string): void {
    const occupant = this.occupants.get(keyOf(nick));
    if (occupant) occupant.spokeProtocol = true;
  }

  /**
   * Every known agent: all profiled agents (present or not), then occupants without a profile
   * that advertise Lingue features or have spoken the protocol. Humans are not entries.
   * Sorted by nick (case-insensitive) so listings and selections are stable.
   */
  entries(): CatalogEntry[] {
    const out: CatalogEntry[] = [];
    for (const [key, profile] of this.profiles) {
      if (key === this.selfKey) continue;
      const occupant = this.occupants.get(key);
      const present = occupant?.present ?? false;
      const features = present && occupant ? this.featuresOf(occupant) : [];
      out.push({ nick: present && occupant ? occupant.nick : profile.nick, profile, present, features, lingue: features.some(isLingue) });
    }
    for (const [key, occupant] of this.occupants) {
      if (this.profiles.has(key)) continue;
      const features = this.featuresOf(occupant);
      const lingue = features.some(isLingue);
      if (!lingue && !occupant.spokeProtocol) continue;
      out.push({ nick: occupant.nick, present: occupant.present, features, lingue });
    }
    return out.sort((a, b) => compareNicks(a.nick, b.nick));
  }

  /** The entry for a name, case-insensitively (profile nick or room nick). */
  find(name: string): CatalogEntry | undefined {
    const key = keyOf(name);
    return this.entries().find((e) => keyOf(e.nick) === key || (e.profile !== undefined && keyOf(e.profile.nick) === key));
  }

  presentAgents(): CatalogEntry[] {
    return this.entries().filter((e) => e.present);
  }

  /** True when an occupant with the Chair's nick is in the room now. */
  chairPresent(chairNick: string): boolean {
    return this.presentChair(chairNick) !== undefined;
  }

  /**
   * The room nick of the Chair present now: the occupant named `chairNick`, else a present
   * agent whose profile marks it as the Chair. Undefined when no Chair is in the room.
   */
  presentChair(chairNick: string): string | undefined {
    const byNick = this.occupants.get(keyOf(chairNick));
    if (byNick?.present) return byNick.nick;
    return this.presentAgents().find((e) => e.profile?.isChair)?.nick;
  }

  private featuresOf(occupant: Occupant): string[] {
    return this.discovered.get(identityOf(occupant)) ?? [];
  }

  /** Keeps at most `maxUnprofiled` occupants without a profile: absent ones go first, least recently seen first. */
  private bound(): void {
    const unprofiled = [...this.occupants.entries()].filter(([key]) => !this.profiles.has(key));
    let excess = unprofiled.length - this.maxUnprofiled;
    if (excess <= 0) return;
    const order = unprofiled.sort(([, a], [, b]) => Number(a.present) - Number(b.present) || a.seen - b.seen);
    for (const [key, occupant] of order) {
      if (excess-- <= 0) break;
      this.occupants.delete(key);
      this.discovered.delete(identityOf(occupant));
    }
  }

  /** The discovery cache is bounded too; forgetting an answer only means asking again later. */
  private boundDiscoveries(): void {
    const limit = this.maxUnprofiled + this.profiles.size + 16;
    for (const identity of this.discovered.keys()) {
      if (this.discovered.size <= limit) break;
      this.discovered.delete(identity);
    }
  }
}

/** Lingue features live under the Lingue namespace (`…/lingue/feature/lang/model-first-rdf`). */
export function isLingue(feature: string): boolean {
  return feature.startsWith(LINGUE);
}

/** Case-insensitive nick order, with the exact spelling as a tie-breaker so the order is total. */
export function compareNicks(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function keyOf(nick: string): string {
  return nick.trim().toLowerCase();
}

function bareJid(jid: string | undefined): string | undefined {
  const bare = jid?.split("/")[0]?.trim().toLowerCase();
  return bare ? bare : undefined;
}

function identityOf(occupant: Occupant): string {
  return `${keyOf(occupant.nick)}\u0000${occupant.realJid ?? ""}`;
}
