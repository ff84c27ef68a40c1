/**
 * How long to wait before the next attempt to reach the XMPP server: exponential backoff
 * with equal jitter, capped. Doubling spares a server that is coming back from a crowd of
 * clients retrying every second; the jitter spreads clients that lost it at the same
 * moment; the cap keeps a long outage from making us slow to notice the server is back.
 * Equal jitter (half fixed, half random) rather than full jitter, so a retry never comes
 * right on the heels of the failure before it.
 */
export interface BackoffSettings {
  /** The first delay's upper bound (default 1 s). */
  baseMs: number;
  /** No delay is longer than this (default 30 s). */
  capMs: number;
  /** A number in [0, 1); injectable so tests can pin the jitter. */
  random: () => number;
}

export const DEFAULT_BACKOFF: BackoffSettings = { baseMs: 1000, capMs: 30_000, random: Math.random };

export class Backoff {
  private failures = 0;

  constructor(private readonly settings: BackoffSettings = DEFAULT_BACKOFF) {}

  /** The delay before the next attempt; each call counts one more failed attempt. */
  next(): number {
    const { baseMs, capMs, random } = this.settings;
    // 2 ** 30 already exceeds any sensible cap; clamping the exponent keeps it finite.
    const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    const r = Math.min(Math.max(random(), 0), 1);
    return Math.round(ceiling / 2 + r * (ceiling / 2));
  }

  /** After a success: the next outage starts from the base delay again. */
  reset(): void {
    this.failures = 0;
  }
}
