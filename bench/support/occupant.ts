/**
 * A bench's client of one room on its own connection (bench/load.ts, bench/load/stand-in.ts,
 * bench/stalls/room.ts): it hears the room's messages and its own 1:1 chats apart, and keeps
 * who is present.
 */
import { client, xml, type Client } from "@xmpp/client";
import { LINGUE } from "../../src/base/vocab.js";
import { sendWithoutDelay } from "../../src/xmpp/no-delay.js";
import { feedParserWholeStanzas } from "../../src/xmpp/parser-feed.js";
import { startClient } from "../../src/xmpp/client-start.js";

export type Element = ReturnType<typeof xml>;

/** Where the server is: a started LocalProsody, or the plan a child process was given. */
export interface ServerAddress {
  service: string;
  domain: string;
}

/** A room occupant on its own connection. */
export class Occupant {
  readonly xmpp: Client;
  /** What others say in the room. */
  onMessage: (stanza: Element) => void = () => undefined;
  /** Any other message: 1:1 chats, private messages through the room. */
  onDirect: (stanza: Element) => void = () => undefined;
  readonly present = new Set<string>();
  /**
   * Sees each stanza's text before it is parsed; true means handled (or not wanted), and the
   * stanza is dropped unparsed. By default everything is parsed.
   */
  skim: (raw: string) => boolean = () => false;

  constructor(server: ServerAddress, username: string, password: string, readonly room: string, readonly nick: string) {
    this.xmpp = client({ service: server.service, domain: server.domain, username, password, resource: nick });
    // The library's parser is quadratic on a stanza that arrives in several chunks (stanza-splitter.ts):
    // without this, the agents' own reading of each SolutionRequest would count as the coordinator's.
    feedParserWholeStanzas(this.xmpp, { drop: (raw) => this.skim(raw) });
    sendWithoutDelay(this.xmpp);
    this.xmpp.on("error", () => undefined);
    this.xmpp.on("stanza", (stanza: Element) => {
      if (stanza.is("presence")) {
        const from = String(stanza.attrs.from ?? "");
        const nickOf = from.slice(from.indexOf("/") + 1);
        if (stanza.attrs.type === "unavailable") this.present.delete(nickOf);
        else this.present.add(nickOf);
      } else if (stanza.is("message") && !String(stanza.attrs.from).endsWith(`/${this.nick}`)) {
        if (stanza.attrs.type === "groupchat") this.onMessage(stanza);
        else this.onDirect(stanza);
      }
    });
  }

  /** Online, in no room. */
  async connect(): Promise<void> {
    await startClient(this.xmpp);
    await this.xmpp.send(xml("presence"));
  }

  async join(): Promise<void> {
    await this.connect();
    await this.xmpp.send(xml("presence", { to: `${this.room}/${this.nick}` }, xml("x", { xmlns: "http://jabber.org/protocol/muc" }, xml("history", { maxstanzas: "0" }))));
  }

  say(body: string, payload?: { mode: string; mime: string; content: string; messageType?: string }, siblings: Record<string, string> = {}): Promise<void> {
    return this.xmpp.send(
      xml(
        "message",
        { to: this.room, type: "groupchat" },
        xml("body", {}, body),
        ...(payload ? [xml("payload", { xmlns: LINGUE, mode: payload.mode, mime: payload.mime, ...(payload.messageType ? { messageType: payload.messageType } : {}) }, payload.content)] : []),
        ...Object.entries(siblings).map(([name, value]) => xml(name, { xmlns: LINGUE }, value)),
      ),
    );
  }

  /** Leaves the room and stays connected (stopping mid-run could meet the library's throw on close). */
  leave(): Promise<void> {
    return this.xmpp.send(xml("presence", { to: `${this.room}/${this.nick}`, type: "unavailable" }));
  }

  async stop(): Promise<void> {
    await this.xmpp.stop().catch(() => undefined);
  }
}
