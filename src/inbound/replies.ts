/**
 * Where answers to inbound messages leave: the room connection, or the direct line for an
 * answer to what came on it. Each 1:1 answer to a person goes with our presence to them
 * first (xmpp/directed-presence.ts), so their client shows us online while we answer; never
 * to a room occupant, for whom presence would be a join. A send refused as over
 * the stanza limit is logged, never thrown, so no answer can take the handling of a message down.
 */
import type { Logger } from "pino";
import { encodeMessage } from "../protocol/codec.js";
import { marked } from "../session/room-lines.js";
import { privateMessage } from "../host/outgoing.js";
import type { XmppConnection } from "../xmpp/connection.js";
import type { DirectLine } from "../xmpp/direct-line.js";
import { bareJid } from "../xmpp/stanza.js";
import type { ReplyOutlet, ReplyTarget } from "./context.js";

/** The connections answers leave on, and the rooms `sayIn` names. */
export interface RepliesOptions {
  connection: Pick<XmppConnection, "send">;
  directLine: Pick<DirectLine, "online" | "xmpp"> | undefined;
  log: Logger;
  /** Whether a JID is one of our rooms: an answer through a room (a private message) goes without presence. */
  isRoom: (jid: string) => boolean;
  /** The primary room and the log room (null: none), as configured. */
  rooms: { primary: string; log: string | null };
}

/** The outlet every stage answers through (context.ts). */
export class Replies implements ReplyOutlet {
  constructor(private readonly options: RepliesOptions) {}

  /**
   * Sends a one-line or multi-line human message. An answer to what came on the direct line
   * goes back on it, unless it has gone down meanwhile.
   */
  async to(target: ReplyTarget, text: string): Promise<void> {
    const { connection, directLine, log } = this.options;
    // Every line in a room is the coordinator's status: marked (session/room-lines.ts); 1:1 chat is not.
    const stanza =
      target.kind === "room" ? encodeMessage({ to: target.room, type: "groupchat", body: marked(text) }) : encodeMessage({ to: target.to, type: "chat", body: text });
    const line = target.kind === "direct" && target.onDirectLine && directLine?.online ? directLine.xmpp : connection;
    const presentTo = target.kind === "direct" && !this.options.isRoom(bareJid(target.to));
    const result = await line.send(stanza, { presentTo });
    if (result === "refused") log.error({ target }, "reply not sent: over the stanza limit");
  }

  /** A private message through the room, to the occupant that sent what it answers. */
  async privately(via: { room: string; nick: string }, text: string, senderLabel: string): Promise<void> {
    const result = await this.options.connection.send(privateMessage(via.room, via.nick, text));
    if (result === "refused") this.options.log.error({ sender: senderLabel }, "private answer not sent: over the stanza limit");
  }

  /** A line in the primary room or the log room; nothing when there is no log room. */
  async sayIn(room: "primary" | "log", text: string): Promise<void> {
    const jid = room === "primary" ? this.options.rooms.primary : this.options.rooms.log;
    if (!jid) return;
    await this.to({ kind: "room", room: bareJid(jid) }, text);
  }
}
