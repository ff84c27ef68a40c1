/**
 * What the coordinator has seen of one identity, kept across sessions and restarts (the
 * store's `agent_evidence` table holds these rows as they are). One row per identity and kind:
 * - `disco`: it advertised Lingue features;
 * - `protocol`: it sent protocol messages (with how many contributions and proposals);
 * - `consensus`: a Chair's consensus named it;
 * - `person`: it typed a command, so it is a person, unless other evidence says agent.
 * A profile is evidence too, but it lives in its file and is read at start.
 */
export type StoredEvidenceKind = "disco" | "protocol" | "consensus" | "person";

export interface EvidenceRow {
  /** The stable identity key (see `stableIdentity`). */
  identity: string;
  /** The nick it had when last seen. */
  nick: string;
  kind: StoredEvidenceKind;
  firstSeen: number;
  lastSeen: number;
  contributions: number;
  proposals: number;
}

export const STORED_EVIDENCE_KINDS: readonly StoredEvidenceKind[] = ["disco", "protocol", "consensus", "person"];

/** Where evidence is kept between runs; the SQLite store implements it. */
export interface EvidenceJournal {
  loadEvidence(): EvidenceRow[];
  saveEvidence(row: EvidenceRow): void;
}

/**
 * The identity key evidence is kept under. Occupant ids and real JIDs are stable as they are;
 * a nick lineage (`nick:prolog#2`) is counted afresh by every process, so across restarts it
 * can only be the nick (`nick:prolog`): in a room that gives nothing better, evidence follows
 * the nick.
 */
export function stableIdentity(identity: string): string {
  return identity.startsWith("nick:") ? identity.replace(/#\d+$/, "") : identity;
}

/** A new row, or `row` seen again at `now`, with more contributions or proposals. */
export function seenAgain(
  row: EvidenceRow | undefined,
  fact: { identity: string; nick: string; kind: StoredEvidenceKind },
  now: number,
  add: { contributions?: number; proposals?: number } = {},
): EvidenceRow {
  return {
    identity: fact.identity,
    nick: fact.nick,
    kind: fact.kind,
    firstSeen: row?.firstSeen ?? now,
    lastSeen: Math.max(now, row?.lastSeen ?? now),
    contributions: (row?.contributions ?? 0) + (add.contributions ?? 0),
    proposals: (row?.proposals ?? 0) + (add.proposals ?? 0),
  };
}
