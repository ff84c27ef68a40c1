/**
 * Directed presence (RFC 6121 §4.6) to the people a connection answers 1:1. A person who is
 * not subscribed to the coordinator's presence never gets its broadcast presence, so a client
 * that lists the coordinator shows it offline while it answers; a presence sent to the
 * person's full JID with each answer shows it online. With each answer, not once: a person's
 * client that reconnects under the same full JID (profanity keeps its resource) has lost what
 * its last session was sent, and nothing tells us it reconnected. The stanza is small, and a
 * repeated one changes nothing a client shows.
 *
 * What is remembered is who has our presence on this stream, for the stop: each of them is
 * told we are going (directed unavailable presence, §4.6.3) before the stream closes, whether
 * or not the server would tell them itself (Prosody and ejabberd do, as they do when a stream
 * is lost).
 */
import type { Logger } from "pino";
import { describeError } from "./connection-errors.js";
import { xml, type Element } from "./stanza.js";

/** Writes one stanza on the current stream (the client's own send). */
export type StanzaWriter = (stanza: Element) => Promise<unknown>;

/** People remembered per stream; one forgotten (the least recently answered) is told of a stop by the server only. */
export const DIRECTED_PRESENCE_CAPACITY = 512;

/** The full JIDs this stream has sent its presence to, least recently answered first; at most `capacity`. */
export class DirectedPresence {
  private readonly people = new Set<string>();

  constructor(private readonly capacity = DIRECTED_PRESENCE_CAPACITY) {}

  /** Notes that `jid` was sent our presence on this stream; past the capacity, the least recently answered is forgotten. */
  sent(jid: string): void {
    const key = jidKey(jid);
    this.people.delete(key);
    this.people.add(key);
    if (this.people.size > this.capacity) {
      const stalest = this.people.values().next().value;
      if (stalest !== undefined) this.people.delete(stalest);
    }
  }

  /** The stream ended: the server told them, and nobody has our presence on the next one. */
  forget(): void {
    this.people.clear();
  }

  /** Everyone who has our presence on this stream, least recently answered first (for the unavailable at a stop); emptied. */
  drain(): string[] {
    const all = [...this.people];
    this.people.clear();
    return all;
  }

  /** Sends our presence to `to`, a person we answer, and remembers it; no priority: it routes nothing. Throws when the write fails. */
  async present(write: StanzaWriter, to: string): Promise<void> {
    if (!to) return;
    await write(xml("presence", { to }));
    this.sent(to);
  }

  /**
   * At an orderly stop: each person this stream sent its presence to sees us go (RFC 6121
   * §4.6.3), before the stream closes. Bounded by the memory's capacity; never throws.
   */
  async withdraw(write: StanzaWriter, log: Logger): Promise<void> {
    const people = this.drain();
    if (people.length === 0) return;
    try {
      for (const to of people) await write(xml("presence", { to, type: "unavailable" }));
      log.debug({ people: people.length }, "told the people we answered that we are going (directed unavailable presence)");
    } catch (err) {
      log.debug({ err: describeError(err) }, "could not tell the people we answered that we are going");
    }
  }

  /** How many people have our presence on this stream. */
  get size(): number {
    return this.people.size;
  }
}

/** A JID as the memory compares it: the local part and the domain are not case-sensitive, the resource is. */
function jidKey(jid: string): string {
  const slash = jid.indexOf("/");
  return slash < 0 ? jid.toLowerCase() : `${jid.slice(0, slash).toLowerCase()}${jid.slice(slash)}`;
}
