/** Reading a room's archive (XEP-0313): only the room's own answers to our query count (xmpp/room-archive.ts). */
import { describe, expect, it } from "vitest";
import { archiveQuery, archivedMessageOf, finOf, NS_MAM } from "../../src/xmpp/room-archive.js";
import { roomStampOf, roomStanzaIdOf } from "../../src/xmpp/room-history.js";
import { NS_DELAY, xml, type Element } from "../../src/xmpp/stanza.js";

const ROOM = "room@conference.localhost";
const FORWARD = "urn:xmpp:forward:0";

function result(from: string, queryId: string, inner: Element, stamp = "2026-11-26T10:02:03Z", id = "A1"): Element {
  return xml("message", { from, to: "coordinator@localhost/Coordinator" }, xml("result", { xmlns: NS_MAM, queryid: queryId, id }, xml("forwarded", { xmlns: FORWARD }, xml("delay", { xmlns: NS_DELAY, stamp }), inner)));
}

const said = () => xml("message", { from: `${ROOM}/modeler`, type: "groupchat", id: "m1" }, xml("body", {}, "hello"));

describe("a room's archive", () => {
  it("gives the message as said, with the archive's instant and id as the room's own, read last", () => {
    const forged = said();
    forged.append(xml("delay", { xmlns: NS_DELAY, from: ROOM, stamp: "2020-01-01T00:00:00Z" }));
    const message = archivedMessageOf(result(ROOM, "q1", forged), ROOM, "q1");
    expect(message?.getChildText("body")).toBe("hello");
    expect(roomStampOf(message as Element, ROOM)).toBe(Date.parse("2026-11-26T10:02:03Z"));
    expect(roomStanzaIdOf(message as Element, ROOM)).toBe("A1");
  });

  it("refuses a result for another query, from anyone but the room, or without an instant", () => {
    expect(archivedMessageOf(result(ROOM, "other", said()), ROOM, "q1")).toBeUndefined();
    expect(archivedMessageOf(result("mallory@localhost", "q1", said()), ROOM, "q1")).toBeUndefined();
    expect(archivedMessageOf(result(`${ROOM}/mallory`, "q1", said()), ROOM, "q1")).toBeUndefined();
    expect(archivedMessageOf(result(ROOM, "q1", said(), "not a date"), ROOM, "q1")).toBeUndefined();
  });

  it("pages: the query asks from an instant after the last id; the end of a page says where to go on", () => {
    const q = archiveQuery("q1", Date.parse("2026-11-26T10:00:00Z"), "A50").toString();
    expect(q).toContain("<value>2026-11-26T10:00:00.000Z</value>");
    expect(q).toContain("<after>A50</after>");
    const fin = xml("fin", { xmlns: NS_MAM }, xml("set", { xmlns: "http://jabber.org/protocol/rsm" }, xml("last", {}, "A100")));
    expect(finOf(fin)).toEqual({ complete: false, last: "A100" });
    expect(finOf(xml("iq", {}, xml("fin", { xmlns: NS_MAM, complete: "true" })))).toEqual({ complete: true, last: undefined });
  });
});
