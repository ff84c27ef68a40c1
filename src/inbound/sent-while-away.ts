/**
 * 1:1 messages our server kept for us while we were away (offline storage, XEP-0160), which
 * it hands over, stamped (XEP-0203), when a resource of ours with a non-negative priority
 * comes back (RFC 6121 §8.5.2). They go through the same stages as live ones, with three
 * differences, each here:
 *
 * - **Not too old.** One our server stamped more than a day before it reached us is not
 *   answered (the log says so): its sender has long stopped waiting.
 * - **Once.** The server deletes what it hands over, so a restart does not bring it back; if
 *   it came twice all the same (to both of our resources, say), the copy is dropped.
 * - **When we are back.** They wait until the rooms are caught up on, so that `mfr-status`
 *   tells what the room said meanwhile and `mfr-start` finds us in the room.
 */
import { createHash } from "node:crypto";
import { MAX_CATCH_UP_MS } from "../host/heard.js";
import type { DirectMessage } from "../xmpp/inbound.js";

/** A 1:1 message kept for us longer than this is not answered: the same day that bounds what the rooms give back. */
export const MAX_ANSWERED_LATE_MS = MAX_CATCH_UP_MS;

/** Messages kept for us that wait for the rooms at most; more are dropped (and counted in the log). */
export const MAX_WAITING_SENT_WHILE_AWAY = 1_000;

/** What became of a message kept for us: taken in, or not (too old, or a copy of one taken in). */
export type KeptVerdict = "new" | "too-old" | "copy";

/**
 * Remembers each message kept for us that was taken in, by its sender, our server's stamp,
 * its id and a digest of its text, for as long as one that old is answered at all; at most
 * `capacity` of them (the oldest go first).
 */
export class KeptOnce {
  /** Map order is the order of arrival. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly maxAgeMs = MAX_ANSWERED_LATE_MS,
    private readonly capacity = 10_000,
  ) {}

  /** Whether a message our server kept for us (`message.storedAt` set) is taken in now. */
  verdict(message: Pick<DirectMessage, "bareFrom" | "storedAt" | "stanza">, now: number): KeptVerdict {
    const storedAt = message.storedAt ?? now;
    if (now - storedAt > this.maxAgeMs) return "too-old";
    for (const [key, at] of this.seen) {
      if (now - at <= this.maxAgeMs && this.seen.size < this.capacity) break;
      this.seen.delete(key);
    }
    const body = message.stanza.getChildText("body") ?? "";
    const id = String(message.stanza.attrs.id ?? "");
    const key = `${message.bareFrom}\u0000${storedAt}\u0000${id.slice(0, 128)}\u0000${createHash("sha256").update(body).digest("base64")}`;
    if (this.seen.has(key)) return "copy";
    this.seen.set(key, now);
    return "new";
  }
}

/**
 * Holds messages kept for us until we are back (the rooms caught up on, or given up on), then
 * lets them through in the order they came. After `close` (shutting down), nothing more is
 * let through.
 */
export class UntilBack {
  private state: "away" | "back" | "closed" = "away";
  private readonly waiting: Array<(go: boolean) => void> = [];
  private dropped = 0;

  constructor(private readonly capacity = MAX_WAITING_SENT_WHILE_AWAY) {}

  /** Resolves true when the message may go on (at once when we are back), false when it is dropped. */
  wait(): Promise<boolean> {
    if (this.state === "back") return Promise.resolve(true);
    if (this.state === "closed" || this.waiting.length >= this.capacity) {
      this.dropped++;
      return Promise.resolve(false);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** We are back: what waited goes on, in order. Returns how many waited and how many were dropped as too many. */
  back(): { waited: number; dropped: number } {
    if (this.state !== "away") return { waited: 0, dropped: 0 };
    this.state = "back";
    return this.release(true);
  }

  /** Shutting down: what waits is dropped. Returns how many were. */
  close(): number {
    this.state = "closed";
    return this.release(false).waited;
  }

  private release(go: boolean): { waited: number; dropped: number } {
    const waiting = this.waiting.splice(0);
    const dropped = this.dropped;
    this.dropped = 0;
    for (const resolve of waiting) resolve(go);
    return { waited: waiting.length, dropped };
  }
}
