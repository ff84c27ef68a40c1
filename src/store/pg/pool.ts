/**
 * The connection pool to the shared PostgreSQL database. A pool of node-postgres: a
 * connection that breaks (the server restarted, the network dropped) is dropped from the
 * pool and the next query opens a new one. An idle connection that breaks emits an error
 * on the pool, which would crash the process if nobody listened: every pool opened here has
 * a listener, which reports the error and nothing else (the connection is already gone).
 */
import pg from "pg";

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
}

/** Opens a pool (no connection is made until the first query); end it with `pool.end()`. */
export function openPool(options: OpenPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 5,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
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
