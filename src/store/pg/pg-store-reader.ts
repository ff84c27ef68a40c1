/**
 * The whole shared PostgreSQL database as the operator's commands read it (export, verify,
 * backup's tally), beside running instances: every room unit, no lease, no writes. Opening
 * it checks the schema first, as a read-only open of the SQLite store does: a database that
 * holds no coordinator data, that a newer coordinator migrated, or that other code migrated
 * is refused with one line (a StoreError), never read.
 *
 * Export runs the SQLite store's export code unchanged: the session is loaded into memory
 * first (its events, archive row and artefacts, from the one room that holds it) and handed
 * to it as an ExportSource. Verify reads room by room, session by session
 * (programs/verify-report.ts); backup takes a snapshot whose sessions it counts (pg-backup.ts).
 */
import type pg from "pg";
import { maskedDatabaseUrl, PASSWORD_MASK, splitDatabaseUrl } from "../../config/shared-settings.js";
import type { Session, SessionId } from "../../session/types.js";
import { StoreError } from "../errors.js";
import { ExportError, type ExportSource } from "../export.js";
import type { Artefact, StoredEvent } from "../../host/journal-records.js";
import { checkSchema, SchemaMismatchError, SchemaTooNewError } from "./migrations.js";
import { PgRoomReader } from "./pg-room-reader.js";
import { openPool, withConnection } from "./pool.js";
import { RoomLeases, type LeaseListing, type Queryable } from "./room-lease.js";

/** The oldest schema this reader reads: journal_artefacts came with migration 3. */
const READABLE_FROM_VERSION = 3;
/** The schema from which rows carry the build that wrote them and sent records their decisive digest. */
const BUILDS_FROM_VERSION = 5;

/** How many sessions a database holds: every (room, session) with events or an archive row, and the archived ones. */
export interface SessionTally {
  sessions: number;
  archived: number;
}

/** A session loaded into memory for export: everything export reads of it. */
export interface LoadedSession {
  readonly id: SessionId;
  readonly events: StoredEvent[];
  readonly archived: Session | undefined;
  readonly artefacts: Artefact[];
}

/**
 * The ExportSource of one loaded session, for `where` (the masked URL): the store holds no
 * other session, and no blobs (the shared store keeps values inline; export then reads the
 * formal model afresh, as it does for a SQLite store without them).
 */
export function exportSourceOf(where: string, loaded: LoadedSession): ExportSource {
  const mine = (sessionId: SessionId): boolean => sessionId === loaded.id;
  return {
    path: where,
    eventsOf: (sessionId) => (mine(sessionId) ? loaded.events : []),
    archivedSession: (id) => (mine(id) ? loaded.archived : undefined),
    artefacts: (sessionId, kind) => (mine(sessionId) ? loaded.artefacts.filter((a) => kind === undefined || a.kind === kind) : []),
    blobText: () => undefined,
  };
}

/** The sessions a database holds, read in one statement (so one snapshot), for a backup's tally. */
async function tallySessions(db: Queryable): Promise<SessionTally> {
  const result = await db.query<{ sessions: string; archived: string }>(
    `SELECT (SELECT count(*) FROM (SELECT room, session_id FROM journal_events UNION SELECT room, id FROM journal_archived) AS s)::text AS sessions,
            (SELECT count(*) FROM journal_archived)::text AS archived`,
  );
  const row = result.rows[0];
  return { sessions: Number(row?.sessions ?? 0), archived: Number(row?.archived ?? 0) };
}

/**
 * A whole shared database for reading (see the module comment): open with `open`, end with
 * `close`. Every failure to reach or read it at `open` is a StoreError whose one-line
 * message names the database by its masked URL.
 */
export class PgStoreReader {
  private constructor(
    private readonly pool: pg.Pool,
    /** The database's URL with its password masked, for messages. */
    readonly where: string,
    /** Its schema's version when opened (an older one is read as it is: see PgRoomReader). */
    readonly schemaVersion: number,
  ) {}

  /** Connects to the database at `url` and checks its schema (see the module comment); throws StoreError. */
  static async open(url: string, applicationName = "mfr-coordinator reader"): Promise<PgStoreReader> {
    const where = maskedDatabaseUrl(url);
    const pool = openPool({ url, applicationName, max: 2 });
    try {
      const version = await checkSchema(pool);
      if (version === 0) throw new StoreError("missing", `${where} holds no coordinator data yet (no schema of ours)`);
      if (version < READABLE_FROM_VERSION) {
        throw new StoreError("unwritable", `${where} uses an older schema (v${version}) than this coordinator reads; start a coordinator on it once to migrate it`);
      }
      return new PgStoreReader(pool, where, version);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw storeErrorOf(error, url, where);
    }
  }

  /** Every room unit with sessions (events or an archive row), in code-point order. */
  async rooms(): Promise<string[]> {
    const result = await this.pool.query<{ room: string }>(
      `SELECT room COLLATE "C" AS room FROM journal_events UNION SELECT room FROM journal_archived ORDER BY 1`,
    );
    return result.rows.map((row) => row.room);
  }

  /** The room units that hold a session (events or an archive row): one, unless ids were reused across rooms. */
  async roomsOf(sessionId: SessionId): Promise<string[]> {
    const result = await this.pool.query<{ room: string }>(
      `SELECT room COLLATE "C" AS room FROM journal_events WHERE session_id = $1
       UNION SELECT room FROM journal_archived WHERE id = $1 ORDER BY 1`,
      [sessionId],
    );
    return result.rows.map((row) => row.room);
  }

  /** One room unit's journal, for reading. */
  room(room: string): PgRoomReader {
    return new PgRoomReader(this.pool, room, this.schemaVersion >= BUILDS_FROM_VERSION);
  }

  /**
   * What export reads of a session, loaded from the room that holds it, as an ExportSource;
   * an unknown id gives an empty one (export says there is no such session). Throws
   * ExportError when the id is in more than one room: which one the operator means is not
   * for export to guess.
   */
  async exportSource(sessionId: SessionId): Promise<ExportSource> {
    const rooms = await this.roomsOf(sessionId);
    if (rooms.length > 1) throw new ExportError(`session "${sessionId}" is in more than one room of ${this.where} (${rooms.join(", ")})`);
    const room = rooms[0];
    if (room === undefined) return exportSourceOf(this.where, { id: sessionId, events: [], archived: undefined, artefacts: [] });
    const reader = this.room(room);
    const [events, archived, artefacts] = await Promise.all([reader.eventsOf(sessionId), reader.archivedSession(sessionId), reader.artefacts(sessionId)]);
    return exportSourceOf(this.where, { id: sessionId, events, archived, artefacts });
  }

  /**
   * Runs `fn` with a snapshot of the whole database exported for another session to take
   * (pg_dump --snapshot), and the tally of sessions in that very snapshot, so what a backup
   * reports is what its file holds. The snapshot lasts until `fn` settles (its transaction
   * stays open, read-only, on a connection of its own).
   */
  async withSnapshot<T>(fn: (snapshot: string, tally: SessionTally) => Promise<T>): Promise<T> {
    return withConnection(this.pool, async (client) => {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        const snapshot = (await client.query<{ id: string }>("SELECT pg_export_snapshot() AS id")).rows[0]!.id;
        return await fn(snapshot, await tallySessions(client));
      } finally {
        await client.query("ROLLBACK").catch(() => undefined);
      }
    });
  }

  /** Every room's lease now (store/pg/room-lease.ts), for `mfr-coordinator fleet`. */
  async leases(): Promise<LeaseListing> {
    return new RoomLeases(this.pool).listing();
  }

  /** Ends the connections. Idempotent. */
  async close(): Promise<void> {
    if (this.pool.ended) return;
    await this.pool.end();
  }
}

/**
 * A failure to open as a StoreError in one line. Other code's schema is "foreign", a newer
 * one "newer-schema", and anything the server or the network said (refused, no such
 * database, a wrong password) "unreachable"; the password is cut out of any message that
 * would repeat it.
 */
function storeErrorOf(error: unknown, url: string, where: string): StoreError {
  if (error instanceof StoreError) return error;
  if (error instanceof SchemaTooNewError) return new StoreError("newer-schema", `${where}: ${error.message}`, { cause: error });
  if (error instanceof SchemaMismatchError) return new StoreError("foreign", `${where}: ${error.message}`, { cause: error });
  const { password } = splitDatabaseUrl(url);
  const text = error instanceof Error ? error.message : String(error);
  const message = password ? text.split(password).join(PASSWORD_MASK) : text;
  return new StoreError("unreachable", `cannot read the database ${where}: ${message}`, { cause: error });
}
