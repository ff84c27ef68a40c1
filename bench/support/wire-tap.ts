/**
 * A TCP proxy on loopback between ONE coordinator instance and the XMPP server that writes
 * down every message and presence the instance sends, with the time it passed: the one way
 * to tell which instance said what, when several instances share one account and one nick
 * (the room shows them all as `room/Coordinator`, and its archive keeps only the bare JID).
 * Used by the failover test (test/fleet/failover.test.ts) and bench (bench/failover.ts).
 *
 * It reads the client's side of the stream as text, without parsing XML: a top-level
 * `<message …>…</message>` or `<presence …>` is found by its tags (the coordinator's stanzas
 * never nest one in another; text inside is escaped), and its `to`, `type`, XEP-0359
 * origin-id, the payload's `messageType` and the `sessionId` are read with patterns. The
 * local servers offer no TLS (prosody/local.cfg.lua), so the stream is plain text.
 *
 *   const tap = await WireTap.start({ host: server.host, port: server.port });
 *   // give the coordinator `tap.service` as its xmpp:service
 *   tap.sent.filter((s) => s.kind === "message" && s.originId) …
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { StringDecoder } from "node:string_decoder";

/** One stanza the instance sent, as it passed the tap. */
export interface TappedStanza {
  /** Date.now() when its last byte passed the tap (the same clock as a pino log line's `time`). */
  readonly at: number;
  /** Which of the instance's connections (numbered from 1 as they opened): the room's, the direct line's. */
  readonly connection: number;
  readonly kind: "message" | "presence";
  /** The `to` attribute as sent (a room's bare JID for groupchat, room/nick for a private message). */
  readonly to: string;
  /** The `type` attribute; "" when absent. */
  readonly type: string;
  /** XEP-0359 origin-id, when it carries one (every protocol stanza of the coordinator does). */
  readonly originId?: string;
  /** The Lingue payload's `messageType` attribute (a full MFR type IRI), when it has one. */
  readonly messageType?: string;
  /** The text of a `<sessionId>` child, when it has one. */
  readonly sessionId?: string;
}

const MESSAGE_START = /<message[\s>/]/g;
const PRESENCE_START = /<presence[\s>/]/g;

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}=(["'])(.*?)\\1`).exec(tag);
  return m ? unescape(m[2] ?? "") : undefined;
}

function unescape(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[e] ?? "");
}

/** The end of the start tag that begins at `from` (its `>`), or -1 while it is incomplete. */
function startTagEnd(text: string, from: number): number {
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === ">") {
      return i;
    }
  }
  return -1;
}

/** Reads stanzas out of one connection's client-to-server text as it arrives. */
class StreamReader {
  private text = "";
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    private readonly connection: number,
    private readonly onStanza: (stanza: TappedStanza) => void,
  ) {}

  feed(chunk: Buffer): void {
    this.text += this.decoder.write(chunk);
    for (;;) {
      MESSAGE_START.lastIndex = 0;
      PRESENCE_START.lastIndex = 0;
      const m = MESSAGE_START.exec(this.text);
      const p = PRESENCE_START.exec(this.text);
      const first = [m, p].filter((x): x is RegExpExecArray => x !== null).sort((a, b) => a.index - b.index)[0];
      if (!first) {
        // Keep a tail that could be the start of a tag split across chunks.
        const lt = this.text.lastIndexOf("<");
        this.text = lt >= 0 && this.text.length - lt < 16 ? this.text.slice(lt) : "";
        return;
      }
      const kind = first === m ? "message" : "presence";
      const start = first.index;
      const tagEnd = startTagEnd(this.text, start);
      if (tagEnd < 0) {
        this.text = this.text.slice(start);
        return;
      }
      const startTag = this.text.slice(start, tagEnd + 1);
      let end: number;
      if (startTag.endsWith("/>")) {
        end = tagEnd + 1;
      } else {
        const close = this.text.indexOf(`</${kind}>`, tagEnd);
        if (close < 0) {
          this.text = this.text.slice(start);
          return;
        }
        end = close + kind.length + 3;
      }
      this.emit(kind, startTag, this.text.slice(tagEnd + 1, end));
      this.text = this.text.slice(end);
    }
  }

  private emit(kind: "message" | "presence", startTag: string, inner: string): void {
    const originTag = /<origin-id\s[^>]*>/.exec(inner)?.[0];
    const payloadTag = /<payload\s[^>]*>/.exec(inner)?.[0];
    const sessionId = /<sessionId(?:\s[^>]*)?>([^<]*)<\/sessionId>/.exec(inner)?.[1];
    const originId = originTag ? attr(originTag, "id") : undefined;
    const messageType = payloadTag ? attr(payloadTag, "messageType") : undefined;
    this.onStanza({
      at: Date.now(),
      connection: this.connection,
      kind,
      to: attr(startTag, "to") ?? "",
      type: attr(startTag, "type") ?? "",
      ...(originId !== undefined ? { originId } : {}),
      ...(messageType !== undefined ? { messageType } : {}),
      ...(sessionId !== undefined ? { sessionId: unescape(sessionId) } : {}),
    });
  }
}

/** See the module comment. */
export class WireTap {
  /** Every stanza the instance sent through this tap, in the order they passed. */
  readonly sent: TappedStanza[] = [];
  private readonly sockets = new Set<Socket>();
  private connections = 0;

  private constructor(
    private readonly server: Server,
    /** The tap's port on 127.0.0.1. */
    readonly port: number,
  ) {}

  /** Listens on a free loopback port and forwards every connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<WireTap> {
    const holder: { tap?: WireTap } = {};
    const server = createServer((client) => {
      const tap = holder.tap;
      if (!tap) {
        client.destroy();
        return;
      }
      tap.connections += 1;
      const reader = new StreamReader(tap.connections, (stanza) => tap.sent.push(stanza));
      const upstream = connect(target.port, target.host);
      tap.sockets.add(client).add(upstream);
      const end = (): void => {
        client.destroy();
        upstream.destroy();
        tap.sockets.delete(client);
        tap.sockets.delete(upstream);
      };
      client.on("error", end).on("close", end);
      upstream.on("error", end).on("close", end);
      client.on("data", (chunk: Buffer) => {
        reader.feed(chunk);
        if (!upstream.write(chunk)) client.pause();
      });
      upstream.on("drain", () => client.resume());
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (typeof address !== "object" || address === null) throw new Error("the tap has no port");
    holder.tap = new WireTap(server, address.port);
    return holder.tap;
  }

  /** The address to give the coordinator as its `xmpp:service`. */
  get service(): string {
    return `xmpp://127.0.0.1:${this.port}`;
  }

  /** A server description whose service is this tap, the rest (domain, register, …) the real server's. */
  behind<S extends { service: string }>(server: S): S {
    return Object.create(server, { service: { value: this.service, enumerable: true } }) as S;
  }

  /** The messages sent with an origin-id (the protocol stanzas of logged steps), from `since` (Date.now()) on. */
  protocolMessages(since = 0): TappedStanza[] {
    return this.sent.filter((s) => s.kind === "message" && s.originId !== undefined && s.at >= since);
  }

  /** Closes every connection through the tap and stops listening. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
