/**
 * The demo's scripted person: a plain XMPP client in the room that prints everything said
 * there as a transcript, and can type commands.
 */
import { client, xml, type Client } from "@xmpp/client";
import { startClient } from "../../xmpp/client-start.js";
import { LINGUE, Mode } from "../../base/vocab.js";

export interface TranscriptLine {
  at: number;
  nick: string;
  text: string;
  payload?: { mode: string; messageType?: string; json?: Record<string, unknown> };
  /** The line is the room's subject (XEP-0045: a message with a subject and no body), as it came at the join or changed. */
  subject?: true;
}

export class RoomTranscript {
  readonly lines: TranscriptLine[] = [];
  private readonly xmpp: Client;
  private readonly waiters: Array<{ match: (l: TranscriptLine) => boolean; resolve: (l: TranscriptLine) => void }> = [];

  constructor(
    private readonly account: { service: string; domain: string; username: string; password: string },
    private readonly room: string,
    private readonly nick: string,
    private readonly print: (line: string) => void,
    private readonly startedAt: number,
  ) {
    this.xmpp = client({ ...account, resource: "demo" });
    this.xmpp.on("error", () => undefined);
    this.xmpp.on("stanza", (stanza) => this.onStanza(stanza));
  }

  async join(): Promise<void> {
    await startClient(this.xmpp);
    await this.xmpp.send(xml("presence", { to: `${this.room}/${this.nick}` }, xml("x", { xmlns: "http://jabber.org/protocol/muc" }, xml("history", { maxstanzas: "0" }))));
  }

  async say(text: string): Promise<void> {
    await this.xmpp.send(xml("message", { to: this.room, type: "groupchat" }, xml("body", {}, text)));
  }

  waitFor(match: (l: TranscriptLine) => boolean, timeoutMs: number): Promise<TranscriptLine> {
    const found = this.lines.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) {
          this.waiters.splice(i, 1);
          reject(new Error(`nothing matching arrived within ${timeoutMs} ms`));
        }
      }, timeoutMs).unref();
    });
  }

  async leave(): Promise<void> {
    await this.xmpp.stop().catch(() => undefined);
  }

  private onStanza(stanza: ReturnType<typeof xml>): void {
    if (!stanza.is("message") || stanza.attrs.type !== "groupchat") return;
    const from = String(stanza.attrs.from ?? "");
    const slash = from.indexOf("/");
    if (slash < 0) return;
    const nick = from.slice(slash + 1);
    const body = stanza.getChildText("body") ?? "";
    const subject = stanza.getChild("body") === undefined ? stanza.getChildText("subject") : null;
    const payloadEl = stanza.getChild("payload", LINGUE);
    let payload: TranscriptLine["payload"];
    if (payloadEl) {
      let json: Record<string, unknown> | undefined;
      if (payloadEl.attrs.mode === Mode.ModelNegotiation) {
        try {
          json = JSON.parse(payloadEl.text()) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
      }
      payload = { mode: String(payloadEl.attrs.mode), messageType: payloadEl.attrs.messageType ? String(payloadEl.attrs.messageType) : undefined, json };
    }
    const line: TranscriptLine = subject !== null ? { at: Date.now(), nick, text: subject, subject: true } : { at: Date.now(), nick, text: body, ...(payload ? { payload } : {}) };
    this.lines.push(line);
    this.print(this.format(line));
    for (const waiter of [...this.waiters]) {
      if (waiter.match(line)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  }

  private format(line: TranscriptLine): string {
    const t = `+${((line.at - this.startedAt) / 1000).toFixed(2).padStart(6)}s`;
    const tag = line.payload ? `  [${short(line.payload.messageType ?? line.payload.mode)}]` : line.subject ? "  [subject]" : "";
    const text = line.text.split("\n");
    const first = `${t}  ${line.nick.padEnd(12)} ${text[0] ?? ""}${tag}`;
    return [first, ...text.slice(1).map((l) => `${" ".repeat(22)}${l}`)].join("\n");
  }
}

function short(iri: string): string {
  return iri.slice(Math.max(iri.lastIndexOf("/"), iri.lastIndexOf("#")) + 1);
}
