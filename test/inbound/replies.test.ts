import { describe, expect, it } from "vitest";
import { Replies } from "../../src/inbound/replies.js";
import type { SendOptions } from "../../src/xmpp/connection.js";
import type { Element } from "../../src/xmpp/stanza.js";
import { keptLog } from "./helpers.js";

function line(result: "sent" | "refused" = "sent") {
  const sent: Element[] = [];
  const options: SendOptions[] = [];
  return { sent, options, send: async (stanza: Element, o: SendOptions = {}) => (sent.push(stanza), options.push(o), result) as never };
}

const isRoom = (jid: string): boolean => jid === "room@muc.example";

describe("replies", () => {
  it("answer a room in the room, a 1:1 sender on the line it came on, and on the room connection once the direct line is down", async () => {
    const room = line();
    const direct = line();
    const directLine = { online: true, xmpp: direct as never };
    const replies = new Replies({ connection: room, directLine, log: keptLog().log, isRoom, rooms: { primary: "room@muc.example", log: null } });
    await replies.to({ kind: "room", room: "room@muc.example" }, "hello");
    await replies.to({ kind: "direct", to: "alice@example/phone", onDirectLine: true }, "1:1");
    directLine.online = false;
    await replies.to({ kind: "direct", to: "alice@example/phone", onDirectLine: true }, "late");
    // A line in the room carries the status mark (session/room-lines.ts); 1:1 chat does not.
    expect(room.sent.map((s) => [s.attrs.type, s.attrs.to, s.getChildText("body")])).toEqual([
      ["groupchat", "room@muc.example", "[MFR] hello"],
      ["chat", "alice@example/phone", "late"],
    ]);
    expect(direct.sent.map((s) => s.getChildText("body"))).toEqual(["1:1"]);
  });

  it("ask the line to send our presence first to a person answered 1:1, never to a room or an occupant through it", async () => {
    const room = line();
    const replies = new Replies({ connection: room, directLine: undefined, log: keptLog().log, isRoom, rooms: { primary: "room@muc.example", log: null } });
    await replies.to({ kind: "direct", to: "alice@example/phone", onDirectLine: false }, "1:1");
    await replies.to({ kind: "direct", to: "room@muc.example/alice", onDirectLine: false }, "through the room");
    await replies.to({ kind: "room", room: "room@muc.example" }, "in the room");
    expect(room.options.map((o) => o.presentTo)).toEqual([true, false, false]);
  });

  it("say nothing in a log room that is not configured, and log a refused send instead of throwing", async () => {
    const room = line("refused");
    const { log, lines } = keptLog();
    const replies = new Replies({ connection: room, directLine: undefined, log, isRoom, rooms: { primary: "room@muc.example", log: null } });
    await replies.sayIn("log", "ignored");
    expect(room.sent).toHaveLength(0);
    await replies.privately({ room: "room@muc.example", nick: "bot" }, "too big", "bot (nick:bot)");
    expect(room.sent[0]?.attrs.to).toBe("room@muc.example/bot");
    expect(lines.find((l) => l.level === 50)).toMatchObject({ msg: "private answer not sent: over the stanza limit", sender: "bot (nick:bot)" });
  });
});
