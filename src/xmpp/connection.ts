import { EventEmitter } from "node:events";
import { client, type Client } from "@xmpp/client";
import type { Logger } from "pino";
import type { BackoffSettings } from "./backoff.js";
import { fitClient } from "./client-fitting.js";
import { startClient } from "./client-start.js";
import { describeError } from "./connection-errors.js";
import { DirectedPresence } from "./directed-presence.js";
import { Outbox } from "./outbox.js";
import { Reconnection } from "./reconnection.js";
import { StanzaGate } from "./stanza-gate.js";
import { NS_DISCO_INFO, NS_PING, xml, type Element } from "./stanza.js";
import type { PingAnswer } from "./keep-alive.js";

export { AuthenticationError } from "./connection-errors.js";
export { LOST_CONNECTION_LOG } from "./reconnection.js";

export interface AccountSettings {
  service: string;
  domain: string;
  username: string;
  password: string;
  resource: string;
}

export interface ConnectionOptions {
  account: AccountSettings;
  /** Stanzas larger than this are never sent (the server would drop our stream). */
  maxStanzaBytes: number;
  /** How many stanzas to keep while offline. */
  outboxCapacity?: number;
  /** Delays between attempts to reach the server (first connection and reconnects); default 1 s doubling to 30 s, jittered. */
  backoff?: Partial<BackoffSettings>;
  /** Clock for outage durations (tests pass a fake one). */
  now?: () => number;
  /**
   * The priority our initial presence announces (RFC 6121 4.7.2.3). The server routes a
   * message sent to our bare JID to the resources of the highest priority, so a second
   * connection of the same account with a higher one takes those messages over.
   */
  presencePriority?: number;
  /**
   * Asked before every message stanza goes out (also one queued while offline): false drops
   * it with a log line. An instance of several on one database speaks in a room only while
   * it holds the room's lease (src/fleet/); presence and IQ answers are never held back, so
   * it can still leave. Default: always.
   */
  maySpeak?: () => boolean;
}

export type SendResult = "sent" | "queued" | "refused";

export interface SendOptions {
  /** The stanza was measured within the limit when it was built (see `stanzaBytes`). */
  sized?: boolean;
  /**
   * The message answers a person 1:1 (never through a room: presence to an occupant JID
   * would be a join): a directed presence to its `to` goes first (directed-presence.ts), so
   * their client shows us online while we answer.
   */
  presentTo?: boolean;
}

export type IqGetHandler = (request: Element) => Element | true;

interface ConnectionEventMap {
  online: [jid: string];
  offline: [];
  stanza: [stanza: Element];
}

/**
 * One client connection to an XMPP server: connects, reconnects, queues while offline,
 * never sends a character XML forbids, refuses oversize stanzas, and answers IQ gets
 * registered with `onIqGet`. It knows nothing of rooms or MFR. Its parts: when to try the
 * server again (reconnection.ts), what may leave and in what form (stanza-gate.ts), the
 * library's client fitted to our rules (client-fitting.ts), and whom it sent its presence
 * to (directed-presence.ts).
 */
export class XmppConnection extends EventEmitter<ConnectionEventMap> {
  private xmpp: Client | undefined;
  private readonly outbox: Outbox;
  /** Whom this stream sent its presence to (`presentTo`), to tell at a stop; forgotten with the stream. */
  private readonly directed = new DirectedPresence();
  /** Queued messages sent with `presentTo`: the presence goes before them when they leave. */
  private readonly queuedPresentTo = new WeakSet<Element>();
  private readonly iqHandlers: Array<{ ns: string; name: string; handler: IqGetHandler }> = [];
  private readonly unread: Array<(raw: string) => boolean> = [];
  private stopping = false;
  /**
   * Counts streams coming up and going down. The client object outlives its sockets, and an
   * IQ pending when a socket drops is not failed but times out later: an answer (or its
   * absence) belongs to the stream it was asked on only if this has not moved since.
   */
  private stream = 0;
  /** When to try the server again (reconnection.ts). */
  private readonly reconnection: Reconnection;
  /** What may leave, and in what form (stanza-gate.ts). */
  private readonly gate: StanzaGate;
  jid: string | undefined;

  constructor(
    private readonly options: ConnectionOptions,
    private readonly log: Logger,
  ) {
    super();
    this.outbox = new Outbox(options.outboxCapacity ?? 500);
    this.gate = new StanzaGate(options, log);
    const { service, username, domain } = options.account;
    this.reconnection = new Reconnection({ service, login: `${username}@${domain}`, backoff: options.backoff, now: options.now }, log, {
      stopping: () => this.stopping,
      isCurrent: (xmpp) => xmpp === this.xmpp,
      everOnline: () => this.jid !== undefined,
      lost: () => this.emit("offline"),
    });
  }

  get online(): boolean {
    return this.xmpp?.status === "online";
  }

  /**
   * Registers a test of a stanza's text, as the server sent it, for stanzas nobody here reads
   * (our own room echoes): one it says true of is dropped before the XML parser sees it.
   */
  skipUnread(test: (raw: string) => boolean): void {
    this.unread.push(test);
  }

  /** Registers an IQ get handler; it applies to the current and every future client. */
  onIqGet(ns: string, name: string, handler: IqGetHandler): void {
    this.iqHandlers.push({ ns, name, handler });
    this.xmpp?.iqCallee.get(ns, name, (ctx: { stanza: Element }) => handler(ctx.stanza));
  }

  /**
   * Connects for the first time. A refused login rejects at once; an unreachable
   * server is retried until `stop()`, because operators often start us before the server.
   */
  async start(): Promise<void> {
    await this.reconnection.connectFirst(async () => {
      const xmpp = this.createClient();
      try {
        await startClient(xmpp);
      } catch (err) {
        this.xmpp = undefined;
        // The failed client is dropped, but its socket may still fail (a server that reset it
        // fails the closing write too): an 'error' with no listener would be thrown.
        xmpp.removeAllListeners();
        xmpp.on("error", (error: unknown) => this.log.debug({ err: describeError(error) }, "error of a failed connection attempt"));
        await xmpp.stop().catch(() => undefined);
        throw err;
      }
    });
  }

  /**
   * Sends now when online, queues when not; never throws. The stanza is made XML-safe first,
   * so what is measured against the limit and what is queued is exactly what goes out.
   */
  async send(original: Element, options: SendOptions = {}): Promise<SendResult> {
    const stanza = this.gate.admit(original, options.sized);
    if (!stanza) return "refused";
    if (!this.xmpp || !this.online) {
      this.queue(stanza, options);
      return "queued";
    }
    try {
      const xmpp = this.xmpp;
      if (options.presentTo) await this.directed.present((presence) => xmpp.send(presence), String(stanza.attrs.to ?? ""));
      await this.xmpp.send(stanza);
      return "sent";
    } catch (err) {
      this.log.warn({ err: describeError(err) }, "send failed; queued until the connection is back");
      this.queue(stanza, options);
      return "queued";
    }
  }

  private queue(stanza: Element, options: SendOptions): void {
    this.outbox.push(stanza);
    if (options.presentTo) this.queuedPresentTo.add(stanza);
  }

  /**
   * Resolves once the server has answered a ping (XEP-0199) sent after everything written so
   * far: it reads a client's stanzas in order, so by then it has taken in all of them. The
   * socket's own buffer says nothing here: a write completes once the kernel holds it, and
   * loopback buffers hold megabytes. Never rejects; offline, or on an error or a timeout,
   * it resolves at once (an error reply is an answer too).
   */
  async settled(timeoutMs = 10_000): Promise<void> {
    await this.ping(this.options.account.domain, timeoutMs);
  }

  /**
   * Pings the server (XEP-0199). A connection that carries little traffic may die without
   * a word (a NAT that forgets it, a route that goes): the socket then looks open for many
   * minutes while the server, still holding our session, routes messages to it. When no
   * answer comes within `timeoutMs`, the socket is taken for dead and destroyed, so the
   * reconnect starts at once. An error reply is an answer. Resolves true when it answered.
   */
  async probe(timeoutMs: number): Promise<boolean> {
    const xmpp = this.xmpp;
    const answer = await this.ping(this.options.account.domain, timeoutMs);
    // Offline covers a stream that went while we waited: the one up now was not asked, and is left alone.
    if (answer.kind !== "timeout") return answer.kind !== "offline";
    if (this.stopping) return false;
    this.log.warn({ timeoutMs }, "the server did not answer a ping; dropping the connection to reconnect");
    (xmpp as unknown as { socket?: { destroy(): void } | null } | undefined)?.socket?.destroy();
    return false;
  }

  /**
   * Pings an entity (XEP-0199), e.g. our own occupant in a room (XEP-0410), and says what came
   * back. Never rejects; it leaves the socket alone, whatever the answer (`probe` is for that).
   */
  async ping(jid: string, timeoutMs: number): Promise<PingAnswer> {
    const xmpp = this.xmpp;
    if (!xmpp || !this.online) return { kind: "offline" };
    const stream = this.stream;
    try {
      await xmpp.iqCaller.get(xml("ping", { xmlns: NS_PING }), jid, timeoutMs);
      return stream === this.stream ? { kind: "result" } : { kind: "offline" };
    } catch (err) {
      if (stream !== this.stream) return { kind: "offline" };
      const condition = (err as { name?: string; condition?: unknown }).name === "StanzaError" ? (err as { condition?: unknown }).condition : undefined;
      if (typeof condition === "string") return { kind: "error", condition };
      return this.online ? { kind: "timeout" } : { kind: "offline" };
    }
  }

  /**
   * Asks an entity (here: a room occupant) for its disco#info features. Null when offline,
   * on error or on timeout: a peer that does not answer is simply not known to be an agent.
   */
  async discoFeatures(jid: string, timeoutMs = 5000): Promise<string[] | null> {
    return (await this.discoInfo(jid, timeoutMs))?.features ?? null;
  }

  /**
   * What an entity says of itself in disco#info (XEP-0030): its features, and the FORM_TYPE
   * of each extended-information form it adds (XEP-0128), where some servers say what they
   * cannot say as a feature. Null when it does not answer. Never throws.
   */
  async discoInfo(jid: string, timeoutMs = 5000): Promise<{ features: string[]; formTypes: string[] } | null> {
    if (!this.xmpp || !this.online) return null;
    try {
      const query = (await this.xmpp.iqCaller.get(xml("query", { xmlns: NS_DISCO_INFO }), jid, timeoutMs)) as Element;
      const features = query.getChildren("feature").map((f: Element) => String(f.attrs.var ?? "")).filter(Boolean);
      const formTypes = query
        .getChildren("x", "jabber:x:data")
        .flatMap((form: Element) => form.getChildren("field").filter((f: Element) => f.attrs.var === "FORM_TYPE"))
        .map((field: Element) => field.getChildText("value") ?? "")
        .filter(Boolean);
      return { features, formTypes };
    } catch (err) {
      this.log.debug({ jid, err: describeError(err) }, "disco#info query failed");
      return null;
    }
  }

  /** An IQ get (e.g. a room's configuration form); the result element, or why it failed. Never throws. */
  async iqGet(to: string, child: Element, timeoutMs = 5000): Promise<{ ok: true; result: Element | undefined } | { ok: false; error: string }> {
    if (!this.xmpp || !this.online) return { ok: false, error: "offline" };
    try {
      const result = (await this.xmpp.iqCaller.get(child, to, timeoutMs)) as Element | undefined;
      return { ok: true, result };
    } catch (err) {
      return { ok: false, error: describeError(err) };
    }
  }

  /**
   * An IQ set (e.g. a room configuration form, an archive query); the result's first child,
   * whatever it is called (an archive answers a `<query>` with a `<fin>`), or why it failed.
   * Never throws.
   */
  async iqSet(to: string, child: Element, timeoutMs = 5000): Promise<{ ok: true; result: Element | undefined } | { ok: false; error: string }> {
    if (!this.xmpp || !this.online) return { ok: false, error: "offline" };
    try {
      const iq = (await this.xmpp.iqCaller.request(xml("iq", { type: "set", to }, child), timeoutMs)) as Element;
      const result = iq.getChildElements()[0];
      return { ok: true, result };
    } catch (err) {
      return { ok: false, error: describeError(err) };
    }
  }

  /**
   * Closes the stream in order: `</stream:stream>`, then waits (bounded by the client's
   * timeout) for the server's own close before the socket goes, so the server ends the
   * session as a logout rather than a lost connection.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.reconnection.stop();
    const xmpp = this.xmpp;
    if (!xmpp) return;
    xmpp.reconnect.stop();
    if (xmpp.status === "offline" || xmpp.status === "disconnect") return;
    if (this.online) await this.directed.withdraw((presence) => xmpp.send(presence), this.log);
    try {
      const closing = await xmpp.stop();
      if (closing) this.log.info("closed the XMPP stream");
      else this.log.info("closed the XMPP connection (the server did not close its stream in time)");
    } catch (err) {
      this.log.debug({ err: describeError(err) }, "error while closing the stream");
    }
  }

  private createClient(): Client {
    const { account } = this.options;
    const xmpp = client({
      service: account.service,
      domain: account.domain,
      username: account.username,
      password: account.password,
      resource: account.resource,
    });
    this.xmpp = xmpp;
    fitClient(xmpp, { drop: (raw) => this.unread.some((test) => test(raw)), xmlSafe: (stanza) => this.gate.xmlSafe(stanza), log: this.log });
    for (const { ns, name, handler } of this.iqHandlers) {
      xmpp.iqCallee.get(ns, name, (ctx: { stanza: Element }) => handler(ctx.stanza));
    }
    // Without an error listener the first failed reconnect would crash the process.
    xmpp.on("error", (err: unknown) => this.reconnection.error(err));
    xmpp.on("status", (status: string) => this.log.debug({ status }, "xmpp status"));
    xmpp.on("online", (address: { toString(): string }) => {
      this.stream++;
      void this.onOnline(address.toString());
    });
    xmpp.on("disconnect", () => {
      this.stream++;
      // The server ended the session, and with it told the people we sent presence to that we went.
      this.directed.forget();
      this.reconnection.disconnected(xmpp);
    });
    xmpp.on("stanza", (stanza: Element) => this.emit("stanza", stanza));
    return xmpp;
  }

  private async onOnline(jid: string): Promise<void> {
    this.jid = jid;
    this.reconnection.online();
    // Initial presence: without it the server does not route 1:1 messages sent to our bare JID.
    const priority = this.options.presencePriority;
    const presence = priority === undefined ? xml("presence") : xml("presence", {}, xml("priority", {}, String(priority)));
    await this.xmpp?.send(presence).catch((err: unknown) => this.log.warn({ err: describeError(err) }, "initial presence failed"));
    this.log.info({ jid }, "connected to the XMPP server");
    const queued = this.outbox.drain();
    if (queued.length > 0 || this.outbox.dropped > 0) {
      this.log.info({ queued: queued.length, dropped: this.outbox.dropped }, "sending what was queued while offline");
      this.outbox.dropped = 0;
    }
    this.emit("online", jid);
    for (const stanza of queued) await this.send(stanza, { presentTo: this.queuedPresentTo.has(stanza) });
  }
}
