/**
 * The connection pool to the shared PostgreSQL database. A pool of node-postgres: a
 * connection that breaks (the server restarted, the network dropped) is dropped from the
 * pool and the next query opens a new one. An idle connection that breaks emits an error
 * on the pool, which would crash the process if nobody listened: every pool opened here has
 * a listener, which reports the error and nothing else (the connection is already gone).
 */
import pg from "pg";

/**
 * Limits the database enforces on each connection of a pool, sent with the connection's
 * start-up message (no extra round trip) so they hold from its first statement. Each is in
 * milliseconds; left out, the server's own setting holds (by default, no limit).
 */
export interface SessionLimits {
  /** `idle_in_transaction_session_timeout`: a transaction whose client says nothing for this long is ended, its locks with it. */
  readonly idleInTransactionMs?: number;
  /** `lock_timeout`: a statement that waits this long for a lock fails instead (SQLSTATE 55P03). */
  readonly lockTimeoutMs?: number;
  /** `statement_timeout`: a statement that runs this long is cancelled (SQLSTATE 57014). */
  readonly statementTimeoutMs?: number;
}

/** How to open the pool. */
export interface OpenPoolOptions {
  /** A `postgres://user:password@host:port/database` URL. */
  readonly url: string;
  /** Shown in pg_stat_activity, so a person can tell the instances apart (e.g. the instance's owner name). */
  readonly applicationName?: string;
  /** Most connections at once. Default 5: the coordinator's writes are small and short. */
  readonly max?: number;
  /** How long to wait for a new connection before failing. Default 5 s. */
  readonly connectionTimeoutMs?: number;
  /** Receives the error of an idle connection that broke; default: ignored (the pool already dropped it). */
  readonly onIdleError?: (err: Error) => void;
  /** What the database bounds on each connection (see SessionLimits). */
  readonly limits?: SessionLimits;
}

/** Opens a pool (no connection is made until the first query); end it with `pool.end()`. */
export function openPool(options: OpenPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 5,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
    ...startupLimits(options.limits),
  });
  const onIdleError = options.onIdleError ?? (() => undefined);
  pool.on("error", (err) => onIdleError(err));
  return pool;
}

/**
 * Runs `fn` with a connection of its own checked out of `pool` (for a transaction, such as
 * withFence's), and gives it back afterwards. A checked-out connection that breaks emits an
 * error that nobody would hear (the pool listens only to idle ones) and the process would
 * crash: here it is heard, `fn`'s next query fails instead, and the broken connection is
 * destroyed rather than returned to the pool.
 */
export async function withConnection<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error): void => {
    broken = err;
  };
  client.on("error", onError);
  try {
    return await fn(client);
  } finally {
    client.removeListener("error", onError);
    client.release(broken ?? false);
  }
}

/** The limits as node-postgres's start-up parameters (whole milliseconds; a limit of 0 or less is left out). */
function startupLimits(limits: SessionLimits | undefined): Pick<pg.PoolConfig, "idle_in_transaction_session_timeout" | "lock_timeout" | "statement_timeout"> {
  const ms = (value: number | undefined): number | undefined => (value !== undefined && value > 0 ? Math.ceil(value) : undefined);
  const idle = ms(limits?.idleInTransactionMs);
  const lock = ms(limits?.lockTimeoutMs);
  const statement = ms(limits?.statementTimeoutMs);
  return {
    ...(idle !== undefined ? { idle_in_transaction_session_timeout: idle } : {}),
    ...(lock !== undefined ? { lock_timeout: lock } : {}),
    ...(statement !== undefined ? { statement_timeout: statement } : {}),
  };
}
