import type { Element } from "./stanza.js";

/**
 * Stanzas waiting for the connection to come back. Bounded: when full, the oldest is
 * dropped and counted, because a coordinator that was offline for an hour should not
 * replay an hour of chatter.
 */
export class Outbox {
  private readonly queue: Element[] = [];
  dropped = 0;

  constructor(private readonly capacity: number) {}

  push(stanza: Element): void {
    if (this.queue.length >= this.capacity) {
      this.queue.shift();
      this.dropped++;
    }
    this.queue.push(stanza);
  }

  /** Removes and returns everything queued, oldest first. */
  drain(): Element[] {
    return this.queue.splice(0, this.queue.length);
  }

  get size(): number {
    return this.queue.length;
  }
}
