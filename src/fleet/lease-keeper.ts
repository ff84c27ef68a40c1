/**
 * The lease keeper: which of the rooms it wants one coordinator instance owns right now,
 * when several instances share one database. It claims free rooms (up to `maxRooms`),
 * renews the leases it holds, gives a room up the moment it can no longer be sure of it,
 * and releases everything on `stop()`. The caller joins a room on `onOwned` and stops
 * speaking in it and leaves on `onLost`.
 *
 * The rule it keeps: a room counts as owned only until the keeper's OWN deadline, measured
 * on this process's monotonic clock from the instant the last successful claim or renewal
 * was SENT: `sentAt + leaseMs − marginMs`. The database's lease runs from when the statement
 * executed, which is no earlier than when it was sent, so the keeper's deadline always comes
 * `marginMs` before the database lets anyone else claim the room (the margin covers the two
 * clocks running at slightly different rates). That deadline holds even when nothing
 * answers: a process that was paused (SIGSTOP, a stopped VM, a long GC) or cut off from the
 * database finds on waking that its deadline has passed and gives the room up, whatever
 * answer arrives afterwards; an answer that comes after the deadline never revives the room.
 * Should a paused process nonetheless write late (a write already on its way), the epoch
 * fences it: `withFence` in the store refuses a write whose epoch is no longer the room's.
 *
 * What "owned" means to the caller is `holds(room)`, which reads the clock at every call:
 * a caller about to speak in a room asks it then, and so never speaks past the deadline
 * even if the deadline's timer has not fired yet (timers run late after a pause).
 *
 * No SQL and no XMPP here: the leases are a `KeeperLeases` (the store's `RoomLeases` is
 * one), the clock and timers are injected (defaults: `performance.now()`, `setTimeout`).
 */
import type { ClaimShare } from "../store/pg/room-lease.js";

/** A lease as the keeper needs it back from a claim or a renewal: its epoch. */
export interface KeptLease {
  /** Bumped by every claim of the room; the caller fences its writes with it. */
  readonly epoch: number;
}

/**
 * The leases of the shared database as the keeper uses them; `RoomLeases` (src/store/pg/room-lease.ts)
 * is one. A claim and a renewal are each one statement for all the rooms they concern, so an
 * instance's cost of standing still does not grow with its rooms: they resolve to the rooms
 * that succeeded (a room missing was refused: someone holds it; the lease expired or changed
 * hands), and reject when the database could not be asked.
 */
export interface KeeperLeases {
  /**
   * Claims up to `max` of `rooms` that are free or expired, in the order given, for `owner`
   * for `leaseMs`; with `share`, no more than the instance's fair share of the units among
   * the instances claiming now, and it counts as claiming for `share.seenMs` (RoomLeases.claimAny).
   */
  claimAny(rooms: readonly string[], owner: string, leaseMs: number, max: number, share?: ClaimShare): Promise<ReadonlyMap<string, KeptLease>>;
  /** Extends each of the owner's running leases at its epoch to `leaseMs` from now. */
  renewAll(owner: string, held: ReadonlyArray<{ room: string; epoch: number }>, leaseMs: number): Promise<ReadonlyMap<string, KeptLease>>;
  /** Ends the owner's lease at `epoch` now; true when it was still running. */
  release(room: string, owner: string, epoch: number): Promise<boolean>;
}

/** The keeper's clock and timers; defaults are the process's monotonic clock and Node's timers. */
export interface KeeperClock {
  /** Monotonic milliseconds (never goes back; keeps counting while the process is paused). */
  now(): number;
  /** Calls `fn` after `ms`; the returned value is what `clearTimer` takes. */
  setTimer(fn: () => void, ms: number): unknown;
  /** Cancels a timer set by `setTimer` (a timer already fired or cleared is ignored). */
  clearTimer(timer: unknown): void;
}

/** Why the keeper gave a room up (the `why` of `onLost` and of the "lost" event). */
export type LossReason =
  /** The keeper's own deadline passed without a successful renewal sent in time. */
  | "lease ran out"
  /** The database refused the renewal: the lease expired there, or another instance holds the room. */
  | "renewal refused"
  /** A write (or renewal) was fenced out: another instance claimed the room since. */
  | "fenced out"
  /** The renewal could not reach the database. */
  | "database unreachable";

/** What the keeper did, for the log and the metrics. `at` is the keeper's monotonic clock. */
export type LeaseKeeperEvent =
  | { readonly kind: "claimed"; readonly room: string; readonly owner: string; readonly epoch: number; readonly at: number }
  /** The claim of `rooms` (one statement) could not reach the database. */
  | { readonly kind: "claim-failed"; readonly rooms: readonly string[]; readonly owner: string; readonly why: string; readonly at: number }
  | {
      readonly kind: "renewal-failed";
      readonly room: string;
      readonly owner: string;
      readonly epoch: number;
      readonly why: LossReason;
      readonly detail?: string;
      readonly at: number;
    }
  | {
      readonly kind: "lost";
      readonly room: string;
      readonly owner: string;
      readonly epoch: number;
      readonly why: LossReason;
      readonly at: number;
    }
  | {
      readonly kind: "released";
      readonly room: string;
      readonly owner: string;
      readonly epoch: number;
      /** False when the release did not end a running lease (it had ended) or could not reach the database. */
      readonly ok: boolean;
      readonly detail?: string;
      readonly at: number;
    };

/** How to run a keeper. */
export interface LeaseKeeperOptions {
  /** This instance's owner name, stable for the run (the leases' `owner`). */
  readonly owner: string;
  /** The rooms (units: a primary room with its phase rooms and log room) this instance may own, in the order to claim them. */
  readonly rooms: readonly string[];
  /** The leases of the shared database. */
  readonly leases: KeeperLeases;
  /** Most rooms owned at once (`mfr:maxRoomsPerInstance`); default: all of `rooms`. */
  readonly maxRooms?: number;
  /**
   * Whether the first claim pass of an instance that wants several rooms only says it is
   * claiming, so instances started together share the rooms (claimFree). Default true.
   */
  readonly announceFirst?: boolean;
  /** How long a claim or renewal holds the room in the database. Default 6000. */
  readonly leaseMs?: number;
  /** How often leases are renewed and free rooms tried. Default 2000. */
  readonly renewMs?: number;
  /** How long before `sentAt + leaseMs` the keeper gives a room up. Default 1000. */
  readonly marginMs?: number;
  /** The room is the caller's: it joins it and catches up, fencing its writes with `epoch`. */
  readonly onOwned: (room: string, epoch: number) => void;
  /** The room is no longer the caller's: it stops speaking in it at once and leaves it. */
  readonly onLost: (room: string, why: LossReason) => void;
  /** Receives every claim, failure, loss and release, for the log and metrics. */
  readonly onEvent?: (event: LeaseKeeperEvent) => void;
  /** Default: `performance.now()` and Node's timers (unref'd: they never keep the process alive). */
  readonly clock?: KeeperClock;
}

/** The default timing: a lease of 6 s, renewed every 2 s, given up by the keeper 1 s before it runs out. */
export const DEFAULT_LEASE_MS = 6000;
/** See DEFAULT_LEASE_MS. */
export const DEFAULT_RENEW_MS = 2000;
/** See DEFAULT_LEASE_MS. */
export const DEFAULT_MARGIN_MS = 1000;

/** The process's monotonic clock and Node's timers, unref'd. */
export const PROCESS_CLOCK: KeeperClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimer: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

interface Held {
  readonly epoch: number;
  /** The keeper's own deadline: the room counts as owned strictly before it. */
  deadline: number;
  deadlineTimer: unknown;
  renewing: boolean;
}

/**
 * Keeps the leases of one instance (see the module comment). Construct, then `start()`;
 * `stop()` releases every room. `onOwned` and `onLost` come from the keeper's timers and
 * the leases' answers, never from within `start`, `holds` or `stop`; `fencedOut` calls
 * `onLost` before it returns. Every renewal period sends one statement renewing the rooms
 * held (a room whose renewal is still on its way is not in it: a renewal that hangs is not
 * doubled, and the room is lost at the deadline) and one claiming free rooms.
 */
export class LeaseKeeper {
  private readonly owner: string;
  private readonly rooms: readonly string[];
  private readonly leases: KeeperLeases;
  private readonly maxRooms: number;
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly marginMs: number;
  private readonly clock: KeeperClock;
  private readonly held = new Map<string, Held>();
  private claiming = false;
  /** The first claim pass has said this instance is claiming (see claimFree). */
  private announced = false;
  private started = false;
  private stopped = false;
  /** Set when `stop` has resolved: not even events any more. */
  private silent = false;
  private tickTimer: unknown;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.owner = options.owner;
    this.rooms = [...new Set(options.rooms)];
    this.leases = options.leases;
    this.maxRooms = options.maxRooms ?? this.rooms.length;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.renewMs = options.renewMs ?? DEFAULT_RENEW_MS;
    this.marginMs = options.marginMs ?? DEFAULT_MARGIN_MS;
    this.clock = options.clock ?? PROCESS_CLOCK;
    checkTiming(this.leaseMs, this.renewMs, this.marginMs);
    if (!Number.isInteger(this.maxRooms) || this.maxRooms < 0) {
      throw new RangeError(`maxRooms is a whole number of rooms, not ${this.maxRooms}`);
    }
  }

  /** Starts claiming and renewing: the first claims are sent at once. Calling it again does nothing. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.tick();
  }

  /**
   * The epoch at which this instance owns `room` at this instant, or undefined. Reads the
   * clock: past the keeper's deadline it is undefined even before `onLost` has fired.
   */
  holds(room: string): number | undefined {
    if (this.stopped) return undefined;
    const held = this.held.get(room);
    return held && this.clock.now() < held.deadline ? held.epoch : undefined;
  }

  /** The rooms owned at this instant (as `holds` says), with their epochs. */
  owned(): Map<string, number> {
    const owned = new Map<string, number>();
    for (const room of this.held.keys()) {
      const epoch = this.holds(room);
      if (epoch !== undefined) owned.set(room, epoch);
    }
    return owned;
  }

  /**
   * The caller's write for `room` at `epoch` was fenced out (another instance claimed the
   * room): the room is lost now (`onLost(room, "fenced out")`, synchronously), unless the
   * keeper holds it at another epoch already.
   */
  fencedOut(room: string, epoch: number): void {
    const held = this.held.get(room);
    if (held?.epoch !== epoch) return;
    this.lose(room, held, this.clock.now() >= held.deadline ? "lease ran out" : "fenced out");
  }

  /**
   * A write for `room` at `epoch` failed: fenced out (another instance claimed the room), or
   * the database could not take it (or ended the transaction of a process that was paused in
   * it). Either way the room is lost now (`onLost`, synchronously; "lease ran out" when the
   * keeper's own deadline has passed, whatever the write said) and, when the database may
   * still hold the lease for us, handed back so that another instance (or this one, afresh)
   * need not wait for it to run out.
   */
  writeFailed(room: string, epoch: number, error: unknown): void {
    const held = this.held.get(room);
    if (held?.epoch !== epoch) return;
    // Past the keeper's own deadline the room was lost to the lease running out (a process
    // that wakes from a pause hears of its failed writes before its deadline's timer fires):
    // the failure is a consequence, not the cause.
    const why: LossReason = this.clock.now() >= held.deadline ? "lease ran out" : isFencedOut(error) ? "fenced out" : "database unreachable";
    this.lose(room, held, why);
  }

  /**
   * Releases every room owned and stops: no callback is called after `stop` is called, and
   * `holds` is undefined for every room from then on. Resolves when the releases have been
   * answered, or after `leaseMs` at most (by then the leases have run out anyway).
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.tickTimer !== undefined) this.clock.clearTimer(this.tickTimer);
    const releases = [...this.held].map(([room, held]) => {
      this.clock.clearTimer(held.deadlineTimer);
      return this.release(room, held.epoch);
    });
    this.held.clear();
    if (releases.length > 0) {
      let timer: unknown;
      await Promise.race([
        Promise.all(releases),
        new Promise<void>((resolve) => {
          timer = this.clock.setTimer(resolve, this.leaseMs);
        }),
      ]);
      this.clock.clearTimer(timer);
    }
    this.silent = true;
  }

  /** One renewal period: renew every room held, try the free ones, and come back in `renewMs`. */
  private tick(): void {
    if (this.stopped) return;
    this.tickTimer = this.clock.setTimer(() => this.tick(), this.renewMs);
    const due = [...this.held].filter(([, held]) => !held.renewing);
    if (due.length > 0) void this.renew(due);
    if (!this.claiming) void this.claimFree();
  }

  /** One statement renewing `due`; each room is then kept, or lost for its own reason. */
  private async renew(due: ReadonlyArray<[string, Held]>): Promise<void> {
    for (const [, held] of due) held.renewing = true;
    const sentAt = this.clock.now();
    let outcome: { renewed: ReadonlyMap<string, KeptLease> } | { error: unknown };
    try {
      outcome = { renewed: await this.leases.renewAll(this.owner, due.map(([room, held]) => ({ room, epoch: held.epoch })), this.leaseMs) };
    } catch (error) {
      outcome = { error };
    }
    for (const [room, held] of due) {
      held.renewing = false;
      // Lost meanwhile (the deadline, a fence, stop): an answer does not revive it.
      if (this.stopped || this.held.get(room) !== held) continue;
      if (this.clock.now() >= held.deadline) {
        this.lose(room, held, "lease ran out");
        continue;
      }
      if ("error" in outcome) {
        const why: LossReason = isFencedOut(outcome.error) ? "fenced out" : "database unreachable";
        this.emit({ kind: "renewal-failed", room, owner: this.owner, epoch: held.epoch, why, detail: messageOf(outcome.error), at: this.clock.now() });
        this.lose(room, held, why);
        continue;
      }
      if (outcome.renewed.get(room)?.epoch !== held.epoch) {
        this.emit({ kind: "renewal-failed", room, owner: this.owner, epoch: held.epoch, why: "renewal refused", at: this.clock.now() });
        this.lose(room, held, "renewal refused");
        continue;
      }
      this.armDeadline(room, held, sentAt + this.leaseMs - this.marginMs);
    }
  }

  /**
   * Claims free rooms, in order, up to `maxRooms` held, in one statement. A claim unanswered
   * by its deadline could no longer count (what it won is handed back when the answer comes),
   * so the next period claims anew then: a claim that hangs does not end the standby.
   */
  private async claimFree(): Promise<void> {
    const wanted = this.rooms.filter((room) => !this.held.has(room));
    // The first pass of an instance that wants several rooms only says it is claiming: the
    // instances started with it then count each other at the next pass, and share the rooms.
    const announcing = !this.announced && this.rooms.length > 1 && this.options.announceFirst !== false;
    const capacity = announcing ? 0 : this.maxRooms - this.held.size;
    if (this.stopped || wanted.length === 0 || (capacity <= 0 && this.announced)) return;
    this.announced = true;
    this.claiming = true;
    let timer: unknown;
    try {
      await Promise.race([
        this.claim(wanted, capacity),
        new Promise<void>((resolve) => {
          timer = this.clock.setTimer(resolve, this.leaseMs - this.marginMs);
        }),
      ]);
    } finally {
      this.clock.clearTimer(timer);
      this.claiming = false;
    }
  }

  private async claim(wanted: readonly string[], max: number): Promise<void> {
    const sentAt = this.clock.now();
    let won: ReadonlyMap<string, KeptLease>;
    try {
      // Counted as claiming until two renewal periods from now (at most a lease): an instance
      // that died or stopped claiming drops out of the count no later than its leases run out.
      won = await this.leases.claimAny(wanted, this.owner, this.leaseMs, max, { units: this.rooms.length, held: this.held.size, seenMs: Math.min(2 * this.renewMs, this.leaseMs) });
    } catch (error) {
      if (!this.stopped) this.emit({ kind: "claim-failed", rooms: wanted, owner: this.owner, why: messageOf(error), at: this.clock.now() });
      return;
    }
    // In the order asked for, so `maxRooms` keeps the first ones when more came back than fit.
    for (const room of wanted) {
      const lease = won.get(room);
      if (lease) this.took(room, lease, sentAt);
    }
  }

  /** A claim won: the room counts as owned until `sentAt` + lease − margin, unless it came too late or is not wanted any more. */
  private took(room: string, lease: KeptLease, sentAt: number): void {
    const deadline = sentAt + this.leaseMs - this.marginMs;
    if (this.stopped || this.clock.now() >= deadline || this.held.has(room) || this.held.size >= this.maxRooms) {
      // Won too late to count (or not wanted any more): hand it back at once.
      void this.release(room, lease.epoch, this.stopped);
      return;
    }
    const held: Held = { epoch: lease.epoch, deadline, deadlineTimer: undefined, renewing: false };
    this.held.set(room, held);
    this.armDeadline(room, held, deadline);
    this.emit({ kind: "claimed", room, owner: this.owner, epoch: lease.epoch, at: this.clock.now() });
    this.options.onOwned(room, lease.epoch);
  }

  private armDeadline(room: string, held: Held, deadline: number): void {
    if (deadline <= held.deadline && held.deadlineTimer !== undefined) return;
    held.deadline = deadline;
    if (held.deadlineTimer !== undefined) this.clock.clearTimer(held.deadlineTimer);
    held.deadlineTimer = this.clock.setTimer(() => this.onDeadline(room, held), Math.max(0, deadline - this.clock.now()));
  }

  private onDeadline(room: string, held: Held): void {
    if (this.stopped || this.held.get(room) !== held) return;
    const now = this.clock.now();
    // A timer may fire early by a fraction of a millisecond: wait out the rest.
    if (now < held.deadline) {
      held.deadlineTimer = this.clock.setTimer(() => this.onDeadline(room, held), held.deadline - now);
      return;
    }
    this.lose(room, held, "lease ran out");
  }

  private lose(room: string, held: Held, why: LossReason): void {
    this.held.delete(room);
    this.clock.clearTimer(held.deadlineTimer);
    this.emit({ kind: "lost", room, owner: this.owner, epoch: held.epoch, why, at: this.clock.now() });
    this.options.onLost(room, why);
    // The database may still hold the lease for us (the deadline comes before its expiry,
    // or it was only unreachable a moment): hand it back so another instance need not wait.
    if (why === "lease ran out" || why === "database unreachable") void this.release(room, held.epoch, true);
  }

  private async release(room: string, epoch: number, quiet = false): Promise<void> {
    let ok = false;
    let detail: string | undefined;
    try {
      ok = await this.leases.release(room, this.owner, epoch);
    } catch (error) {
      detail = messageOf(error);
    }
    if (!quiet) this.emit({ kind: "released", room, owner: this.owner, epoch, ok, ...(detail ? { detail } : {}), at: this.clock.now() });
  }

  private emit(event: LeaseKeeperEvent): void {
    if (!this.silent) this.options.onEvent?.(event);
  }
}

/**
 * Throws unless the timing lets a lease be renewed at least once before the keeper's own
 * deadline: `0 ≤ marginMs`, `0 < renewMs < leaseMs − marginMs`.
 */
export function checkTiming(leaseMs: number, renewMs: number, marginMs: number): void {
  if (!Number.isFinite(marginMs) || marginMs < 0) throw new RangeError(`marginMs is at least 0, not ${marginMs}`);
  if (!Number.isFinite(renewMs) || renewMs <= 0) throw new RangeError(`renewMs is more than 0, not ${renewMs}`);
  if (!Number.isFinite(leaseMs) || renewMs >= leaseMs - marginMs) {
    throw new RangeError(`renewMs (${renewMs}) must be less than leaseMs − marginMs (${leaseMs} − ${marginMs})`);
  }
}

/** A FencedOut from the store, recognised by its code so this module needs nothing of the store's. */
function isFencedOut(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "FENCED_OUT";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
