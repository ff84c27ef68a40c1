/**
 * The archive's and retention's statements on one open database, for SessionStore only
 * (through archived-sessions.ts): read one archived session, list and count them, archive
 * one (upsert its row and take its events out of replay, in one transaction) and prune. The
 * rule kept here: a session goes from live to archived atomically, and pruning deletes
 * everything of an archived session (events, artefacts, sent records, blobs, the row) in one
 * transaction, never touching a session id that has live events again. Writes are the
 * caller's to guard.
 */
import type BetterSqlite3 from "better-sqlite3";

/** An archived session's summary columns, as listed. */
export interface SummaryRow {
  id: string;
  problem: string;
  status: string;
  started_at: number;
  completed_at: number;
}

/** An archived session's row: its summary and the session as stored (JSON, blob references). */
export interface ArchivedRow extends SummaryRow {
  session: string;
}

/** What `archiveTx` writes: the summary, when it was archived, and the session as stored. */
export interface ArchiveRowInput {
  id: string;
  problem: string;
  status: string;
  startedAt: number;
  completedAt: number;
  archivedAt: number;
  session: string;
}

/** Which archived sessions `pruneTx` deletes: completed before `cutoff`, or beyond the newest `maxCount` (null: no bound). */
export interface PruneBounds {
  cutoff: number | null;
  maxCount: number | null;
}

/** The archive statements (see the header), prepared once; `pruneTx` returns how many sessions went. */
export function prepareArchive(db: BetterSqlite3.Database) {
  const archiveRow = db.prepare(`
    INSERT INTO archived_sessions (id, problem, status, started_at, completed_at, archived_at, session)
    VALUES (@id, @problem, @status, @startedAt, @completedAt, @archivedAt, @session)
    ON CONFLICT (id) DO UPDATE SET problem = excluded.problem, status = excluded.status, started_at = excluded.started_at,
      completed_at = excluded.completed_at, archived_at = excluded.archived_at, session = excluded.session`);
  const retire = db.prepare("UPDATE events SET live = 0 WHERE session_id = ? AND live = 1");
  const expired = db.prepare("SELECT id FROM archived_sessions WHERE completed_at < ?");
  const beyondCount = db.prepare("SELECT id FROM archived_sessions ORDER BY completed_at DESC, id DESC LIMIT -1 OFFSET ?");
  const isLive = db.prepare("SELECT 1 FROM events WHERE session_id = ? AND live = 1 LIMIT 1");
  const deleteEvents = db.prepare("DELETE FROM events WHERE session_id = ? AND live = 0");
  const deleteArtefacts = db.prepare("DELETE FROM artefacts WHERE session_id = ?");
  const deleteArchived = db.prepare("DELETE FROM archived_sessions WHERE id = ?");
  const deleteSent = db.prepare("DELETE FROM sent WHERE session_id = ?");
  const deleteBlobs = db.prepare("DELETE FROM blob_chunks WHERE session_id = ?");
  return {
    archived: db.prepare("SELECT id, problem, status, started_at, completed_at, session FROM archived_sessions WHERE id = ?"),
    listArchived: db.prepare(`
      SELECT id, problem, status, started_at, completed_at FROM archived_sessions
      WHERE @before IS NULL OR started_at < @before
      ORDER BY started_at DESC, id DESC LIMIT @limit`),
    countArchived: db.prepare("SELECT count(*) AS n FROM archived_sessions"),
    archiveTx: db.transaction((row: ArchiveRowInput) => {
      archiveRow.run(row);
      retire.run(row.id);
    }),
    pruneTx: db.transaction(({ cutoff, maxCount }: PruneBounds): number => {
      const doomed = new Set<string>();
      if (cutoff !== null) for (const { id } of expired.all(cutoff) as Array<{ id: string }>) doomed.add(id);
      if (maxCount !== null) for (const { id } of beyondCount.all(maxCount) as Array<{ id: string }>) doomed.add(id);
      let pruned = 0;
      for (const id of doomed) {
        // An archived id with live events was started again; leave all of it alone.
        if (isLive.get(id) !== undefined) continue;
        deleteEvents.run(id);
        deleteArtefacts.run(id);
        deleteArchived.run(id);
        deleteSent.run(id);
        deleteBlobs.run(id);
        pruned++;
      }
      return pruned;
    }),
  };
}
