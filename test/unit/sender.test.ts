/** Who sent a message and with what standing, as the shell reads it at the edge. */
import pino from "pino";
import { describe, expect, it } from "vitest";
import { requesterOf, senderOf } from "../../src/inbound/sender.js";
import type { XmppConnection } from "../../src/xmpp/connection.js";
import type { InboundMessage } from "../../src/xmpp/inbound.js";
import { NS_OCCUPANT_ID } from "../../src/xmpp/occupant-identity.js";
import { Rooms } from "../../src/xmpp/rooms.js";
import { NS_MUC_USER, xml } from "../../src/xmpp/stanza.js";

const PRIMARY = "room@conference.localhost";
const OTHER = "other@conference.localhost";

function roomsWith(...occupants: Array<{ room: string; nick: string; role?: string; affiliation?: string; occupantId?: string; jid?: string }>): Rooms {
  const rooms = new Rooms({ online: false, skipUnread: () => undefined } as unknown as XmppConnection, pino({ level: "silent" }));
  void rooms.enter(PRIMARY, "Coordinator");
  void rooms.enter(OTHER, "Coordinator");
  for (const o of occupants) {
    rooms.handlePresence(
      xml(
        "presence",
        { from: `${o.room}/${o.nick}` },
        xml("x", { xmlns: NS_MUC_USER }, xml("item", { role: o.role ?? "participant", affiliation: o.affiliation ?? "none", ...(o.jid ? { jid: o.jid } : {}) })),
        ...(o.occupantId ? [xml("occupant-id", { xmlns: NS_OCCUPANT_ID, id: o.occupantId })] : []),
      ),
    );
  }
  return rooms;
}

const inRoom = (room: string, nick: string): InboundMessage => ({ kind: "room", room, nick, realJid: undefined, stanza: xml("message", { from: `${room}/${nick}`, type: "groupchat" }) });
const direct = (from: string): InboundMessage => ({ kind: "direct", from, bareFrom: from.split("/")[0] ?? from, viaRoom: undefined, storedAt: undefined, stanza: xml("message", { from, type: "chat" }) });

describe("senderOf", () => {
  it("a room occupant: identity from the room, named by nick, labelled with what is behind the nick", () => {
    const rooms = roomsWith({ room: PRIMARY, nick: "alice", occupantId: "OID" });
    const s = senderOf(inRoom(PRIMARY, "alice"), rooms);
    expect(s).toMatchObject({ name: "alice", rateKey: "occupant:OID", label: "alice (occupant:OID)", room: PRIMARY });
    expect(s.identity).toEqual({ nick: "alice", realJid: undefined, identity: "occupant:OID" });
  });

  it("a 1:1 sender from outside: named by bare JID, never by an identity key", () => {
    const s = senderOf(direct("carol@localhost/laptop"), roomsWith());
    expect(s).toMatchObject({ name: "carol@localhost", label: "carol@localhost", rateKey: "jid:carol@localhost", occupant: undefined });
    expect(s.identity.realJid).toBe("carol@localhost");
  });
});

describe("requesterOf: standing to steer others' sessions", () => {
  it("moderators, owners and admins of the primary room have it; of another room they do not", () => {
    const rooms = roomsWith(
      { room: PRIMARY, nick: "mod", role: "moderator" },
      { room: PRIMARY, nick: "own", affiliation: "owner" },
      { room: PRIMARY, nick: "bob" },
      { room: OTHER, nick: "elsewhere", role: "moderator" },
    );
    const standing = (room: string, nick: string) => requesterOf(senderOf(inRoom(room, nick), rooms), PRIMARY, []).standing;
    expect(standing(PRIMARY, "mod")).toBe("moderator");
    expect(standing(PRIMARY, "own")).toBe("moderator");
    expect(standing(PRIMARY, "bob")).toBeUndefined();
    expect(standing(OTHER, "elsewhere")).toBeUndefined();
  });

  it("an allow-listed real JID has it; a nick on the list does not, since anyone may take a nick", () => {
    const rooms = roomsWith({ room: PRIMARY, nick: "carol", jid: "carol@localhost/x" }, { room: PRIMARY, nick: "dave" });
    expect(requesterOf(senderOf(inRoom(PRIMARY, "carol"), rooms), PRIMARY, ["Carol@localhost"]).standing).toBe("allow-listed");
    expect(requesterOf(senderOf(inRoom(PRIMARY, "dave"), rooms), PRIMARY, ["dave"]).standing).toBeUndefined();
    expect(requesterOf(senderOf(direct("carol@localhost/phone"), rooms), PRIMARY, ["carol@localhost"]).standing).toBe("allow-listed");
  });
});
