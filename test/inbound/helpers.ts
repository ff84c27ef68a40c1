/**
 * What the inbound stage tests share: a log that keeps its lines, and an outlet that keeps
 * what would have been said, so a test reads both.
 */
import { pino, type Logger } from "pino";
import { inboundContext, type InboundContext, type ReplyOutlet, type ReplyTarget } from "../../src/inbound/context.js";
import { decodeMessage } from "../../src/protocol/codec.js";
import { senderOf } from "../../src/inbound/sender.js";
import type { XmppConnection } from "../../src/xmpp/connection.js";
import type { Line } from "../../src/xmpp/direct-line.js";
import { classifyMessage } from "../../src/xmpp/inbound.js";
import { Rooms } from "../../src/xmpp/rooms.js";
import { NS_MUC_USER, xml, type Element } from "../../src/xmpp/stanza.js";

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A debug-level logger whose lines are kept, parsed, in `lines`. */
export function keptLog(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level: "trace" }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { log, lines };
}

export type Said = { how: "to"; target: ReplyTarget; text: string } | { how: "privately"; to: string; text: string } | { how: "sayIn"; room: string; text: string };

/** An outlet that keeps what would have been sent. */
export function keptOutlet(): ReplyOutlet & { said: Said[] } {
  const said: Said[] = [];
  return {
    said,
    to: async (target, text) => void said.push({ how: "to", target, text }),
    privately: async (via, text) => void said.push({ how: "privately", to: `${via.room}/${via.nick}`, text }),
    sayIn: async (room, text) => void said.push({ how: "sayIn", room, text }),
  };
}

export const PRIMARY = "room@conference.localhost";

/** Rooms we are in (the primary one), with these occupants present. */
type Present = { nick: string; jid?: string; role?: string; affiliation?: string };

export function roomsWith(...occupants: Present[]): Rooms {
  const rooms = new Rooms({ online: false, skipUnread: () => undefined } as unknown as XmppConnection, pino({ level: "silent" }));
  void rooms.enter(PRIMARY, "Coordinator");
  const present: Present[] = [{ nick: "Coordinator" }, ...occupants];
  for (const o of present) {
    rooms.handlePresence(
      xml(
        "presence",
        { from: `${PRIMARY}/${o.nick}` },
        xml("x", { xmlns: NS_MUC_USER }, xml("item", { role: o.role ?? "participant", affiliation: o.affiliation ?? "none", ...(o.jid ? { jid: o.jid } : {}) })),
      ),
    );
  }
  return rooms;
}

/** A groupchat line said in the primary room. */
export function roomLine(nick: string, body: string, extra: Element[] = [], id = "m-1"): Element {
  return xml("message", { from: `${PRIMARY}/${nick}`, type: "groupchat", id }, xml("body", {}, body), ...extra);
}

/** The context of a message as admit.ts would make it (no flood or size checks). */
export function contextOf(stanza: Element, rooms: Rooms, outlet: ReplyOutlet, line: Line = "room-connection"): InboundContext {
  const message = classifyMessage(stanza, rooms, "coordinator@localhost");
  if ("ignored" in message) throw new Error(`not input: ${message.ignored}`);
  return inboundContext({ stanza, line, message, decoded: decodeMessage(stanza), heard: undefined, sender: senderOf(message, rooms) }, outlet);
}
