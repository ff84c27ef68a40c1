/**
 * Agent evidence on the shared PostgreSQL database (the agent_evidence table), as a room
 * unit's store (pg-room-store.ts) reads and writes it: shared by every instance, read once
 * at takeover, written in batches and pruned as the SQLite store does (agent-evidence.ts).
 * The rule kept here: a batch is written in one order on every instance, so that two
 * instances writing the same agents' rows at once wait for each other rather than deadlock.
 */
import type pg from "pg";
import type { EvidenceRow, StoredEvidenceKind } from "../../agent-choice/evidence.js";
import { STORED_EVIDENCE_KINDS } from "../../agent-choice/evidence.js";
import { MAX_EVIDENCE_ROWS } from "../agent-evidence.js";
import type { WriteOp } from "./pg-journal.js";

/** Every agent-evidence row, least recently seen first (rows of a kind no longer known are skipped). */
export async function loadEvidence(pool: pg.Pool): Promise<EvidenceRow[]> {
  const result = await pool.query<{ identity: string; kind: string; nick: string; first_seen: string; last_seen: string; contributions: number; proposals: number }>(
    "SELECT identity, kind, nick, first_seen::text AS first_seen, last_seen::text AS last_seen, contributions, proposals FROM agent_evidence ORDER BY last_seen, identity, kind",
  );
  return result.rows
    .filter((row) => (STORED_EVIDENCE_KINDS as readonly string[]).includes(row.kind))
    .map((row) => ({
      identity: row.identity,
      kind: row.kind as StoredEvidenceKind,
      nick: row.nick,
      firstSeen: Number(row.first_seen),
      lastSeen: Number(row.last_seen),
      contributions: row.contributions,
      proposals: row.proposals,
    }));
}

/** Writing a batch of rows (each as the catalog holds it now) as a step of a fenced transaction, in the one order (see the module comment). */
export function saveEvidenceOp(rows: readonly EvidenceRow[]): WriteOp<void> {
  const copy = [...rows].sort((a, b) => compareText(a.identity, b.identity) || compareText(a.kind, b.kind));
  return async (tx) => {
    for (const row of copy) {
      await tx.query(
        `INSERT INTO agent_evidence (identity, kind, nick, first_seen, last_seen, contributions, proposals)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (identity, kind) DO UPDATE SET nick = EXCLUDED.nick, first_seen = EXCLUDED.first_seen,
           last_seen = EXCLUDED.last_seen, contributions = EXCLUDED.contributions, proposals = EXCLUDED.proposals`,
        [row.identity, row.kind, row.nick, row.firstSeen, row.lastSeen, row.contributions, row.proposals],
      );
    }
  };
}

/** Deletes the rows not seen since `cutoff` (null: none by age), then all but the MAX_EVIDENCE_ROWS most recently seen. */
export async function pruneEvidence(tx: pg.ClientBase, cutoff: number | null): Promise<void> {
  if (cutoff !== null) await tx.query("DELETE FROM agent_evidence WHERE last_seen < $1", [cutoff]);
  await tx.query(
    `DELETE FROM agent_evidence WHERE (identity, kind) IN (
       SELECT identity, kind FROM agent_evidence ORDER BY last_seen DESC, identity DESC, kind DESC OFFSET $1)`,
    [MAX_EVIDENCE_ROWS],
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
