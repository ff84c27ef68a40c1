import { describe, expect, it } from "vitest";
import { Replies } from "../../src/inbound/replies.js";
import type { Element } from "../../src/xmpp/stanza.js";
import { keptLog } from "./helpers.js";

function line(result: "sent" | "refused" = "sent") {
  const sent: Element[] = [];
  return { sent, send: async (stanza: Element) => (sent.push(stanza), result) as never };
}

describe("replies", () => {
  it("answer a room in the room, a 1:1 sender on the line it came on, and on the room connection once the direct line is down", async () => {
    const room = line();
    const direct = line();
    const directLine = { online: true, xmpp: direct as never };
    const replies = new Replies({ connection: room, directLine, log: keptLog().log, rooms: { primary: "room@muc.example", log: null } });
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

  it("say nothing in a log room that is not configured, and log a refused send instead of throwing", async () => {
    const room = line("refused");
    const { log, lines } = keptLog();
    const replies = new Replies({ connection: room, directLine: undefined, log, rooms: { primary: "room@muc.example", log: null } });
    await replies.sayIn("log", "ignored");
    expect(room.sent).toHaveLength(0);
    await replies.privately({ room: "room@muc.example", nick: "bot" }, "too big", "bot (nick:bot)");
    expect(room.sent[0]?.attrs.to).toBe("room@muc.example/bot");
    expect(lines.find((l) => l.level === 50)).toMatchObject({ msg: "private answer not sent: over the stanza limit", sender: "bot (nick:bot)" });
  });
});
