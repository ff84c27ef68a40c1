/**
 * Room leases: which coordinator instance owns which room, when several share one
 * PostgreSQL database. At most one instance owns a room at a time; it holds a lease that
 * expires unless renewed, and every claim of a room bumps the room's epoch.
 *
 * Why a lease with an epoch, and not an advisory lock alone: an owner can stop without
 * knowing it (a GC pause, a stopped VM, a network partition). Its lock or its session is
 * gone, another instance takes the room over, and then the paused process resumes and
 * carries on writing as if it were still the owner. Nothing about the lock stops those late
 * writes. With an epoch, every write for a room goes through `withFence`, which checks in
 * the write's own transaction that the writer's epoch is still the room's current one (and
 * holds a key-share lock on the lease row until commit, so no claim can slip in between the
 * check and the commit): the late writes of a former owner fail with FencedOut and change
 * nothing.
 *
 * Nobody waits on a stopped owner. The locks are chosen so that only a claim and a write
 * exclude each other: a write takes `FOR KEY SHARE`, a renewal or release (an UPDATE of
 * non-key columns) takes `FOR NO KEY UPDATE`, which does not conflict with it, and a claim
 * takes `FOR UPDATE … SKIP LOCKED`, which passes over a row a write holds instead of
 * waiting for it. So a renewal never waits for the owner's own writes, and a standby's claim
 * never blocks while the owner is paused inside a write: it finds the row locked, does not
 * take the room, and asks again at its next renewal period. What ends such a paused write is
 * the database: the coordinator's connections end a transaction left idle for longer than
 * `writeIdleLimitMs` of the lease (see `sessionLimits`), which comes before the lease can run
 * out, so a pause inside a write holds the room no longer than a pause anywhere else.
 *
 * Time is the DATABASE's clock (`now()`) throughout: instances' clocks may disagree, the
 * database's is the one they share. A lease row is never deleted (release only ends it), so
 * a room's epoch only ever grows; that is what makes an old epoch stale forever.
 */
import type { ClientBase, Pool } from "pg";

/** Something that runs a query: a Pool, or a client checked out of one. */
export type Queryable = Pick<Pool, "query">;

/** An instance's part in sharing the free rooms (`claimAny`). */
export interface ClaimShare {
  /** The room units every instance wants (the profile's). */
  readonly units: number;
  /** How many of them this instance owns now. */
  readonly held: number;
  /** How long this claim says the instance is claiming: past it, the others no longer count it. */
  readonly seenMs: number;
}

/** A room's lease as the database holds it. */
export interface RoomLease {
  readonly room: string;
  /** The instance that claimed it (its own, stable-for-a-run identifier). */
  readonly owner: string;
  /** Bumped by every successful claim; a write is allowed only at the current epoch. */
  readonly epoch: number;
  /** By the database's clock. After it, anyone may claim the room. */
  readonly expiresAt: Date;
}

/** Every room's lease as the database holds it now, for the operator's `fleet` listing. */
export interface LeaseListing {
  /** The database's clock when it was read: expiries are compared with this, not with the reader's clock. */
  readonly at: Date;
  readonly leases: ReadonlyArray<RoomLease & { readonly claimedAt: Date }>;
  /** The instances that said at their last claim pass that they are claiming, and still count (`claimAny`'s share): owners below their limit, and standbys. */
  readonly claiming?: readonly string[];
}

/** A write for a room was refused: `epoch` is no longer the room's current epoch (another instance claimed it since). */
export class FencedOut extends Error {
  readonly code = "FENCED_OUT";
  constructor(
    readonly room: string,
    readonly epoch: number,
    /** The room's epoch now; undefined when the room has no lease at all. */
    readonly currentEpoch: number | undefined,
  ) {
    super(
      currentEpoch === undefined
        ? `write for room ${room} at epoch ${epoch} refused: the room has no lease`
        : `write for room ${room} at epoch ${epoch} refused: the room's lease is at epoch ${currentEpoch}`,
    );
    this.name = "FencedOut";
  }
}

interface LeaseRow {
  room: string;
  owner: string;
  epoch: string;
  expires_at: Date;
}

const LEASE_COLUMNS = "room, owner, epoch::text AS epoch, expires_at";

/** Throws unless `leaseMs` is a whole number of milliseconds from 1 ms to a day. */
export function checkLeaseMs(leaseMs: number): void {
  if (!Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > 86_400_000) {
    throw new RangeError(`a lease lasts a whole number of milliseconds from 1 to 86400000, not ${leaseMs}`);
  }
}

function epochOf(text: string): number {
  const epoch = Number(text);
  if (!Number.isSafeInteger(epoch)) throw new RangeError(`epoch ${text} is beyond the safe integers`);
  return epoch;
}

function leaseOf(row: LeaseRow): RoomLease {
  return { room: row.room, owner: row.owner, epoch: epochOf(row.epoch), expiresAt: row.expires_at };
}

/**
 * The room leases of one database. Every method is a single statement, atomic on its own:
 * two instances claiming one room at the same moment cannot both succeed.
 */
export class RoomLeases {
  constructor(private readonly db: Queryable) {}

  /**
   * Claims `room` for `owner` for `leaseMs`: succeeds only when the room has no lease or
   * its lease has expired (or was released) by the database's clock, and then the epoch
   * goes up by one (1 for a room never claimed). Undefined when someone holds the room
   * (this includes `owner` itself, which keeps its lease with `renew`), and when a write or
   * renewal has the room's row locked at this moment: the claim never waits.
   */
  async claim(room: string, owner: string, leaseMs: number): Promise<RoomLease | undefined> {
    checkLeaseMs(leaseMs);
    // A room never claimed gets its row; an expired one is taken only if nobody holds its
    // row: `SKIP LOCKED` passes over a row that a write of the owner (withFence's key-share
    // lock) or a renewal holds at this moment, so a claim never waits on a lock and never
    // ties up a connection. A room passed over is tried again at the next renewal period.
    const result = await this.db.query<LeaseRow>(
      `WITH fresh AS (
         INSERT INTO room_leases AS lease (room, owner, epoch, expires_at)
         VALUES ($1, $2, 1, now() + $3::double precision * interval '1 millisecond')
         ON CONFLICT (room) DO NOTHING
         RETURNING ${LEASE_COLUMNS}
       ), taken AS (
         UPDATE room_leases AS lease
         SET owner = $2, epoch = lease.epoch + 1, expires_at = now() + $3::double precision * interval '1 millisecond', claimed_at = now()
         WHERE lease.room IN (SELECT free.room FROM room_leases AS free WHERE free.room = $1 AND free.expires_at <= now() FOR UPDATE SKIP LOCKED)
         RETURNING ${LEASE_COLUMNS}
       )
       SELECT * FROM fresh UNION ALL SELECT * FROM taken`,
      [room, owner, leaseMs],
    );
    const row = result.rows[0];
    return row ? leaseOf(row) : undefined;
  }

  /**
   * Claims, in one statement, up to `max` of `rooms` that are free (never claimed, or their
   * lease expired or released) for `owner` for `leaseMs`, preferring them in the order given;
   * each claimed room's epoch goes up by one. As `claim`, it never waits: a row that a write
   * or renewal has locked at this moment is passed over (and tried at the next period).
   *
   * With `share`, the instance also says it is claiming (until `seenMs` from now) and takes
   * no more than its fair share of the `units` every instance wants: the units divided among
   * the instances claiming now, less the `held` ones it owns already. Instances started
   * together so share the rooms, and the rooms of one that died are shared by the others
   * that may take more. `max` 0 with a share only says it is claiming.
   * The rooms claimed, with their leases.
   */
  async claimAny(rooms: readonly string[], owner: string, leaseMs: number, max: number, share?: ClaimShare): Promise<Map<string, RoomLease>> {
    checkLeaseMs(leaseMs);
    if (rooms.length === 0 || (max < 1 && share === undefined)) return new Map();
    // `claimers` counts the others claiming now (our own row is written by `seen`, which the
    // statement's other parts do not see); `quota` is what this claim may take. `open` locks
    // (SKIP LOCKED) up to `quota` of the expired rows no one else has locked, so a claim at the
    // same moment finds the rest; `chosen` is the first `quota` of those and of the rooms
    // without a row, in the order given. A room without a row that another instance inserts
    // meanwhile is left to it (ON CONFLICT DO NOTHING, which waits for that insert's commit);
    // rows are inserted in the order given, which every instance shares (the profile's), so
    // two passes inserting at once never wait on each other in a ring.
    const result = await this.db.query<LeaseRow>(
      `WITH seen AS (
         INSERT INTO fleet_claimers (instance, seen_until)
         SELECT $2, now() + $6::double precision * interval '1 millisecond' WHERE $5::integer IS NOT NULL
         ON CONFLICT (instance) DO UPDATE SET seen_until = EXCLUDED.seen_until
       ), forgotten AS (
         DELETE FROM fleet_claimers WHERE $5::integer IS NOT NULL AND seen_until < now() - interval '1 hour' AND instance <> $2
       ), claimers AS (
         SELECT count(*) AS others FROM fleet_claimers WHERE seen_until > now() AND instance <> $2
       ), quota AS (
         SELECT CASE WHEN $5::integer IS NULL THEN $4::integer
                ELSE least($4::integer, greatest(0, ceil($5::double precision / (1 + claimers.others))::integer - $7::integer)) END AS n
         FROM claimers
       ), wanted AS (
         SELECT w.room, w.position FROM unnest($1::text[]) WITH ORDINALITY AS w(room, position)
       ), open AS (
         SELECT lease.room FROM room_leases AS lease JOIN wanted ON wanted.room = lease.room
         WHERE lease.expires_at <= now() ORDER BY wanted.position LIMIT (SELECT n FROM quota) FOR UPDATE OF lease SKIP LOCKED
       ), unclaimed AS (
         SELECT wanted.room FROM wanted WHERE NOT EXISTS (SELECT 1 FROM room_leases AS held WHERE held.room = wanted.room)
       ), chosen AS (
         SELECT wanted.room, wanted.position, (wanted.room IN (SELECT room FROM unclaimed)) AS fresh FROM wanted
         WHERE wanted.room IN (SELECT room FROM open) OR wanted.room IN (SELECT room FROM unclaimed)
         ORDER BY wanted.position LIMIT (SELECT n FROM quota)
       ), fresh AS (
         INSERT INTO room_leases AS lease (room, owner, epoch, expires_at)
         SELECT chosen.room, $2, 1, now() + $3::double precision * interval '1 millisecond' FROM chosen WHERE chosen.fresh ORDER BY chosen.position
         ON CONFLICT (room) DO NOTHING
         RETURNING ${LEASE_COLUMNS}
       ), taken AS (
         UPDATE room_leases AS lease
         SET owner = $2, epoch = lease.epoch + 1, expires_at = now() + $3::double precision * interval '1 millisecond', claimed_at = now()
         FROM chosen WHERE lease.room = chosen.room AND NOT chosen.fresh
         RETURNING ${LEASE_COLUMNS.split(", ").map((column) => `lease.${column}`).join(", ")}
       )
       SELECT * FROM fresh UNION ALL SELECT * FROM taken`,
      [rooms, owner, leaseMs, max, share?.units ?? null, share?.seenMs ?? 0, share?.held ?? 0],
    );
    return new Map(result.rows.map((row) => [row.room, leaseOf(row)]));
  }

  /**
   * Renews, in one statement, every lease in `held` that is still `owner`'s at its epoch and
   * still running (as `renew`, each row on its own terms: one that expired or changed hands
   * is not renewed, the others are). The rooms renewed, with their leases.
   */
  async renewAll(owner: string, held: ReadonlyArray<{ room: string; epoch: number }>, leaseMs: number): Promise<Map<string, RoomLease>> {
    checkLeaseMs(leaseMs);
    if (held.length === 0) return new Map();
    const result = await this.db.query<LeaseRow>(
      `UPDATE room_leases AS lease SET expires_at = now() + $4::double precision * interval '1 millisecond'
       FROM unnest($1::text[], $2::bigint[]) AS held(room, epoch)
       WHERE lease.room = held.room AND lease.epoch = held.epoch AND lease.owner = $3 AND lease.expires_at > now()
       RETURNING lease.room, lease.owner, lease.epoch::text AS epoch, lease.expires_at`,
      [held.map((h) => h.room), held.map((h) => String(h.epoch)), owner, leaseMs],
    );
    return new Map(result.rows.map((row) => [row.room, leaseOf(row)]));
  }

  /**
   * Extends the lease to `leaseMs` from now: succeeds only for the current owner at the
   * current epoch, and only before the lease has expired (an expired lease is not revived:
   * its owner claims again, under a new epoch). Undefined when it did not succeed.
   */
  async renew(room: string, owner: string, epoch: number, leaseMs: number): Promise<RoomLease | undefined> {
    checkLeaseMs(leaseMs);
    const result = await this.db.query<LeaseRow>(
      `UPDATE room_leases SET expires_at = now() + $4::double precision * interval '1 millisecond'
       WHERE room = $1 AND owner = $2 AND epoch = $3 AND expires_at > now()
       RETURNING ${LEASE_COLUMNS}`,
      [room, owner, epoch, leaseMs],
    );
    const row = result.rows[0];
    return row ? leaseOf(row) : undefined;
  }

  /**
   * Ends the lease now so another instance may claim the room at once. Only the current
   * owner at the current epoch can; true when it was and the lease was still running. The
   * row stays (with its epoch), so the epoch keeps growing across owners.
   */
  async release(room: string, owner: string, epoch: number): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE room_leases SET expires_at = now()
       WHERE room = $1 AND owner = $2 AND epoch = $3 AND expires_at > now()`,
      [room, owner, epoch],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Every room's lease, by owner and room, with the database's clock: one read, no lock taken. */
  async listing(): Promise<LeaseListing> {
    const result = await this.db.query<LeaseRow & { claimed_at: Date; at: Date }>(`SELECT ${LEASE_COLUMNS}, claimed_at, now() AS at FROM room_leases ORDER BY owner, room`);
    const at = result.rows[0]?.at ?? (await this.db.query<{ at: Date }>("SELECT now() AS at")).rows[0]!.at;
    // A database before migration 6 has no claimers' table (undefined_table): nobody is listed as claiming.
    const claimers = await this.db.query<{ instance: string }>("SELECT instance FROM fleet_claimers WHERE seen_until > now() ORDER BY instance").catch((err: unknown) => {
      if ((err as { code?: string }).code === "42P01") return { rows: [] as Array<{ instance: string }> };
      throw err;
    });
    return { at, leases: result.rows.map((row) => ({ ...leaseOf(row), claimedAt: row.claimed_at })), claiming: claimers.rows.map((row) => row.instance) };
  }

  /** The room's lease as stored (running, expired or released), or undefined for a room never claimed. */
  async current(room: string): Promise<RoomLease | undefined> {
    const result = await this.db.query<LeaseRow>(`SELECT ${LEASE_COLUMNS} FROM room_leases WHERE room = $1`, [room]);
    const row = result.rows[0];
    return row ? leaseOf(row) : undefined;
  }
}

/**
 * Runs `fn` in a transaction on `client` that first checks that `epoch` is still `room`'s
 * current epoch, holding a key-share lock on the lease row until the transaction ends: a
 * claim of the room cannot take the row meanwhile (it passes over it), so `fn`'s writes
 * commit before any new owner's epoch begins. Renewals are not held up by it.
 * Throws FencedOut (before `fn` runs; nothing written) when another instance has claimed
 * the room since. The transaction commits when `fn` resolves and rolls back when anything
 * throws. `client` must be a dedicated connection (checked out of a pool, as
 * withConnection in pool.ts does) not already in a transaction, and `fn` must do its writes
 * on that same client. A connection lost on the way rejects with the driver's error and
 * commits nothing.
 *
 * The check is on the epoch alone: a lease that expired with nobody having claimed the room
 * still fences correctly (no one else has written), and its owner learns of the expiry when
 * its renewal fails.
 */
export async function withFence<T>(
  client: ClientBase,
  room: string,
  epoch: number,
  fn: (client: ClientBase) => Promise<T>,
): Promise<T> {
  // A connection that breaks mid-transaction must fail this call, not crash the process
  // with an error event nobody hears (see withConnection in pool.ts).
  const onError = (): void => undefined;
  client.on("error", onError);
  try {
    return await fenced(client, room, epoch, fn);
  } finally {
    client.removeListener("error", onError);
  }
}

async function fenced<T>(client: ClientBase, room: string, epoch: number, fn: (client: ClientBase) => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await client.query<{ epoch: string }>(
      "SELECT epoch::text AS epoch FROM room_leases WHERE room = $1 FOR KEY SHARE",
      [room],
    );
    const row = result.rows[0];
    const current = row ? epochOf(row.epoch) : undefined;
    if (current !== epoch) throw new FencedOut(room, epoch, current);
    const value = await fn(client);
    await client.query("COMMIT");
    return value;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
