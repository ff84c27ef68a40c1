import type { Logger } from "pino";
import { XmppConnection, type AccountSettings, type SendResult } from "./connection.js";
import type { Element } from "./stanza.js";

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

/** The direct line's resource, beside the room connection's. */
export function directLineResource(resource: string): string {
  return `${resource}-direct`;
}

export class DirectLine {
  private readonly connection: XmppConnection;

  constructor(
    account: AccountSettings,
    maxStanzaBytes: number,
    private readonly log: Logger,
  ) {
    this.connection = new XmppConnection(
      { account: { ...account, resource: directLineResource(account.resource) }, maxStanzaBytes, presencePriority: DIRECT_LINE_PRIORITY },
      log,
    );
  }

  get online(): boolean {
    return this.connection.online;
  }

  /** The connection itself, for the IQ handlers (disco#info, ping) every resource of ours answers. */
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
    this.connection.start().catch((err: unknown) => {
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, "the direct line could not connect; 1:1 chat goes through the room connection");
    });
  }

  /** Sends on this line; queued while it is down, so callers check `online` and otherwise use the room connection. */
  send(stanza: Element): Promise<SendResult> {
    return this.connection.send(stanza);
  }

  async stop(): Promise<void> {
    await this.connection.stop();
  }
}
