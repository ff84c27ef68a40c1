/**
 * The subject of a room the coordinator created (xmpp/room-creation.ts): given once, at the
 * creation, to a room whose subject came empty; never to a room someone else created, nor over
 * a subject the room came with. And our own subject, which the room sends from our nick after
 * every join's history, is parsed (it ends that history), while our other echoes are not.
 */
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { XmppConnection } from "../../src/xmpp/connection.js";
import { Rooms } from "../../src/xmpp/rooms.js";
import { NS_MUC_USER, xml, type Element } from "../../src/xmpp/stanza.js";
import { commandWording } from "../../src/commands/wording.js";

const ROOM = "room@conference.localhost";
const SUBJECT = commandWording.roomSubject("Coordinator");

function rooms(): { rooms: Rooms; sent: Element[]; unread: (raw: string) => boolean } {
  const sent: Element[] = [];
  const tests: Array<(raw: string) => boolean> = [];
  const connection = {
    online: false,
    send: async (stanza: Element) => (sent.push(stanza), "sent"),
    skipUnread: (test: (raw: string) => boolean) => void tests.push(test),
    iqGet: async () => ({ ok: false, error: "feature-not-implemented" }),
    iqSet: async () => ({ ok: true, result: undefined }),
  } as unknown as XmppConnection;
  const r = new Rooms(connection, pino({ level: "silent" }), { subjectOfCreatedRoom: (nick) => commandWording.roomSubject(nick) });
  void r.enter(ROOM, "Coordinator");
  return { rooms: r, sent, unread: (raw) => tests.some((t) => t(raw)) };
}

function selfPresence(statuses: string[]): Element {
  return xml("presence", { from: `${ROOM}/Coordinator` }, xml("x", { xmlns: NS_MUC_USER }, xml("item", { role: "moderator", affiliation: "owner" }), ...statuses.map((code) => xml("status", { code }))));
}

const subjectMessage = (text: string, from = ROOM) => xml("message", { from, type: "groupchat" }, xml("subject", {}, text));
const subjectsSent = (sent: Element[]) => sent.filter((s) => s.is("message") && s.getChild("subject")).map((s) => [s.attrs.to, s.attrs.type, s.getChildText("subject"), s.getChild("body")]);
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the subject of a room we create", () => {
  it("a room our join created, whose subject came empty, gets ours once it is configured", async () => {
    const { rooms: r, sent } = rooms();
    r.handlePresence(selfPresence(["110", "201"]));
    r.takeHistory(subjectMessage(""));
    await settle();
    expect(subjectsSent(sent)).toEqual([[ROOM, "groupchat", SUBJECT, undefined]]);
    // The room sends it back from our nick: what we see as its subject from then on.
    r.takeHistory(subjectMessage(SUBJECT, `${ROOM}/Coordinator`));
    expect(r.subject(ROOM)).toBe(SUBJECT);
  });

  it("a room our join created with a subject of its own (a server's default) keeps it", async () => {
    const { rooms: r, sent } = rooms();
    r.handlePresence(selfPresence(["110", "201"]));
    r.takeHistory(subjectMessage("The service's default subject"));
    await settle();
    expect(subjectsSent(sent)).toEqual([]);
  });

  it("a room someone else created is never given one, empty as its subject may be", async () => {
    const { rooms: r, sent } = rooms();
    r.handlePresence(selfPresence(["110"]));
    r.takeHistory(subjectMessage(""));
    await settle();
    expect(subjectsSent(sent)).toEqual([]);
    expect(r.subject(ROOM)).toBe("");
  });

  it("our own echoes are left unparsed, but not our subject, which the room sends after each join's history", () => {
    const { unread } = rooms();
    expect(unread(`<message from="${ROOM}/Coordinator" type="groupchat" id="1"><body>Session started</body></message>`)).toBe(true);
    expect(unread(`<message from="${ROOM}/Coordinator" type="groupchat"><subject>${SUBJECT}</subject><delay xmlns="urn:xmpp:delay" stamp="2026-01-01T00:00:00Z"/></message>`)).toBe(false);
    expect(unread(`<message from="${ROOM}/alice" type="groupchat"><body>hello</body></message>`)).toBe(false);
  });
});
