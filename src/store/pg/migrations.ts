/**
 * The shared PostgreSQL store's schema: an ordered list of numbered SQL migrations, applied
 * when an instance starts. Several coordinator instances may start at once against one
 * database; `migrate` serialises them with a transaction-scoped advisory lock, so each
 * migration is applied exactly once, and all pending migrations of one start are applied in
 * one transaction (PostgreSQL's DDL is transactional): a failed start leaves the schema as
 * it was. A database whose schema is newer than this code is refused, never used: an older
 * instance must not write rows in a shape it does not know. So is one whose applied
 * migrations are not this code's (checked by name, version by version).
 *
 * Rule for adding a migration: append it with the next version; never edit or reorder one
 * that has been released (databases in the field have applied it as it was).
 */
import type { Pool, PoolClient } from "pg";

/** One step of the schema: `version` is its place in the order (1, 2, 3, … without gaps). */
export interface Migration {
  readonly version: number;
  /** A short description, stored with the version for people reading the database. */
  readonly name: string;
  /** The statements; run in the migrating transaction, so they must not manage transactions themselves. */
  readonly sql: string;
}

/**
 * The schema, in order. Migration 1: the room leases (which instance owns which room, and
 * the epoch that fences a former owner's late writes; see room-lease.ts). A released or
 * expired lease keeps its row, so a room's epoch never goes back. Migration 2: the session
 * journal (see pg-journal.ts), the shared counterpart of the SQLite store's events, sent,
 * archived_sessions and heard tables, each row tagged with the room unit it belongs to.
 * Migration 3: the journal's artefacts (what export reads back: journal_artefacts), and an
 * index on the archive by completion, for pruning. Migration 4: room presence and the agent
 * evidence. Migration 5: which build wrote each input and sent record, and the digest of what
 * a sent stanza decides (the SQLite store's schema v8).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "room leases",
    sql: `
      CREATE TABLE room_leases (
        room       text        PRIMARY KEY,
        owner      text        NOT NULL,
        epoch      bigint      NOT NULL CHECK (epoch > 0),
        expires_at timestamptz NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 2,
    name: "session journal",
    sql: `
      -- The durable log: one row per input, appended before the input is applied. seq is
      -- global across rooms and never reused; replay reads a room's live rows in seq order.
      -- live: the session is to be rebuilt at start (archiving clears it, keeping the rows).
      -- epoch: the room's lease epoch the row was written under (withFence checked it).
      CREATE TABLE journal_events (
        seq        bigserial PRIMARY KEY,
        room       text      NOT NULL,
        session_id text      NOT NULL,
        kind       text      NOT NULL,
        at         bigint    NOT NULL,
        live       boolean   NOT NULL,
        epoch      bigint    NOT NULL,
        input      json      NOT NULL
      );
      CREATE INDEX journal_events_live ON journal_events (room, seq) WHERE live;
      CREATE INDEX journal_events_by_session ON journal_events (session_id, seq);

      -- What was handed to the connection: one row per stanza, tied to the event whose step
      -- produced it and its place among that step's stanzas; a digest, not the stanza.
      CREATE TABLE journal_sent (
        seq        bigserial PRIMARY KEY,
        room       text      NOT NULL,
        session_id text      NOT NULL,
        event_seq  bigint    NOT NULL,
        position   integer   NOT NULL,
        at         bigint    NOT NULL,
        digest     text      NOT NULL,
        what       text      NOT NULL
      );
      CREATE INDEX journal_sent_by_session ON journal_sent (room, session_id, seq);

      -- Completed sessions, out of memory: the final session as JSON plus the columns a
      -- listing needs without parsing it.
      CREATE TABLE journal_archived (
        room         text   NOT NULL,
        id           text   NOT NULL,
        problem      text   NOT NULL,
        status       text   NOT NULL,
        started_at   bigint NOT NULL,
        completed_at bigint NOT NULL,
        archived_at  bigint NOT NULL,
        session      json   NOT NULL,
        PRIMARY KEY (room, id)
      );
      CREATE INDEX journal_archived_by_start ON journal_archived (room, started_at, id);

      -- What was taken in from each room, one row per key of a message (see heard-log.ts):
      -- recorded in the same transaction as the input it became.
      CREATE TABLE journal_heard (
        room text   NOT NULL,
        key  text   NOT NULL,
        at   bigint NOT NULL,
        PRIMARY KEY (room, key)
      );
    `,
  },
  {
    version: 3,
    name: "session artefacts",
    sql: `
      -- What export needs that the inputs do not carry (the merged TriG, validation
      -- reports), as the SQLite store's artefacts table: every one kept, in order (id).
      CREATE TABLE journal_artefacts (
        id         bigserial PRIMARY KEY,
        room       text      NOT NULL,
        session_id text      NOT NULL,
        kind       text      NOT NULL,
        at         bigint    NOT NULL,
        epoch      bigint    NOT NULL,
        content    text      NOT NULL
      );
      CREATE INDEX journal_artefacts_by_session ON journal_artefacts (room, session_id, id);
      -- Pruning by count judges archived sessions by completion, newest first.
      CREATE INDEX journal_archived_by_completion ON journal_archived (room, completed_at, id);
    `,
  },
  {
    version: 4,
    name: "room presence and agent evidence",
    sql: `
      -- Until when an instance heard each room (in it and caught up): where the next owner's
      -- catch-up starts. Keyed by the room's JID (a phase room has a row of its own).
      CREATE TABLE room_presence (
        room  text   PRIMARY KEY,
        until bigint NOT NULL
      );
      -- What the agent catalog learnt about agents (agent-choice/evidence.ts), shared by every
      -- instance: an upsert per identity and kind, as the SQLite store's agent_evidence.
      CREATE TABLE agent_evidence (
        identity      text    NOT NULL,
        kind          text    NOT NULL,
        nick          text    NOT NULL,
        first_seen    bigint  NOT NULL,
        last_seen     bigint  NOT NULL,
        contributions integer NOT NULL,
        proposals     integer NOT NULL,
        PRIMARY KEY (identity, kind)
      );
      CREATE INDEX journal_heard_by_time ON journal_heard (room, at);
    `,
  },
  {
    version: 5,
    name: "build ids and decisive digests",
    sql: `
      -- Which build wrote each record (build-info.ts: 0.1.0+813572e), so verify can say that
      -- a message differs because an earlier build worded it; NULL in rows written before.
      ALTER TABLE journal_events ADD COLUMN build text;
      ALTER TABLE journal_sent ADD COLUMN build text;
      -- The digest of what a sent stanza decides, its wording left out
      -- (host/decisive-digest.ts); NULL in rows written before.
      ALTER TABLE journal_sent ADD COLUMN decisive text;
    `,
  },
  {
    version: 6,
    name: "instances that claim rooms",
    sql: `
      -- Each instance that is claiming free rooms says so at each claim, until when
      -- (room-lease.ts, claimAny's share): instances share the free rooms among themselves.
      CREATE TABLE fleet_claimers (
        instance   text        PRIMARY KEY,
        seen_until timestamptz NOT NULL
      );
    `,
  },
];

/**
 * The key of the advisory lock that serialises migrations across instances: the bytes of
 * "mfr-mig" read as a number, so it is recognisable in pg_locks and unlikely to collide.
 */
export const MIGRATION_LOCK_KEY = 0x6d66722d6d6967n;

/** The table recording which migrations a database has applied. */
export const SCHEMA_TABLE = "mfr_schema_migrations";

/** The database's schema is newer than any migration this code knows: this code must not use it. */
export class SchemaTooNewError extends Error {
  readonly code = "SCHEMA_TOO_NEW";
  constructor(
    readonly databaseVersion: number,
    readonly codeVersion: number,
  ) {
    super(
      `the database's schema is at version ${databaseVersion}, newer than this coordinator knows ` +
        `(version ${codeVersion}): upgrade the coordinator; it will not use a schema it does not know`,
    );
    this.name = "SchemaTooNewError";
  }
}

/**
 * A migration the database has applied is not the one this code has under that version (a
 * migration edited after release, or two branches that each added their own version N):
 * the schema is not the one the code expects, and the code must not use it.
 */
export class SchemaMismatchError extends Error {
  readonly code = "SCHEMA_MISMATCH";
  constructor(
    readonly version: number,
    readonly databaseName: string,
    readonly codeName: string,
  ) {
    super(
      `the database's migration ${version} is "${databaseName}" but this coordinator's is "${codeName}": ` +
        `the database was migrated by other code; it will not use a schema it does not know`,
    );
    this.name = "SchemaMismatchError";
  }
}

/** What one `migrate` call found and did. */
export interface MigrationOutcome {
  /** The database's version before the call (0: a new database). */
  readonly from: number;
  /** The version after the call: the newest the code knows. */
  readonly to: number;
  /** The versions this call applied (empty when another instance had applied them already). */
  readonly applied: readonly number[];
}

/** Throws unless versions run 1, 2, 3, … without gaps or repeats (a mistake in the code, caught before the database is touched). */
export function checkMigrationOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`migration ${index + 1} of the list has version ${migration.version}: versions must run 1, 2, 3, … in order`);
    }
  });
}

/**
 * Brings the database's schema up to the newest of `migrations`, under the migration lock:
 * a second instance starting at the same moment waits, then finds nothing left to apply.
 * Throws SchemaTooNewError (changing nothing) when the database is ahead of the code, and
 * SchemaMismatchError when a migration it applied is not the code's of that version.
 */
export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationOutcome> {
  checkMigrationOrder(migrations);
  const codeVersion = migrations.length;
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    try {
      const outcome = await migrateLocked(client, migrations, codeVersion);
      await client.query("COMMIT");
      return outcome;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
  } finally {
    client.release();
  }
}

async function migrateLocked(client: PoolClient, migrations: readonly Migration[], codeVersion: number): Promise<MigrationOutcome> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY.toString()]);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (
       version    integer     PRIMARY KEY,
       name       text        NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now()
     )`,
  );
  const from = await checkSchema(client, migrations);
  const applied: number[] = [];
  for (const migration of migrations.slice(from)) {
    await client.query(migration.sql);
    await client.query(`INSERT INTO ${SCHEMA_TABLE} (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
    applied.push(migration.version);
  }
  return { from, to: codeVersion, applied };
}

/**
 * The version of the database's schema (0: none yet), once it is known to be one these
 * migrations made: throws SchemaTooNewError when the database is ahead of them, and
 * SchemaMismatchError when a migration it applied is not theirs of that version. Reads only.
 */
export async function checkSchema(client: Pick<PoolClient, "query">, migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  const version = await schemaVersionOf(client);
  if (version > migrations.length) throw new SchemaTooNewError(version, migrations.length);
  if (version === 0) return 0;
  const recorded = await client.query<{ version: number; name: string }>(`SELECT version, name FROM ${SCHEMA_TABLE} ORDER BY version`);
  for (const { version: applied, name } of recorded.rows) {
    const known = migrations[applied - 1];
    if (known?.name !== name) throw new SchemaMismatchError(applied, name, known?.name ?? "(none)");
  }
  return version;
}

/** The newest migration a database has applied (0 when none, or when it has no schema table yet). */
export async function schemaVersionOf(client: Pick<PoolClient, "query">): Promise<number> {
  const exists = await client.query<{ table: string | null }>("SELECT to_regclass($1)::text AS table", [SCHEMA_TABLE]);
  if (!exists.rows[0]?.table) return 0;
  const result = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${SCHEMA_TABLE}`);
  return result.rows[0]?.version ?? 0;
}
