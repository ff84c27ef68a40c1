/**
 * Per-sender rate limit (a token bucket refilled continuously). A peer that floods gets
 * throttled, with one notice per episode, and the rest of the room is unaffected.
 * The table of senders is bounded so that a crowd of one-off senders cannot grow it.
 */
export class FloodGuard {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number; noticed: boolean }>();

  constructor(
    private readonly perMinute: number,
    private readonly maxSenders = 10_000,
  ) {}

  /**
   * Takes one token for `sender`. Returns "ok", "throttled-first" (tell them once) or
   * "throttled" (drop silently).
   */
  admit(sender: string, now: number): "ok" | "throttled-first" | "throttled" {
    let bucket = this.buckets.get(sender);
    if (!bucket) {
      if (this.buckets.size >= this.maxSenders) this.evictOldest();
      bucket = { tokens: this.perMinute, updatedAt: now, noticed: false };
      this.buckets.set(sender, bucket);
    }
    // Time that runs backwards (instants the room stamped, taken in after live ones) refills nothing.
    const elapsed = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (elapsed * this.perMinute) / 60_000);
    bucket.updatedAt = Math.max(now, bucket.updatedAt);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      if (bucket.tokens >= this.perMinute / 2) bucket.noticed = false;
      return "ok";
    }
    if (bucket.noticed) return "throttled";
    bucket.noticed = true;
    return "throttled-first";
  }

  private evictOldest(): void {
    const first = this.buckets.keys().next();
    if (!first.done) this.buckets.delete(first.value);
  }
}
