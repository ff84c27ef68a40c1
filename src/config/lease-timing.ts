/**
 * The lease timing of several coordinators on one database (mfr:database), and what the
 * database is asked to bound because of it. One place, because three parts must agree: the
 * configuration refuses a timing that cannot work, the lease keeper renews and gives rooms up
 * by it (src/fleet/lease-keeper.ts), and every connection a fleet instance opens carries the
 * limits computed here (src/fleet/fleet.ts, src/store/pg/pool.ts).
 */

/** How long a lease lasts, how often it is renewed, and how long before its end the owner gives the room up. */
export interface LeaseTiming {
  readonly leaseMs: number;
  readonly renewMs: number;
  readonly marginMs: number;
}

/**
 * The least time a write may sit in its transaction between two statements before the
 * database ends it. Below about a second, an ordinary pause of the owner's event loop (a
 * garbage collection, a large stanza parsed) would end healthy writes and give rooms up.
 */
export const MIN_WRITE_IDLE_MS = 1000;

/**
 * How long one of the owner's transactions may sit idle (its client silent between two
 * statements) before the database ends it, releasing its locks: the lease less its margin
 * and one renewal period (3 s with the shipped 6/2/1 s).
 *
 * Why that much: an owner paused inside a write holds the lease row's key-share lock, and a
 * standby cannot claim the room while it is held. The owner sent its last renewal at most one
 * renewal period before it stopped, and the database lets the lease run out `leaseMs` after
 * that renewal; ending the transaction `leaseMs − marginMs − renewMs` after the owner fell
 * silent releases the lock before the lease can run out. So a pause inside a write delays a
 * takeover no more than a pause anywhere else: the standby claims at its first renewal period
 * after the expiry, within the lease plus one renewal period of the pause.
 */
export function writeIdleLimitMs(timing: LeaseTiming): number {
  return timing.leaseMs - timing.marginMs - timing.renewMs;
}

/**
 * Why `timing` cannot work, or undefined when it can: the renewal period must come before
 * the owner's own deadline, and the idle limit of a write (writeIdleLimitMs) must leave at
 * least MIN_WRITE_IDLE_MS.
 */
export function leaseTimingProblem(timing: LeaseTiming): { readonly field: keyof LeaseTiming; readonly message: string } | undefined {
  const { leaseMs, renewMs, marginMs } = timing;
  if (renewMs >= leaseMs - marginMs) return { field: "renewMs", message: "a renewal period shorter than the lease less its margin" };
  if (writeIdleLimitMs(timing) < MIN_WRITE_IDLE_MS) {
    return {
      field: "leaseMs",
      message: `a lease at least ${MIN_WRITE_IDLE_MS} ms longer than its margin plus one renewal period (${marginMs} + ${renewMs} ms): that difference is how long a write may stand idle in its transaction before the database ends it`,
    };
  }
  return undefined;
}
