/** Reading a room's archive (XEP-0313): only the room's own answers to our query count (xmpp/room-archive.ts). */
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { archiveQuery, archivedMessageOf, finOf, NS_MAM } from "../../src/xmpp/room-archive.js";
import { roomStampOf, roomStanzaIdOf } from "../../src/xmpp/room-history.js";
import { NS_DELAY, xml, type Element } from "../../src/xmpp/stanza.js";
import { HistoryTaking, type HistoryRoom, type RoomHistory } from "../../src/xmpp/room-history-taking.js";

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

  it("asks by position alone when no instant is given", () => {
    const q = archiveQuery("q1", undefined, "A77").toString();
    expect(q).toContain("<after>A77</after>");
    expect(q).not.toContain('var="start"');
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

describe("reading a room's archive at a join", () => {
  /** A connection whose archive answers the queries in turn with `answers`; the queries are kept. */
  function taking(answers: Array<{ ok: true; result: Element | undefined } | { ok: false; error: string }>) {
    const queries: string[] = [];
    const connection = {
      iqSet: async (_to: string, query: Element) => {
        queries.push(query.toString());
        return answers.shift() ?? { ok: true, result: xml("fin", { xmlns: NS_MAM, complete: "true" }) };
      },
    };
    const histories: RoomHistory[] = [];
    const room: HistoryRoom = { jid: ROOM, nick: "Coordinator", wantedNick: "Coordinator", joined: true };
    const taker = new HistoryTaking(connection as never, pino({ level: "silent" }), () => room, (_jid, history) => void histories.push(history));
    return { taker, room, queries, histories };
  }
  const complete = { ok: true as const, result: xml("fin", { xmlns: NS_MAM, complete: "true" }) };
  const SINCE = Date.parse("2026-11-26T10:00:00Z");

  it("reads on from the last message taken in, by its archive id, with no instant", async () => {
    vi.useFakeTimers();
    try {
      const { taker, room, queries, histories } = taking([complete]);
      taker.begin(room, { kind: "since", since: SINCE, after: "A77" }, true);
      taker.joined(room, false);
      await vi.advanceTimersByTimeAsync(3_000);
      expect(queries).toHaveLength(1);
      expect(queries[0]).toContain("<after>A77</after>");
      expect(queries[0]).not.toContain('var="start"');
      expect(histories).toMatchObject([{ source: "archive", continuedAfter: "A77" }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("falls back on the instant where the archive does not know that message, and then does not claim to continue from it", async () => {
    vi.useFakeTimers();
    try {
      const { taker, room, queries, histories } = taking([{ ok: false, error: "item-not-found" }, complete]);
      taker.begin(room, { kind: "since", since: SINCE, after: "gone" }, true);
      taker.joined(room, false);
      await vi.advanceTimersByTimeAsync(3_000);
      expect(queries).toHaveLength(2);
      expect(queries[1]).toContain("<value>2026-11-26T10:00:00.000Z</value>");
      expect(queries[1]).not.toContain("<after>");
      expect(histories).toHaveLength(1);
      expect(histories[0]!.continuedAfter).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
