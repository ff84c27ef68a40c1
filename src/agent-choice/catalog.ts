/**
 * Evidence about agents: who in the room the coordinator takes for an agent, and why. It
 * combines what peer profiles say, who is in the room now (with the identity behind each
 * nick), which Lingue features each occupant advertises, and what each identity has done
 * (protocol messages, being named in a consensus, typing commands), remembered across
 * sessions and restarts through an EvidenceJournal.
 *
 * Recognition goes by identity, not by nick: an agent stays an agent under a new nick, and
 * someone else who takes an agent's nick is not one. A profile names a nick, so it counts for
 * the nick and the nicks the same occupant had before renaming.
 *
 * Pure bookkeeping: the shell reports presence, disco#info answers and traffic, and persists
 * the rows this returns; nothing here talks to the network or the disk.
 */
import { EVIDENCE_ORDER, type Candidate, type EvidenceKind, type RoomView } from "../session/room-view.js";
import { compareNicks } from "../session/selection-match.js";
import type { AgentProfile } from "./agent-profile.js";
import { isLingue, specificModes, whatItDoes } from "./describe.js";
import { seenAgain, stableIdentity, type EvidenceRow, type StoredEvidenceKind } from "./evidence.js";

export type { EvidenceKind };
export { isLingue };

/** An occupant of the primary room, as the room tells it apart (see xmpp/rooms.ts). */
export interface OccupantFacts {
  nick: string;
  /** The identity key (occupant id, real JID or nick lineage). */
  identity: string;
  realJid?: string | undefined;
  /** Nicks it had before renaming to this one. */
  formerNicks?: readonly string[];
}

/** Someone to recognise: an occupant, or a 1:1 sender (no nick). */
export interface Someone {
  nick?: string | undefined;
  identity?: string | undefined;
  realJid?: string | undefined;
  formerNicks?: readonly string[] | undefined;
}

/** One line of the `agents` listing. */
export interface ListedAgent {
  nick: string;
  present: boolean;
  offers: string;
  evidence: EvidenceKind[];
  contributions: number;
  proposals: number;
  needsApproval: boolean;
  chair: boolean;
}

export interface CatalogOptions {
  /** The coordinator's own nick: never an agent, never queried. */
  selfNick?: string;
  /** The Chair's nick (`mfr:chairNick`): never a candidate for the work. */
  chairNick?: string;
  /** Evidence remembered from earlier runs. */
  evidence?: readonly EvidenceRow[];
  /** Most identities whose evidence is kept in memory (least recently seen go first). */
  maxIdentities?: number;
}

interface Occupant extends OccupantFacts {
  present: boolean;
  /** Increases on every join/leave, so the least recently seen can be dropped first. */
  seen: number;
}

const DEFAULT_MAX_IDENTITIES = 5000;
/** Departed occupants remembered (for the listing of absent agents). */
const MAX_ABSENT_OCCUPANTS = 500;
/** disco#info answers come from the network; an occupant's feature list is kept short. */
const MAX_FEATURES = 100;
const MAX_FEATURE_LENGTH = 300;
/** Stored kinds that make an agent (a `person` row says the opposite). */
const AGENT_KINDS = ["disco", "protocol", "consensus"] as const satisfies readonly StoredEvidenceKind[];

export class AgentCatalog {
  private readonly profiles = new Map<string, AgentProfile>();
  private readonly occupants = new Map<string, Occupant>();
  /** disco#info results per identity; `null` while the query is out. */
  private readonly discovered = new Map<string, string[] | null>();
  /** Evidence rows per stable identity, by kind. */
  private readonly evidence = new Map<string, Map<StoredEvidenceKind, EvidenceRow>>();
  private readonly selfKey: string | undefined;
  private readonly chairKey: string | undefined;
  private readonly maxIdentities: number;
  private clock = 0;

  constructor(profiles: readonly AgentProfile[] = [], opts: CatalogOptions = {}) {
    for (const profile of profiles) {
      const key = keyOf(profile.nick);
      if (!this.profiles.has(key)) this.profiles.set(key, profile);
    }
    this.selfKey = opts.selfNick === undefined ? undefined : keyOf(opts.selfNick);
    this.chairKey = opts.chairNick === undefined ? undefined : keyOf(opts.chairNick);
    this.maxIdentities = Math.max(1, opts.maxIdentities ?? DEFAULT_MAX_IDENTITIES);
    for (const row of opts.evidence ?? []) this.keep(row);
  }

  // ---- the room ---------------------------------------------------------------------------

  occupantJoined(facts: OccupantFacts): void {
    const key = keyOf(facts.nick);
    if (key === this.selfKey || key === "") return;
    this.occupants.set(key, { ...facts, formerNicks: [...(facts.formerNicks ?? [])], present: true, seen: ++this.clock });
    this.boundOccupants();
  }

  /** The occupant that left, as it was known. */
  occupantLeft(nick: string): OccupantFacts | undefined {
    const occupant = this.occupants.get(keyOf(nick));
    if (!occupant) return undefined;
    occupant.present = false;
    occupant.seen = ++this.clock;
    this.boundOccupants();
    return occupant;
  }

  occupant(nick: string): OccupantFacts | undefined {
    const o = this.occupants.get(keyOf(nick));
    return o?.present ? o : undefined;
  }

  /**
   * True exactly once per new identity: the caller then sends one disco#info query. Asking is
   * claiming: a second call returns false, so the room is never flooded with queries, and a
   * rejoin by the same identity reuses the cached answer.
   */
  needsDiscovery(nick: string): boolean {
    const occupant = this.occupants.get(keyOf(nick));
    if (!occupant?.present) return false;
    const identity = stableIdentity(occupant.identity);
    if (this.discovered.has(identity)) return false;
    this.discovered.set(identity, null);
    return true;
  }

  /** Records a disco#info answer; Lingue features are evidence (the row to persist is returned). */
  featuresDiscovered(nick: string, features: readonly string[], now: number): EvidenceRow | undefined {
    const occupant = this.occupants.get(keyOf(nick));
    if (!occupant) return undefined;
    const kept = [...new Set(features.filter((f) => typeof f === "string" && f.length <= MAX_FEATURE_LENGTH))].slice(0, MAX_FEATURES);
    this.discovered.set(stableIdentity(occupant.identity), kept);
    return kept.some(isLingue) ? this.note(occupant, "disco", now) : undefined;
  }

  // ---- evidence ---------------------------------------------------------------------------

  /** It sent a protocol message: an agent; contributions and proposals are counted. */
  noteProtocol(who: OccupantFacts, what: "contribution" | "proposal" | "other", now: number): EvidenceRow {
    return this.note(who, "protocol", now, { contributions: what === "contribution" ? 1 : 0, proposals: what === "proposal" ? 1 : 0 });
  }

  /** A Chair's consensus named it. */
  noteConsensus(nick: string, now: number): EvidenceRow | undefined {
    const occupant = this.occupants.get(keyOf(nick));
    return occupant?.present ? this.note(occupant, "consensus", now) : undefined;
  }

  /** It typed a command (and is not an agent): a person, never invited to work. */
  notePerson(who: OccupantFacts, now: number): EvidenceRow | undefined {
    if (this.isAgent(who)) return undefined;
    return this.note(who, "person", now);
  }

  /**
   * An agent, by the evidence: Lingue features, protocol messages or a consensus under its
   * identity (or its real JID), or a profile for its nick or a nick it had before.
   */
  isAgent(who: Someone): boolean {
    if (this.kindsOf(who).length > 0) return true;
    // A 1:1 message from an agent's account: the agent in the room under that real JID.
    const jid = who.realJid?.toLowerCase();
    return jid !== undefined && this.present().some((o) => o.realJid?.toLowerCase() === jid && this.kindsOf(o).length > 0);
  }

  /** A person: typed a command, and nothing says agent. */
  isPerson(who: Someone): boolean {
    return !this.isAgent(who) && who.identity !== undefined && this.rowsOf(who.identity).has("person");
  }

  // ---- views ------------------------------------------------------------------------------

  /** The occupant leading debates now: the one under the Chair's nick, else one whose profile marks it as the Chair. */
  presentChair(): OccupantFacts | undefined {
    const byNick = this.chairKey === undefined ? undefined : this.occupants.get(this.chairKey);
    if (byNick?.present) return byNick;
    return this.present().find((o) => this.profileFor(o)?.isChair);
  }

  /**
   * Who may be asked now: present occupants that are not the coordinator, the Chair, known
   * people, or anyone in `exclude` (the person asking); each with its evidence. Sorted by nick.
   */
  roomView(exclude: readonly Someone[] = []): RoomView {
    const chair = this.presentChair();
    const candidates = this.present()
      .filter((o) => o !== chair && !this.profileFor(o)?.isChair && !this.isPerson(o))
      .filter((o) => !exclude.some((x) => sameOccupant(x, o)))
      .map((o) => this.candidateOf(o));
    const here = new Set(candidates.map((c) => keyOf(c.nick)));
    const absent = this.knownAgents()
      .filter((a) => !a.present && !here.has(keyOf(a.nick)) && !a.chair)
      .map((a) => a.nick)
      .sort(compareNicks);
    return { candidates, absent };
  }

  /** Everyone the `agents` listing shows: present ones first, then known agents that are away. */
  listing(): ListedAgent[] {
    return this.knownAgents().sort((a, b) => Number(b.present) - Number(a.present) || compareNicks(a.nick, b.nick));
  }

  private knownAgents(): ListedAgent[] {
    const out: ListedAgent[] = [];
    const seen = new Set<string>();
    const add = (agent: ListedAgent) => {
      if (seen.has(keyOf(agent.nick))) return;
      seen.add(keyOf(agent.nick));
      out.push(agent);
    };
    const here = new Set<string>();
    for (const o of this.present()) {
      here.add(stableIdentity(o.identity));
      if (!this.isPerson(o)) add(this.listedPresent(o));
    }
    for (const [key, profile] of this.profiles) {
      if (key === this.selfKey) continue;
      add({ ...this.listedAway(profile.nick, profile), evidence: ["profile"], contributions: 0, proposals: 0 });
    }
    for (const [identity, rows] of this.evidence) {
      if (here.has(identity)) continue;
      const agentRows = AGENT_KINDS.map((k) => rows.get(k)).filter((r): r is EvidenceRow => r !== undefined);
      const latest = agentRows.sort((a, b) => b.lastSeen - a.lastSeen)[0];
      if (!latest || keyOf(latest.nick) === this.selfKey) continue;
      const protocol = rows.get("protocol");
      add({
        ...this.listedAway(latest.nick, undefined),
        evidence: EVIDENCE_ORDER.filter((k) => k !== "profile" && rows.has(k as StoredEvidenceKind)),
        contributions: protocol?.contributions ?? 0,
        proposals: protocol?.proposals ?? 0,
      });
    }
    return out;
  }

  private listedPresent(o: Occupant): ListedAgent {
    const c = this.candidateOf(o);
    const chair = Boolean(this.profileFor(o)?.isChair) || keyOf(o.nick) === this.chairKey;
    return { nick: o.nick, present: true, offers: c.offers, evidence: c.evidence, contributions: c.contributions, proposals: c.proposals, needsApproval: c.needsApproval, chair };
  }

  /** A known agent that is not in the room: what its profile (if any) says it offers. */
  private listedAway(nick: string, profile: AgentProfile | undefined): Pick<ListedAgent, "nick" | "present" | "offers" | "needsApproval" | "chair"> {
    return { nick, present: false, offers: whatItDoes({ profile, features: [] }, 90), needsApproval: profile?.requiresApproval ?? false, chair: Boolean(profile?.isChair) || keyOf(nick) === this.chairKey };
  }

  private candidateOf(o: Occupant): Candidate {
    const profile = this.profileFor(o);
    const features = this.featuresOf(o);
    const rows = this.rowsOf(o.identity);
    const protocol = rows.get("protocol");
    return {
      nick: o.nick,
      identity: o.identity,
      evidence: this.kindsOf(o),
      contributions: protocol?.contributions ?? 0,
      proposals: protocol?.proposals ?? 0,
      declared: {
        capabilities: (profile?.capabilities ?? []).join(", "),
        kinds: profile?.contributionKinds ?? [],
        description: profile?.description ?? "",
        modes: specificModes({ profile, features }).join(", "),
      },
      offers: whatItDoes({ profile, features }, 70),
      needsApproval: profile?.requiresApproval ?? false,
    };
  }

  /** The kinds of evidence that make `who` an agent, strongest first. */
  private kindsOf(who: Someone): EvidenceKind[] {
    const kinds = new Set<EvidenceKind>();
    if (this.profileFor(who)) kinds.add("profile");
    for (const identity of [who.identity, who.realJid ? `jid:${who.realJid.toLowerCase()}` : undefined]) {
      if (!identity) continue;
      const rows = this.rowsOf(identity);
      for (const k of AGENT_KINDS) if (rows.has(k)) kinds.add(k);
      if ((this.discovered.get(stableIdentity(identity)) ?? []).some(isLingue)) kinds.add("disco");
    }
    return EVIDENCE_ORDER.filter((k) => kinds.has(k));
  }

  private profileFor(who: Someone): AgentProfile | undefined {
    for (const nick of [who.nick, ...(who.formerNicks ?? [])]) {
      const profile = nick === undefined ? undefined : this.profiles.get(keyOf(nick));
      if (profile) return profile;
    }
    return undefined;
  }

  private featuresOf(o: Occupant): string[] {
    return this.discovered.get(stableIdentity(o.identity)) ?? [];
  }

  private present(): Occupant[] {
    return [...this.occupants.values()].filter((o) => o.present).sort((a, b) => compareNicks(a.nick, b.nick));
  }

  private rowsOf(identity: string): Map<StoredEvidenceKind, EvidenceRow> {
    return this.evidence.get(stableIdentity(identity)) ?? new Map();
  }

  private note(who: OccupantFacts, kind: StoredEvidenceKind, now: number, add?: { contributions?: number; proposals?: number }): EvidenceRow {
    const identity = stableIdentity(who.identity);
    const row = seenAgain(this.rowsOf(identity).get(kind), { identity, nick: who.nick, kind }, now, add);
    this.keep(row);
    return row;
  }

  private keep(row: EvidenceRow): void {
    const rows = this.evidence.get(row.identity) ?? new Map<StoredEvidenceKind, EvidenceRow>();
    rows.set(row.kind, row);
    // Most recently seen last, so the bound drops the least recently seen.
    this.evidence.delete(row.identity);
    this.evidence.set(row.identity, rows);
    for (const identity of this.evidence.keys()) {
      if (this.evidence.size <= this.maxIdentities) break;
      this.evidence.delete(identity);
    }
  }

  /** Departed occupants are remembered a while; the least recently seen go first. */
  private boundOccupants(): void {
    const absent = [...this.occupants.entries()].filter(([, o]) => !o.present).sort(([, a], [, b]) => a.seen - b.seen);
    for (const [key] of absent.slice(0, Math.max(0, absent.length - MAX_ABSENT_OCCUPANTS))) this.occupants.delete(key);
    for (const identity of this.discovered.keys()) {
      if (this.discovered.size <= this.maxIdentities) break;
      this.discovered.delete(identity);
    }
  }
}

function sameOccupant(x: Someone, o: OccupantFacts): boolean {
  if (x.identity !== undefined) return x.identity === o.identity;
  return x.nick !== undefined && keyOf(x.nick) === keyOf(o.nick);
}

function keyOf(nick: string): string {
  return nick.trim().toLowerCase();
}
