/** Node refuses delays above 2^31-1 ms (about 24.8 days); longer waits are re-armed. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * How long past its instant a deadline may be held while the coordinator catches up on a
 * room (see `hold`): a room that stays out of reach longer does not keep sessions open forever.
 */
export const MAX_HOLD_MS = 120_000;

/**
 * One pending deadline per session, as the core asks (`schedule` / `unschedule`). The
 * timers are stored, replaced and cleared here, so none is ever leaked.
 *
 * While held (the coordinator is away from a room or catching up on what it said), a
 * deadline that comes due waits: an answer the room stamped before it may still be on its
 * way back, and must be taken in first. `fireDue(t)` fires those due by `t` (before an
 * answer stamped `t` is taken in); `release` fires the rest, oldest first. A deadline is
 * held at most MAX_HOLD_MS past its instant.
 */
export class DeadlineTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** The instant each armed timer is for. */
  private readonly armedAt = new Map<string, number>();
  /** Deadlines that came due while held: session → instant. */
  private readonly due = new Map<string, number>();
  private held = false;

  constructor(
    private readonly now: () => number,
    private readonly fire: (sessionId: string, at: number) => void,
    private readonly maxHoldMs = MAX_HOLD_MS,
  ) {}

  /** Arms the session's deadline at `at`, replacing the one it had. */
  schedule(sessionId: string, at: number): void {
    this.cancel(sessionId);
    // Already due while held: waiting now, not after a turn of the event loop, so that the
    // next `fireDue` sees it (a caught-up answer may have set it in the past).
    if (this.held && at <= this.now()) {
      this.comeDue(sessionId, at);
      return;
    }
    const delay = Math.max(0, at - this.now());
    const timer = setTimeout(() => {
      this.timers.delete(sessionId);
      this.armedAt.delete(sessionId);
      if (this.now() < at) this.schedule(sessionId, at);
      else this.comeDue(sessionId, at);
    }, Math.min(delay, MAX_DELAY_MS));
    this.timers.set(sessionId, timer);
    this.armedAt.set(sessionId, at);
  }

  private comeDue(sessionId: string, at: number): void {
    if (!this.held || this.now() >= at + this.maxHoldMs) {
      this.fire(sessionId, at);
      return;
    }
    this.due.set(sessionId, at);
    // Held no longer than its bound, even if the hold is never released.
    const timer = setTimeout(() => {
      this.timers.delete(sessionId);
      if (this.due.get(sessionId) !== at) return;
      this.due.delete(sessionId);
      this.fire(sessionId, at);
    }, Math.max(0, at + this.maxHoldMs - this.now()));
    this.timers.set(sessionId, timer);
  }

  /** Drops the session's deadline, if any. */
  cancel(sessionId: string): void {
    const timer = this.timers.get(sessionId);
    if (timer) clearTimeout(timer);
    this.timers.delete(sessionId);
    this.armedAt.delete(sessionId);
    this.due.delete(sessionId);
  }

  /** Drops every deadline (at stop). */
  cancelAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.armedAt.clear();
    this.due.clear();
  }

  /** Deadlines that come due from now on wait for `release` (or `fireDue`). */
  hold(): void {
    this.held = true;
  }

  /**
   * Fires the deadlines due at or before `upTo` (epoch ms, not after now), oldest first:
   * those held, and those whose timer has not run yet though their instant has passed.
   */
  fireDue(upTo: number): void {
    const by = Math.min(upTo, this.now());
    const armed = [...this.armedAt].filter(([id]) => !this.due.has(id));
    const ready = [...this.due, ...armed].filter(([, at]) => at <= by).sort((a, b) => a[1] - b[1]);
    for (const [sessionId, at] of ready) {
      this.cancel(sessionId);
      this.fire(sessionId, at);
    }
  }

  /** Deadlines wait no more: those that came due fire now, oldest first. */
  release(): void {
    this.held = false;
    const ready = [...this.due].sort((a, b) => a[1] - b[1]);
    for (const [sessionId, at] of ready) {
      this.cancel(sessionId);
      this.fire(sessionId, at);
    }
  }

  /** Whether deadlines wait (between `hold` and `release`). */
  get isHeld(): boolean {
    return this.held;
  }

  /** How many deadlines are armed. */
  get size(): number {
    return this.timers.size;
  }
}
