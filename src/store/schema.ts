/**
 * The store's tables and how a database gets from any older version to the current one.
 * Each migration runs in its own transaction, so a crash mid-migration leaves the previous
 * version intact; the version lives in a one-row table (not `PRAGMA user_version`) so it
 * can carry when the migration ran.
 */
import type BetterSqlite3 from "better-sqlite3";
import { StoreError } from "./errors.js";

export const SCHEMA_VERSION = 8;

interface Migration {
  /** The version this migration produces. */
  to: number;
  up(db: BetterSqlite3.Database): void;
}

const MIGRATIONS: readonly Migration[] = [
  {
    to: 1,
    up(db) {
      db.exec(`
        CREATE TABLE schema_version (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          version INTEGER NOT NULL,
          migrated_at INTEGER NOT NULL
        );

        -- The durable log: one row per input, appended before the input is applied.
        -- AUTOINCREMENT so a sequence number is never reused, even after pruning the newest rows.
        -- live = 1 while the session is to be rebuilt at start; archiving clears it but keeps
        -- the rows, which export still needs.
        CREATE TABLE events (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL,
          kind TEXT NOT NULL,
          at INTEGER NOT NULL,
          live INTEGER NOT NULL,
          input TEXT NOT NULL
        );
        CREATE INDEX events_by_session ON events (session_id, seq);
        -- Partial indexes: replay at start and the live test in append cost O(live events),
        -- however many archived events the table holds.
        CREATE INDEX events_live ON events (seq) WHERE live = 1;
        CREATE INDEX events_live_by_session ON events (session_id) WHERE live = 1;

        -- Completed sessions, out of memory: the final Session as JSON, plus the columns
        -- mfr-list and retention need without parsing it.
        CREATE TABLE archived_sessions (
          id TEXT PRIMARY KEY,
          problem TEXT NOT NULL,
          status TEXT NOT NULL,
          started_at INTEGER NOT NULL,
          completed_at INTEGER NOT NULL,
          archived_at INTEGER NOT NULL,
          session TEXT NOT NULL
        );
        CREATE INDEX archived_by_start ON archived_sessions (started_at, id);
        CREATE INDEX archived_by_completion ON archived_sessions (completed_at, id);

        -- What export needs that the inputs do not carry: the merged TriG, validation reports.
        CREATE TABLE artefacts (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL,
          kind TEXT NOT NULL,
          at INTEGER NOT NULL,
          content TEXT NOT NULL
        );
        CREATE INDEX artefacts_by_session ON artefacts (session_id, id);
      `);
    },
  },
  {
    to: 2,
    up(db) {
      db.exec(`
        -- What the coordinator really sent: one row per stanza handed to the connection,
        -- tied to the input whose step produced it (event_seq) and its place among that
        -- step's stanzas. Only a digest is kept: replay re-renders the stanza, so the
        -- digest proves "same bytes" without storing every model twice.
        CREATE TABLE sent (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL,
          event_seq INTEGER NOT NULL,
          position INTEGER NOT NULL,
          at INTEGER NOT NULL,
          digest TEXT NOT NULL,
          what TEXT NOT NULL
        );
        CREATE INDEX sent_by_session ON sent (session_id, event_seq, position);

        -- Events up to this sequence number were logged before sends were recorded: their
        -- stanzas count as sent (a database from v1 must not have its history re-sent).
        CREATE TABLE sent_tracking (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          after_seq INTEGER NOT NULL
        );
        INSERT INTO sent_tracking (id, after_seq) SELECT 1, coalesce(max(seq), 0) FROM events;
      `);
    },
  },
  {
    to: 3,
    up(db) {
      db.exec(`
        -- Evidence about agents (see agent-choice/evidence.ts), kept across restarts so an agent
        -- without a profile or Lingue features is still known as one: one row per identity
        -- key and kind (disco, protocol, consensus, person), with when it was first and last
        -- seen and how many contributions and proposals it sent.
        CREATE TABLE agent_evidence (
          identity TEXT NOT NULL,
          kind TEXT NOT NULL,
          nick TEXT NOT NULL,
          first_seen INTEGER NOT NULL,
          last_seen INTEGER NOT NULL,
          contributions INTEGER NOT NULL DEFAULT 0,
          proposals INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (identity, kind)
        );
        CREATE INDEX agent_evidence_by_last_seen ON agent_evidence (last_seen);
      `);
    },
  },
  {
    to: 4,
    up(db) {
      db.exec(`
        -- The readiness probe's one row (GET /readyz): rewritten at every probe, so a probe
        -- takes the same path an append does (write lock, WAL, disk) and a store that no
        -- longer takes writes says so before an input is lost.
        CREATE TABLE heartbeat (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          at INTEGER NOT NULL
        );
      `);
    },
  },
  {
    to: 5,
    up(db) {
      db.exec(`
        -- Large texts of a session (a contribution's Turtle, the merged model, its TriG, its
        -- formal part as JSON), written once by the model worker through its own connection
        -- and referred to by digest from events, archived sessions and artefacts, so the
        -- main thread never re-encodes or re-writes them (see blobs.ts). Written in chunks,
        -- one transaction each, so the worker never holds the write lock for long; a blob is
        -- whole once its \`chunks\` rows are all there.
        CREATE TABLE blob_chunks (
          session_id TEXT NOT NULL,
          digest TEXT NOT NULL,
          chunk INTEGER NOT NULL,
          chunks INTEGER NOT NULL,
          content TEXT NOT NULL,
          PRIMARY KEY (session_id, digest, chunk)
        );

        -- An artefact whose content is a blob: \`content\` is empty and \`blob\` its digest.
        ALTER TABLE artefacts ADD COLUMN blob TEXT;
      `);
    },
  },
  {
    to: 6,
    up() {
      // No table changes: from v6 an archived session refers to the long texts its events hold
      // (blob-json.ts, `$mfrEvent`). The version is raised so that an older coordinator, which
      // would read those references as data, refuses the store instead.
    },
  },
  {
    to: 7,
    up(db) {
      db.exec(`
        -- What was taken in from each room (heard-log.ts): one row per key of a message, so
        -- the room's history after an absence is taken in once. WITHOUT ROWID: the key is
        -- the row.
        CREATE TABLE heard (
          room TEXT NOT NULL,
          key TEXT NOT NULL,
          at INTEGER NOT NULL,
          PRIMARY KEY (room, key)
        ) WITHOUT ROWID;
        CREATE INDEX heard_by_time ON heard (room, at);

        -- Until when the coordinator was known to hear each room (in it, caught up).
        CREATE TABLE room_presence (
          room TEXT PRIMARY KEY,
          until INTEGER NOT NULL
        );
      `);
    },
  },
  {
    to: 8,
    up(db) {
      db.exec(`
        -- Which build wrote each record (build-info.ts: \`0.1.0+813572e\`), so verify can say
        -- that a message differs because an earlier build worded it: the build that logged an
        -- input, the build that sent a stanza. NULL in rows written before this version.
        ALTER TABLE events ADD COLUMN build TEXT;
        ALTER TABLE sent ADD COLUMN build TEXT;
        -- The digest of what a sent stanza decides, its wording left out
        -- (host/decisive-digest.ts): verify compares it strictly and the whole stanza's
        -- digest as wording. NULL in rows written before this version.
        ALTER TABLE sent ADD COLUMN decisive TEXT;
      `);
    },
  },
];

/** 0 for an empty database; throws `foreign` for some other program's SQLite file. */
export function schemaVersion(db: BetterSqlite3.Database, path: string): number {
  const hasVersionTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get() !== undefined;
  if (!hasVersionTable) {
    const { n } = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").get() as { n: number };
    if (n > 0) {
      // Adding our tables to someone else's database would be "recreating over existing data".
      throw new StoreError(
        "foreign",
        `${path} is a SQLite database but not a coordinator store; move it aside, or choose another data directory (mfr:dataDir or MFR_DATA_DIR)`,
      );
    }
    return 0;
  }
  const row = db.prepare("SELECT version FROM schema_version WHERE id = 1").get() as { version: number } | undefined;
  return row?.version ?? 0;
}

/** Throws a `newer-schema` StoreError when the file was written by a newer coordinator (a version above SCHEMA_VERSION); older versions pass. */
export function refuseNewer(version: number, path: string): void {
  if (version > SCHEMA_VERSION) {
    throw new StoreError(
      "newer-schema",
      `${path} was written by a newer coordinator (schema v${version}; this one knows up to v${SCHEMA_VERSION}); upgrade the coordinator, or restore a backup`,
    );
  }
}

/** Brings the database to SCHEMA_VERSION. The caller holds the process lock, so no one else migrates. */
export function migrate(db: BetterSqlite3.Database, path: string, now: () => number): void {
  const from = schemaVersion(db, path);
  refuseNewer(from, path);
  for (const migration of MIGRATIONS) {
    if (migration.to <= from) continue;
    db.transaction(() => {
      migration.up(db);
      db.prepare(
        "INSERT INTO schema_version (id, version, migrated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, migrated_at = excluded.migrated_at",
      ).run(migration.to, now());
    }).immediate();
  }
}
