/** Node refuses delays above 2^31-1 ms (about 24.8 days); longer waits are re-armed. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * One pending deadline per session, as the core asks (`schedule` / `unschedule`). The
 * timers are stored, replaced and cleared here, so none is ever leaked.
 */
export class DeadlineTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly now: () => number,
    private readonly fire: (sessionId: string, at: number) => void,
  ) {}

  schedule(sessionId: string, at: number): void {
    this.cancel(sessionId);
    const delay = Math.max(0, at - this.now());
    const timer = setTimeout(() => {
      this.timers.delete(sessionId);
      if (this.now() < at) this.schedule(sessionId, at);
      else this.fire(sessionId, at);
    }, Math.min(delay, MAX_DELAY_MS));
    this.timers.set(sessionId, timer);
  }

  cancel(sessionId: string): void {
    const timer = this.timers.get(sessionId);
    if (timer) clearTimeout(timer);
    this.timers.delete(sessionId);
  }

  cancelAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  get size(): number {
    return this.timers.size;
  }
}
