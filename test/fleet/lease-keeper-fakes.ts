/**
 * A fake world for the lease keeper's tests: one fake monotonic clock shared by the keeper's
 * process and a fake database of room leases, with the database modelled as RoomLeases
 * behaves (by the database's clock, here the same clock). Two queues of timers: the
 * process's (the keeper's timers and the deliveries of the database's answers) and the
 * database's (statements executing). `pause(ms)` stops the process (SIGSTOP) while the
 * database goes on; on waking, the overdue process timers fire in the order they came due.
 *
 * How each statement behaves (executes when, answers when, fails, never answers) is set by
 * `plan`; by default it executes and answers at once.
 */
import type { KeeperClock, KeeperLeases, KeptLease } from "../../src/fleet/lease-keeper.js";

/** A lease row of the fake database. */
export interface FakeRow {
  owner: string;
  epoch: number;
  expiresAt: number;
}

/** How one statement behaves: executes `execAfter` ms after it was sent (never: undefined), answers `answerAfter` ms after it was sent (never: undefined). */
export interface Behaviour {
  readonly execAfter: number | undefined;
  readonly answerAfter: number | undefined;
  /** Answers with this error instead of the result (e.g. the connection was lost, or FencedOut). */
  readonly fail?: Error;
}

/** Executes and answers at once. */
export const PROMPT: Behaviour = { execAfter: 0, answerAfter: 0 };

/** One statement the keeper sent: a claim or a renewal names every room it concerns, a release one. */
export interface Call {
  readonly op: "claim" | "renew" | "release";
  readonly rooms: readonly string[];
  readonly at: number;
}

interface Timer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/** Resolves once every pending microtask has run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The fake clock, database and leases (see the module comment). */
export class FakeWorld {
  t = 0;
  readonly rows = new Map<string, FakeRow>();
  readonly calls: Call[] = [];
  plan: (call: Call) => Behaviour = () => PROMPT;
  /** Called after every event and on waking from a pause (the property's safety check). */
  check: () => void = () => undefined;
  private paused = false;
  private nextId = 1;
  private process: Timer[] = [];
  private db: Timer[] = [];

  /** The keeper's clock: this world's time, timers on the process's queue. */
  readonly clock: KeeperClock = {
    now: () => this.t,
    setTimer: (fn, ms) => this.add(this.process, fn, ms),
    clearTimer: (id) => {
      this.process = this.process.filter((timer) => timer.id !== id);
    },
  };

  /** The keeper's leases on the fake database. */
  leases(): KeeperLeases {
    const send = <T>(call: Call, execute: () => T): Promise<T> => {
      this.calls.push(call);
      const behaviour = this.plan(call);
      let result: { value: T } | undefined;
      const exec = (): void => {
        result = { value: execute() };
      };
      if (behaviour.execAfter === 0) exec();
      else if (behaviour.execAfter !== undefined) this.add(this.db, exec, behaviour.execAfter);
      return new Promise<T>((resolve, reject) => {
        if (behaviour.answerAfter === undefined) return;
        this.add(
          this.process,
          () => {
            if (behaviour.fail) reject(behaviour.fail);
            else if (result) resolve(result.value);
            else reject(new Error("answered before executing: a mistake in the test's plan"));
          },
          behaviour.answerAfter,
        );
      });
    };
    return {
      claimAny: (rooms, who, ms, max) =>
        send({ op: "claim", rooms, at: this.t }, () => {
          // As RoomLeases.claimAny: the first `max` free rooms, in the order given, in one statement.
          const won = new Map<string, KeptLease>();
          for (const room of rooms) {
            if (won.size >= max) break;
            const lease = this.claim(room, who, ms);
            if (lease) won.set(room, lease);
          }
          return won;
        }),
      renewAll: (who, held, ms) =>
        send({ op: "renew", rooms: held.map((h) => h.room), at: this.t }, () => {
          const renewed = new Map<string, KeptLease>();
          for (const { room, epoch } of held) {
            const lease = this.renew(room, who, epoch, ms);
            if (lease) renewed.set(room, lease);
          }
          return renewed;
        }),
      release: (room, who, epoch) => send({ op: "release", rooms: [room], at: this.t }, () => this.release(room, who, epoch)),
    };
  }

  /** RoomLeases.claim on the fake database, now. */
  claim(room: string, owner: string, leaseMs: number): KeptLease | undefined {
    const row = this.rows.get(room);
    if (row && row.expiresAt > this.t) return undefined;
    const next = { owner, epoch: (row?.epoch ?? 0) + 1, expiresAt: this.t + leaseMs };
    this.rows.set(room, next);
    return { epoch: next.epoch };
  }

  /** RoomLeases.renew on the fake database, now. */
  renew(room: string, owner: string, epoch: number, leaseMs: number): KeptLease | undefined {
    const row = this.rows.get(room);
    if (!row || row.owner !== owner || row.epoch !== epoch || row.expiresAt <= this.t) return undefined;
    row.expiresAt = this.t + leaseMs;
    return { epoch };
  }

  /** RoomLeases.release on the fake database, now. */
  release(room: string, owner: string, epoch: number): boolean {
    const row = this.rows.get(room);
    if (!row || row.owner !== owner || row.epoch !== epoch || row.expiresAt <= this.t) return false;
    row.expiresAt = this.t;
    return true;
  }

  /** Runs everything that comes due within `ms` (the process's timers only while it is not paused), then sets the clock to the end. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const next = this.nextDue(end);
      if (!next) break;
      this.t = Math.max(this.t, next.timer.at);
      next.queue.splice(next.queue.indexOf(next.timer), 1);
      next.timer.fn();
      await flush();
      this.check();
    }
    this.t = end;
    this.check();
  }

  /** The process stops for `ms` while the database goes on; on waking the check runs first, then the overdue timers fire in order. */
  async pause(ms: number): Promise<void> {
    this.paused = true;
    await this.advance(ms);
    this.paused = false;
    await this.advance(0);
  }

  private nextDue(end: number): { timer: Timer; queue: Timer[] } | undefined {
    let best: { timer: Timer; queue: Timer[] } | undefined;
    const queues = this.paused ? [this.db] : [this.db, this.process];
    for (const queue of queues) {
      for (const timer of queue) {
        if (timer.at > end) continue;
        if (!best || timer.at < best.timer.at || (timer.at === best.timer.at && timer.id < best.timer.id)) best = { timer, queue };
      }
    }
    return best;
  }

  private add(queue: Timer[], fn: () => void, ms: number): number {
    const id = this.nextId++;
    queue.push({ id, at: this.t + Math.max(0, ms), fn });
    return id;
  }
}
