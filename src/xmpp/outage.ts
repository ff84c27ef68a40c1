/**
 * One outage of the connection to the XMPP server, from the moment it was lost (or the
 * first attempt to reach the server failed) to the moment it is back: the connection logs
 * one line when it begins and one when it ends, with its duration and how many attempts it
 * took, instead of a line per attempt.
 */
export interface OutageEnd {
  durationMs: number;
  attempts: number;
  /** The last reason an attempt failed, if any did. */
  lastError: string | undefined;
}

export class OutageTracker {
  private startedAt: number | undefined;
  private attempts = 0;
  private lastError: string | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  get inOutage(): boolean {
    return this.startedAt !== undefined;
  }

  /** Marks the connection lost; true when this begins a new outage (log it), false when one is already running. */
  begin(): boolean {
    if (this.startedAt !== undefined) return false;
    this.startedAt = this.now();
    this.attempts = 0;
    this.lastError = undefined;
    return true;
  }

  /** One more attempt to reach the server; returns its number within the outage. */
  attempt(): number {
    return ++this.attempts;
  }

  failed(reason: string): void {
    this.lastError = reason;
  }

  /** The connection is back: the outage's figures, or undefined when there was none. */
  end(): OutageEnd | undefined {
    if (this.startedAt === undefined) return undefined;
    const ended = { durationMs: this.now() - this.startedAt, attempts: this.attempts, lastError: this.lastError };
    this.startedAt = undefined;
    return ended;
  }
}
