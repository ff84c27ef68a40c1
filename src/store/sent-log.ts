/**
 * The sent-record of SessionStore, on one open database (the sent and sent_tracking tables):
 * each stanza an event produced, noted when it was handed to the connection, so that a
 * restart can tell what was already said. Rows of an earlier build lack `decisive` and
 * `build` (NULL); they read back without them. Writes are the caller's to guard.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { SessionId } from "../session/types.js";
import type { SentRecord } from "../host/journal-records.js";

/** A sent row as read. */
interface SentRow {
  session_id: string;
  event_seq: number;
  position: number;
  at: number;
  digest: string;
  what: string;
  decisive: string | null;
  build: string | null;
}

/** A sent row as a record: the columns a row of an earlier build lacks (NULL) are left out. */
function sentRecordOf(r: SentRow): SentRecord {
  return {
    sessionId: r.session_id,
    eventSeq: r.event_seq,
    position: r.position,
    at: r.at,
    digest: r.digest,
    what: r.what,
    ...(r.decisive !== null ? { decisive: r.decisive } : {}),
    ...(r.build !== null ? { build: r.build } : {}),
  };
}

/** The sent-record of one store (see the header). */
export class SentLog {
  private readonly recordSent: BetterSqlite3.Statement;
  private readonly sentOf: BetterSqlite3.Statement;
  private readonly trackedAfter: BetterSqlite3.Statement;

  constructor(
    db: BetterSqlite3.Database,
    /** The build id written with a record that names none. */
    private readonly build: string,
  ) {
    this.recordSent = db.prepare(
      "INSERT INTO sent (session_id, event_seq, position, at, digest, what, decisive, build) VALUES (@sessionId, @eventSeq, @position, @at, @digest, @what, @decisive, @build)",
    );
    this.sentOf = db.prepare("SELECT session_id, event_seq, position, at, digest, what, decisive, build FROM sent WHERE session_id = ? ORDER BY seq");
    this.trackedAfter = db.prepare("SELECT after_seq FROM sent_tracking WHERE id = 1");
  }

  /** Notes a stanza handed to the connection, with this store's build unless the record names one. */
  record(record: SentRecord): void {
    this.recordSent.run({ ...record, decisive: record.decisive ?? null, build: record.build ?? this.build });
  }

  /** What was recorded as sent for one session, in the order it was sent. */
  of(sessionId: SessionId): SentRecord[] {
    const rows = this.sentOf.all(sessionId) as SentRow[];
    return rows.map(sentRecordOf);
  }

  /** Events with a sequence number above this have their sends recorded; older ones predate the record. */
  trackedAfterSeq(): number {
    return (this.trackedAfter.get() as { after_seq: number } | undefined)?.after_seq ?? 0;
  }
}
