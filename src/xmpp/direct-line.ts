import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { XmppConnection, type AccountSettings } from "./connection.js";
import type { Element } from "./stanza.js";
import { DEFAULT_KEEP_ALIVE, Periodic, type KeepAliveTiming } from "./keep-alive.js";

/**
 * The direct line: a second connection of the coordinator's account, under a resource of its
 * own, for 1:1 chat with people (`help`, `mfr-status`, …).
 *
 * The room connection's stream carries everything said in our rooms, in order. While agents
 * contribute a large model, that is megabytes of parts the server fans out to us, and a 1:1
 * `help` sent meanwhile would reach us only behind all of them; its answer would then leave
 * behind our own model parts. On a connection of its own, neither waits.
 *
 * It announces a higher presence priority than the room connection's 0, so the server routes
 * messages sent to our bare JID here while this line is up, and to the room connection while
 * it is not (RFC 6121 8.5.2.1.1: to the resources of the highest priority). Private messages
 * through a room (`room@service/nick`) still reach the room connection, the occupant.
 */
export const DIRECT_LINE_PRIORITY = 1;

/**
 * The direct line's resource, beside the room connection's: `Coordinator (chat)` for the
 * profile's `Coordinator`. A person's client shows it with the answers (profanity labels each
 * one `coordinator@example.org/Coordinator (chat)`), so it reads as a name; a resource may
 * hold spaces and brackets (RFC 7622 §3.4). It stays unique per connection: in a fleet the
 * resource it is made from already names the instance and the unit.
 */
export function directLineResource(resource: string): string {
  return `${resource} (chat)`;
}

export class DirectLine {
  private readonly connection: XmppConnection;
  private readonly keepAlive: Periodic;

  constructor(
    account: AccountSettings,
    maxStanzaBytes: number,
    private readonly log: Logger,
    timing: Partial<KeepAliveTiming> = {},
    /** Asked before every message (XmppConnection's `maySpeak`): one of several instances answers only while it owns the room. */
    maySpeak?: () => boolean,
  ) {
    const { keepAliveMs, probeTimeoutMs } = { ...DEFAULT_KEEP_ALIVE, ...timing };
    this.keepAlive = new Periodic(async () => void (await this.connection.probe(probeTimeoutMs)), keepAliveMs);
    this.connection = new XmppConnection(
      { account: { ...account, resource: directLineResource(account.resource) }, maxStanzaBytes, presencePriority: DIRECT_LINE_PRIORITY, ...(maySpeak ? { maySpeak } : {}) },
      log,
    );
  }

  get online(): boolean {
    return this.connection.online;
  }

  /** The connection itself: for the IQ handlers (disco#info, ping) every resource of ours answers, and for answers sent on it. */
  get xmpp(): XmppConnection {
    return this.connection;
  }

  /**
   * Connects in the background and hands every message stanza to `onMessage`; presence and
   * the rest are not input here (we are in no room on this line). Never throws: without the
   * line, the room connection takes 1:1 chat as before.
   */
  open(onMessage: (stanza: Element) => void): void {
    this.connection.on("stanza", (stanza) => {
      if (stanza.is("message")) onMessage(stanza);
    });
    this.connection.on("online", (jid) => this.log.info({ jid }, "direct line open: 1:1 chat comes and goes here"));
    // Silently dead, the line would keep 1:1 chat from the room connection: the server would route it here.
    this.keepAlive.start();
    this.connection.start().catch((err: unknown) => {
      void this.keepAlive.stop();
      this.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        "the direct line gave up (its login was refused) and will not retry; 1:1 chat goes through the room connection",
      );
    });
  }

  async stop(): Promise<void> {
    await this.keepAlive.stop();
    await this.connection.stop();
  }
}

/** Clients make ids of a few dozen characters; a longer one is not worth remembering. */
const MAX_REMEMBERED_ID_CHARS = 128;

/** One of our two connections. */
export type Line = "room-connection" | "direct-line";

/** What tells a copy of a 1:1 message from another message. */
export interface OneToOneMessage {
  from: string;
  id: string | undefined;
  body: string;
}

/**
 * RFC 6121 lets a server deliver a message sent to the bare JID to every resource instead of
 * the highest-priority one. On such a server both lines would hear each 1:1 message: this
 * remembers, for a minute, which line each message (sender, id and body) came on, so that the
 * copy on the other line is dropped. The caller asks only about messages addressed to the bare
 * JID, the only ones a server copies. A sender that reuses an id on the same line is not
 * affected, nor one that reuses it for another text; messages without an id (or with one longer
 * than any client makes) cannot be told apart and are all kept. What it holds is bounded: at
 * most `capacity` entries of a JID, a short id and a digest.
 */
export class OnceAcrossLines {
  /** Map order is the order of last arrival, so the stalest entries are at the front. */
  private readonly seen = new Map<string, { line: Line; at: number }>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly capacity = 2_000,
  ) {}

  /** False when the same message came on the other line within the window. */
  first(message: OneToOneMessage, line: Line, now: number): boolean {
    const { from, id, body } = message;
    if (!id || id.length > MAX_REMEMBERED_ID_CHARS) return true;
    for (const [key, entry] of this.seen) {
      if (now - entry.at <= this.windowMs && this.seen.size < this.capacity) break;
      this.seen.delete(key);
    }
    const key = `${from}\u0000${id}\u0000${createHash("sha256").update(body).digest("base64")}`;
    const earlier = this.seen.get(key);
    if (earlier && earlier.line !== line && now - earlier.at <= this.windowMs) return false;
    this.seen.delete(key);
    this.seen.set(key, { line, at: now });
    return true;
  }
}
