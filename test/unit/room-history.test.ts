/** What the room tells about a message it gives back (xmpp/room-history.ts). */
import { describe, expect, it } from "vitest";
import { joinHistory, originIdInText, roomStampOf } from "../../src/xmpp/room-history.js";
import { NS_DELAY, xml } from "../../src/xmpp/stanza.js";

const ROOM = "room@conference.localhost";

describe("room history", () => {
  it("the stamp is the room's own delay, the last it added; a sender's forged one does not count", () => {
    const message = xml(
      "message",
      { from: `${ROOM}/modeler`, type: "groupchat" },
      xml("delay", { xmlns: NS_DELAY, from: ROOM, stamp: "2020-01-01T00:00:00Z" }), // put there by the sender
      xml("delay", { xmlns: NS_DELAY, from: "modeler@localhost", stamp: "2030-01-01T00:00:00Z" }),
      xml("delay", { xmlns: NS_DELAY, from: ROOM, stamp: "2026-11-26T10:02:03Z" }), // the room's, appended last
    );
    expect(roomStampOf(message, ROOM)).toBe(Date.parse("2026-11-26T10:02:03Z"));
    expect(roomStampOf(xml("message", {}, xml("delay", { xmlns: NS_DELAY, from: "other@conference.localhost", stamp: "2026-11-26T10:02:03Z" })), ROOM)).toBeUndefined();
    expect(roomStampOf(xml("message", {}, xml("delay", { xmlns: NS_DELAY, from: ROOM, stamp: "yesterday" })), ROOM)).toBeUndefined();
  });

  it("asks for history since an instant in whole seconds, or for none", () => {
    expect(joinHistory({ kind: "since", since: Date.parse("2026-11-26T10:02:03.987Z") }).toString()).toContain('since="2026-11-26T10:02:03Z"');
    expect(joinHistory({ kind: "none" }).toString()).toContain('maxstanzas="0"');
  });

  it("reads an origin-id from a stanza's text, in any attribute order and quoting, past a stanza-id", () => {
    expect(originIdInText(`<message><origin-id xmlns="urn:xmpp:sid:0" id="mfr:a:1:0"/></message>`)).toBe("mfr:a:1:0");
    expect(originIdInText(`<message><stanza-id xmlns='urn:xmpp:sid:0' by='r' id='S'/><origin-id id='mfr:a:2:1' xmlns='urn:xmpp:sid:0'/></message>`)).toBe("mfr:a:2:1");
    expect(originIdInText(`<message><body>origin-id urn:xmpp:sid:0</body></message>`)).toBeUndefined();
  });
});
