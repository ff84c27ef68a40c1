/**
 * The store's side of agent evidence (agent-choice/evidence.ts): rows are written as the catalog
 * holds them (an upsert per identity and kind) and read back once at start. Bounded: rows not
 * seen within the archive's retention age go with the hourly prune, and at most
 * MAX_EVIDENCE_ROWS are kept, the least recently seen dropped first.
 */
import type BetterSqlite3 from "better-sqlite3";
import { STORED_EVIDENCE_KINDS, type EvidenceRow, type StoredEvidenceKind } from "../agent-choice/evidence.js";

export const MAX_EVIDENCE_ROWS = 20_000;

interface Row {
  identity: string;
  kind: string;
  nick: string;
  first_seen: number;
  last_seen: number;
  contributions: number;
  proposals: number;
}

/**
 * The agent-evidence statements on one open database, for SessionStore only: `save` upserts a
 * row per identity and kind, `load` reads them least recently seen first (rows of a kind no
 * longer known are skipped), `prune` applies the age and MAX_EVIDENCE_ROWS bounds. Writes are the caller's to guard (closed, read-only).
 */
export function prepareEvidence(db: BetterSqlite3.Database) {
  const save = db.prepare(`
    INSERT INTO agent_evidence (identity, kind, nick, first_seen, last_seen, contributions, proposals)
    VALUES (@identity, @kind, @nick, @firstSeen, @lastSeen, @contributions, @proposals)
    ON CONFLICT (identity, kind) DO UPDATE SET nick = excluded.nick, first_seen = excluded.first_seen,
      last_seen = excluded.last_seen, contributions = excluded.contributions, proposals = excluded.proposals`);
  const all = db.prepare("SELECT identity, kind, nick, first_seen, last_seen, contributions, proposals FROM agent_evidence ORDER BY last_seen, identity, kind");
  const olderThan = db.prepare("DELETE FROM agent_evidence WHERE last_seen < ?");
  const beyond = db.prepare(`DELETE FROM agent_evidence WHERE rowid IN (
    SELECT rowid FROM agent_evidence ORDER BY last_seen DESC, identity DESC, kind DESC LIMIT -1 OFFSET ?)`);
  const saveAll = db.transaction((rows: readonly EvidenceRow[]) => {
    for (const row of rows) save.run(row);
  });
  return {
    save(row: EvidenceRow): void {
      save.run(row);
    },
    /** Several rows in one transaction (agent-choice/evidence-batch.ts). */
    saveAll(rows: readonly EvidenceRow[]): void {
      saveAll(rows);
    },
    load(): EvidenceRow[] {
      return (all.all() as Row[]).filter((r) => isKind(r.kind)).map((r) => ({
        identity: r.identity,
        kind: r.kind as StoredEvidenceKind,
        nick: r.nick,
        firstSeen: r.first_seen,
        lastSeen: r.last_seen,
        contributions: r.contributions,
        proposals: r.proposals,
      }));
    },
    /** Forgets what was not seen since `cutoff` (when given) and keeps at most MAX_EVIDENCE_ROWS. */
    prune(cutoff: number | null): number {
      const aged = cutoff === null ? 0 : olderThan.run(cutoff).changes;
      return aged + beyond.run(MAX_EVIDENCE_ROWS).changes;
    },
  };
}

function isKind(kind: string): boolean {
  return (STORED_EVIDENCE_KINDS as readonly string[]).includes(kind);
}
