/**
 * An independent XMPP test client. It plays a human or a peer agent against the
 * coordinator, so it deliberately shares no code with `src/` (only the wire constants of
 * src/base/vocab.ts): a bug in the coordinator's XMPP layer cannot hide itself here.
 *
 *   const alice = await TestPeer.connect({ service: server.service, domain: server.domain,
 *                                           username, password });
 *   await alice.joinRoom(room, "alice");
 *   await alice.sendGroupchat(room, { payload: { mode, mime, content }, siblings: { sessionId } });
 *   const msg = await bob.waitForMessage((m) => m.payload?.mode === mode);
 *   await alice.stop();
 */
import { client, xml, type Client } from "@xmpp/client";
import { LINGUE } from "../../src/base/vocab.js";
import { withoutStreamManagement } from "../../src/xmpp/stream-features.js";
import { feedParserWholeStanzas } from "../../src/xmpp/parser-feed.js";
import { startClient } from "../../src/xmpp/client-start.js";
import { sendWithoutDelay } from "../../src/xmpp/no-delay.js";

export type Element = ReturnType<typeof xml>;

const NS_MUC = "http://jabber.org/protocol/muc";
const NS_MUC_USER = "http://jabber.org/protocol/muc#user";
const NS_DELAY = "urn:xmpp:delay";
const NS_DISCO_INFO = "http://jabber.org/protocol/disco#info";
const NS_PING = "urn:xmpp:ping";

export interface TestPeerOptions {
  /** e.g. "xmpp://127.0.0.1:41234" (LocalProsody.service). */
  service: string;
  /** e.g. "localhost". */
  domain: string;
  username: string;
  password: string;
  resource?: string;
  /** Keep @xmpp/client's built-in 1 s auto-reconnect (default false: a drop stays dropped). */
  reconnect?: boolean;
  /**
   * Send initial presence after login and wait until the server has it, so 1:1 chats to
   * the bare JID arrive from the moment connect() resolves (default true).
   */
  available?: boolean;
  /** Answer disco#info with these features (as a Lingue agent does); by default it does not answer. */
  features?: string[];
}

export interface PeerPayload {
  mode: string;
  mime: string;
  /** The `messageType` attribute, else a string `messageType` field of the JSON content. */
  messageType?: string;
  content: string;
  /** The parsed content when mime contains "json" and it parses. */
  json?: unknown;
  /** All attributes of <payload> (except xmlns). */
  attrs: Record<string, string>;
}

export interface ReceivedMessage {
  from: string;
  to: string;
  type: string;
  id?: string;
  body?: string;
  subject?: string;
  payload?: PeerPayload;
  /** Text of the other child elements in the Lingue namespace, e.g. { sessionId: "…" }. */
  siblings: Record<string, string>;
  /** Carries a XEP-0203 <delay> (room history / offline). */
  delayed: boolean;
  /** A message of type "error". */
  error?: string;
  stanza: Element;
}

export interface OutgoingPayload {
  mode: string;
  mime: string;
  content: string;
  /** Extra attributes on <payload>, e.g. { messageType: "…" }. */
  attrs?: Record<string, string>;
}

export interface OutgoingMessage {
  body?: string;
  payload?: OutgoingPayload;
  /** Extra elements in the Lingue namespace, e.g. { sessionId: "abc" }. */
  siblings?: Record<string, string>;
  id?: string;
}

interface Waiter<T> {
  predicate: (item: T) => boolean;
  resolve: (item: T) => void;
}

/** Items received, each handed out by a wait at most once; waits see already-buffered ones. */
class Inbox<T> {
  readonly all: T[] = [];
  private readonly consumed = new Set<T>();
  private readonly waiters: Waiter<T>[] = [];

  push(item: T): void {
    this.all.push(item);
    const i = this.waiters.findIndex((w) => w.predicate(item));
    if (i >= 0) {
      const [waiter] = this.waiters.splice(i, 1);
      this.consumed.add(item);
      waiter?.resolve(item);
    }
  }

  wait(predicate: (item: T) => boolean, timeoutMs: number, describe: () => string): Promise<T> {
    const buffered = this.all.find((item) => !this.consumed.has(item) && predicate(item));
    if (buffered !== undefined) {
      this.consumed.add(buffered);
      return Promise.resolve(buffered);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter<T> = {
        predicate,
        resolve: (item) => {
          clearTimeout(timer);
          resolve(item);
        },
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error(`no matching stanza within ${timeoutMs} ms; ${describe()}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

function bare(jid: string): string {
  const slash = jid.indexOf("/");
  return (slash < 0 ? jid : jid.slice(0, slash)).toLowerCase();
}

/** Parses a <message> stanza (exported for tests of the peer itself). */
export function parseMessage(stanza: Element): ReceivedMessage {
  const msg: ReceivedMessage = {
    from: String(stanza.attrs.from ?? ""),
    to: String(stanza.attrs.to ?? ""),
    type: String(stanza.attrs.type ?? "normal"),
    siblings: {},
    delayed: stanza.getChild("delay", NS_DELAY) !== undefined,
    stanza,
  };
  if (stanza.attrs.id) msg.id = String(stanza.attrs.id);
  const body = stanza.getChild("body");
  if (body) msg.body = body.getText();
  const subject = stanza.getChild("subject");
  if (subject) msg.subject = subject.getText();
  const error = stanza.getChild("error");
  if (msg.type === "error" && error) msg.error = error.getChildElements()[0]?.name ?? "undefined-condition";
  for (const child of stanza.getChildElements()) {
    if (child.getNS() !== LINGUE) continue;
    if (child.name === "payload" && !msg.payload) {
      const attrs: Record<string, string> = {};
      for (const [k, v] of Object.entries(child.attrs)) if (k !== "xmlns") attrs[k] = String(v);
      const content = child.getText();
      const payload: PeerPayload = { mode: attrs.mode ?? "", mime: attrs.mime ?? "", content, attrs };
      if (payload.mime.includes("json")) {
        try {
          payload.json = JSON.parse(content) as unknown;
        } catch {
          // not JSON after all: leave json undefined
        }
      }
      const fromJson =
        payload.json && typeof payload.json === "object" ? (payload.json as Record<string, unknown>).messageType : undefined;
      const messageType = attrs.messageType ?? (typeof fromJson === "string" ? fromJson : undefined);
      if (messageType !== undefined) payload.messageType = messageType;
      msg.payload = payload;
    } else if (child.name !== "payload") {
      msg.siblings[child.name] = child.getText();
    }
  }
  return msg;
}

function summarize(m: ReceivedMessage): string {
  const parts = [`${m.type} from ${m.from}`];
  if (m.delayed) parts.push("delayed");
  if (m.error) parts.push(`error=${m.error}`);
  if (m.payload) {
    parts.push(`payload mode=${m.payload.mode}`);
    if (m.payload.messageType) parts.push(`messageType=${m.payload.messageType}`);
    parts.push(`content=${JSON.stringify(m.payload.content.slice(0, 80))}`);
  }
  for (const [k, v] of Object.entries(m.siblings)) parts.push(`${k}=${v}`);
  if (m.body !== undefined) parts.push(`body=${JSON.stringify(m.body.slice(0, 80))}`);
  return parts.join(" ");
}

let counter = 0;
function nextId(): string {
  counter += 1;
  return `peer-${process.pid}-${counter}`;
}

export class TestPeer {
  /** Every message received since connect, in order. */
  readonly messages: ReceivedMessage[];
  /** Every presence received since connect, in order. */
  readonly presences: Element[];
  /** Every message and presence received since connect, in the order they came (a message as its stanza). */
  readonly arrivals: Element[] = [];
  /** Errors the client reported (stream errors such as policy-violation, socket errors). */
  readonly errors: Error[] = [];
  private readonly inbox = new Inbox<ReceivedMessage>();
  private readonly presenceInbox = new Inbox<Element>();
  private readonly disconnectWaiters: (() => void)[] = [];
  private stopped = false;

  private constructor(
    readonly xmpp: Client,
    readonly options: TestPeerOptions,
  ) {
    this.messages = this.inbox.all;
    this.presences = this.presenceInbox.all;
    xmpp.on("error", (err: Error) => this.errors.push(err));
    xmpp.on("stanza", (stanza: Element) => {
      if (stanza.is("message") || stanza.is("presence")) this.arrivals.push(stanza);
      if (stanza.is("message")) this.inbox.push(parseMessage(stanza));
      else if (stanza.is("presence")) this.presenceInbox.push(stanza);
    });
    xmpp.on("disconnect", () => {
      for (const w of this.disconnectWaiters.splice(0)) w();
    });
  }

  /** Logs in (rejects on bad credentials or no server) and, by default, sends presence. */
  static async connect(options: TestPeerOptions): Promise<TestPeer> {
    const xmpp = client({
      service: options.service,
      domain: options.domain,
      username: options.username,
      password: options.password,
      ...(options.resource ? { resource: options.resource } : {}),
    });
    if (!options.reconnect) xmpp.reconnect.stop();
    // Like the coordinator, test clients never enable XEP-0198 where a server offers it:
    // @xmpp/client 0.14 miscounts its acknowledgements and Prosody then closes the stream.
    xmpp.prependListener("element", (element: Element) => void withoutStreamManagement(element));
    // Test clients receive model parts of 200 KB too: the library's parser would take
    // quadratic time on each, and a slow reader makes the server queue what follows.
    feedParserWholeStanzas(xmpp);
    sendWithoutDelay(xmpp);
    const features = options.features;
    if (features) {
      xmpp.iqCallee.get(NS_DISCO_INFO, "query", () =>
        xml("query", { xmlns: NS_DISCO_INFO }, xml("identity", { category: "client", type: "bot" }), ...features.map((f) => xml("feature", { var: f }))),
      );
    }
    const peer = new TestPeer(xmpp, options);
    try {
      await startClient(xmpp);
      if (options.available !== false) {
        // Wait for the server to reflect our presence: until it has processed it, chats
        // to our bare JID are not delivered live (the server keeps them as offline messages).
        const self = xmpp.jid?.toString() ?? "";
        const reflected = peer.presenceInbox.wait((p) => p.attrs.from === self && !p.attrs.type, 5000, () =>
          `waiting for the server to reflect ${self}'s initial presence`,
        );
        await xmpp.send(xml("presence"));
        await reflected;
      }
    } catch (err) {
      await peer.stop();
      throw err;
    }
    return peer;
  }

  /** The full JID bound at login. */
  get jid(): string {
    return this.xmpp.jid?.toString() ?? "";
  }

  /** True while the stream is up. */
  get online(): boolean {
    return this.xmpp.status === "online";
  }

  /** Joins a MUC room (no history replay); resolves with our own presence (status 110). */
  async joinRoom(roomJid: string, nick: string, timeoutMs = 5000): Promise<Element> {
    const occupant = `${bare(roomJid)}/${nick}`;
    const sentAt = this.presences.length; // ignore self-presences of earlier joins and leaves
    const isOurs = (p: Element): boolean => {
      if (this.presences.indexOf(p) < sentAt || p.attrs.type === "unavailable") return false;
      const from = String(p.attrs.from ?? "");
      if (bare(from) !== bare(roomJid) || from.slice(from.indexOf("/") + 1) !== nick) return false;
      if (p.attrs.type === "error") return true;
      const x = p.getChild("x", NS_MUC_USER);
      return x?.getChildren("status").some((s) => s.attrs.code === "110") ?? false;
    };
    const answer = this.presenceInbox.wait(isOurs, timeoutMs, () => `joining ${occupant}`);
    await this.xmpp.send(
      xml("presence", { to: occupant }, xml("x", { xmlns: NS_MUC }, xml("history", { maxstanzas: "0" }))),
    );
    const presence = await answer;
    if (presence.attrs.type === "error") {
      const condition = presence.getChild("error")?.getChildElements()[0]?.name ?? "undefined-condition";
      throw new Error(`joining ${occupant} failed: ${condition}`);
    }
    return presence;
  }

  /** Leaves a room (unavailable presence); does not wait for the answer. */
  async leaveRoom(roomJid: string, nick: string): Promise<void> {
    await this.xmpp.send(xml("presence", { to: `${bare(roomJid)}/${nick}`, type: "unavailable" }));
  }

  /** Sends a groupchat message; returns its id. */
  async sendGroupchat(roomJid: string, message: OutgoingMessage): Promise<string> {
    return this.sendMessage(bare(roomJid), "groupchat", message);
  }

  /** Sends a 1:1 chat message with a body; returns its id. */
  async sendChat(jid: string, body: string): Promise<string> {
    return this.sendMessage(jid, "chat", { body });
  }

  /** Sends a message of any type built from body/payload/siblings; returns its id. */
  async sendMessage(to: string, type: string, message: OutgoingMessage): Promise<string> {
    const id = message.id ?? nextId();
    const children: Element[] = [];
    if (message.body !== undefined) children.push(xml("body", {}, message.body));
    if (message.payload) {
      const { mode, mime, content, attrs } = message.payload;
      children.push(xml("payload", { ...attrs, xmlns: LINGUE, mime, mode }, content));
    }
    for (const [name, text] of Object.entries(message.siblings ?? {})) {
      children.push(xml(name, { xmlns: LINGUE }, text));
    }
    await this.xmpp.send(xml("message", { to, type, id }, ...children));
    return id;
  }

  /** Sends any stanza as is. */
  async sendRaw(stanza: Element): Promise<void> {
    await this.xmpp.send(stanza);
  }

  /**
   * The first message since connect that matches and that no earlier wait returned
   * (buffered ones included). On timeout, rejects listing what did arrive.
   */
  waitForMessage(predicate: (m: ReceivedMessage) => boolean, timeoutMs = 5000): Promise<ReceivedMessage> {
    return this.inbox.wait(predicate, timeoutMs, () => {
      const got = this.messages.slice(-20).map(summarize);
      return `${this.options.username} received ${this.messages.length} message(s)` +
        (got.length ? `${this.messages.length > 20 ? " (last 20)" : ""}:\n  ${got.join("\n  ")}` : "");
    });
  }

  /** Like waitForMessage, for presence stanzas. */
  waitForPresence(predicate: (p: Element) => boolean, timeoutMs = 5000): Promise<Element> {
    return this.presenceInbox.wait(predicate, timeoutMs, () => {
      const got = this.presences.slice(-20).map((p) => p.toString().slice(0, 200));
      return `${this.options.username} received ${this.presences.length} presence(s):\n  ${got.join("\n  ")}`;
    });
  }

  /** Resolves when the stream drops (or is already down); rejects after timeoutMs. */
  waitForDisconnect(timeoutMs = 5000): Promise<void> {
    if (!this.online) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`still connected after ${timeoutMs} ms`)), timeoutMs);
      this.disconnectWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** disco#info features of a JID. */
  async discoInfo(jid: string, timeoutMs = 5000): Promise<string[]> {
    const iq = await this.xmpp.iqCaller.request(
      xml("iq", { type: "get", to: jid }, xml("query", { xmlns: NS_DISCO_INFO })),
      timeoutMs,
    );
    const query = iq.getChild("query", NS_DISCO_INFO);
    return (query?.getChildren("feature") ?? []).map((f: Element) => String(f.attrs.var));
  }

  /** XEP-0199 ping: true on a result, false on an error answer or timeout. */
  async ping(jid: string, timeoutMs = 5000): Promise<boolean> {
    try {
      await this.xmpp.iqCaller.request(xml("iq", { type: "get", to: jid }, xml("ping", { xmlns: NS_PING })), timeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  /** Closes the stream (bounded to 2 s); safe to call twice or after a drop. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.xmpp.reconnect.stop();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.xmpp.stop().catch(() => undefined),
      new Promise<void>((r) => (timer = setTimeout(r, 2000))),
    ]);
    clearTimeout(timer);
    // If the polite close timed out, drop the socket.
    (this.xmpp as unknown as { socket?: { destroy?: () => void } | null }).socket?.destroy?.();
  }
}
