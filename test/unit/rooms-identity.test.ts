/**
 * Rooms tells occupants apart from what the room reveals: occupant ids, real JIDs, or nick
 * lineages that follow renames but not departures.
 */
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { XmppConnection } from "../../src/xmpp/connection.js";
import { NS_OCCUPANT_ID } from "../../src/xmpp/occupant-identity.js";
import { Rooms, type RoomIdentities } from "../../src/xmpp/rooms.js";
import { NS_MUC_USER, xml, type Element } from "../../src/xmpp/stanza.js";

const ROOM = "room@conference.localhost";

/** The owner's form as Prosody 0.12 with mod_muc_mam offers it (fields abridged). */
const PROSODY_FORM = xml(
  "query",
  { xmlns: "http://jabber.org/protocol/muc#owner" },
  xml(
    "x",
    { xmlns: "jabber:x:data", type: "form" },
    ...["FORM_TYPE", "muc#roomconfig_roomname", "muc#roomconfig_persistentroom", "muc#roomconfig_whois", "muc#roomconfig_historylength", "muc#roomconfig_defaulthistorymessages", "muc#roomconfig_enablearchiving"].map((v) => xml("field", { var: v })),
  ),
);

function rooms(form: Element | null = PROSODY_FORM): { rooms: Rooms; iqs: Element[] } {
  const iqs: Element[] = [];
  const connection = {
    online: false,
    send: async () => "sent",
    skipUnread: () => undefined,
    iqGet: async () => (form ? { ok: true, result: form } : { ok: false, error: "feature-not-implemented" }),
    iqSet: async (_to: string, child: Element) => {
      iqs.push(child);
      return { ok: true, result: undefined };
    },
  } as unknown as XmppConnection;
  const r = new Rooms(connection, pino({ level: "silent" }));
  void r.enter(ROOM, "Coordinator");
  return { rooms: r, iqs };
}

interface PresenceOptions {
  type?: "unavailable";
  occupantId?: string;
  jid?: string;
  role?: string;
  affiliation?: string;
  statuses?: string[];
  newNick?: string;
}

function presence(nick: string, o: PresenceOptions = {}): Element {
  const item = xml("item", {
    role: o.role ?? "participant",
    affiliation: o.affiliation ?? "none",
    ...(o.jid ? { jid: `${o.jid}/res` } : {}),
    ...(o.newNick ? { nick: o.newNick } : {}),
  });
  return xml(
    "presence",
    { from: `${ROOM}/${nick}`, ...(o.type ? { type: o.type } : {}) },
    xml("x", { xmlns: NS_MUC_USER }, item, ...(o.statuses ?? []).map((code) => xml("status", { code }))),
    ...(o.occupantId ? [xml("occupant-id", { xmlns: NS_OCCUPANT_ID, id: o.occupantId })] : []),
  );
}

const identity = (r: Rooms, nick: string) => r.occupant(ROOM, nick)?.identity;

describe("occupant identities", () => {
  it("without occupant ids or JIDs: a rename keeps the lineage, a departure and return does not", () => {
    const { rooms: r } = rooms();
    r.handlePresence(presence("alice"));
    expect(identity(r, "alice")).toBe("nick:alice");
    r.handlePresence(presence("alice", { type: "unavailable", statuses: ["303"], newNick: "bob" }));
    r.handlePresence(presence("bob"));
    expect(identity(r, "bob")).toBe("nick:alice");
    expect(r.occupant(ROOM, "bob")?.formerNicks).toEqual(["alice"]);
    r.handlePresence(presence("bob", { type: "unavailable" }));
    r.handlePresence(presence("alice"));
    expect(identity(r, "alice")).toBe("nick:alice#2");
    r.handlePresence(presence("alice", { role: "moderator" }));
    expect(identity(r, "alice")).toBe("nick:alice#2"); // a presence update is not an arrival
  });

  it("occupant ids and real JIDs win over nicks, and follow a rename", () => {
    const { rooms: r } = rooms();
    r.handlePresence(presence("alice", { occupantId: "OID-A" }));
    r.handlePresence(presence("carol", { jid: "Carol@localhost" }));
    expect(identity(r, "alice")).toBe("occupant:OID-A");
    expect(identity(r, "carol")).toBe("jid:carol@localhost");
    r.handlePresence(presence("alice", { type: "unavailable", statuses: ["303"], newNick: "al", occupantId: "OID-A" }));
    r.handlePresence(presence("al", { occupantId: "OID-A" }));
    expect(identity(r, "al")).toBe("occupant:OID-A");
    expect(r.occupant(ROOM, "al")?.formerNicks).toEqual(["alice"]);
  });

  it("across our own reconnect, occupants present before and after keep their lineage", () => {
    const { rooms: r } = rooms();
    r.handlePresence(presence("alice"));
    r.handlePresence(presence("alice", { type: "unavailable" }));
    r.handlePresence(presence("alice"));
    expect(identity(r, "alice")).toBe("nick:alice#2");
    r.markDisconnected();
    r.handlePresence(presence("alice"));
    r.handlePresence(presence("Coordinator", { statuses: ["110"] }));
    expect(identity(r, "alice")).toBe("nick:alice#2");
  });

  it("a message's own occupant id is trusted over a stale table", () => {
    const { rooms: r } = rooms();
    r.handlePresence(presence("alice", { occupantId: "OID-A" }));
    const message = xml("message", { from: `${ROOM}/alice`, type: "groupchat" }, xml("occupant-id", { xmlns: NS_OCCUPANT_ID, id: "OID-M" }));
    expect(r.senderOf(ROOM, "alice", message).identity).toBe("occupant:OID-M");
    const plain = xml("message", { from: `${ROOM}/alice`, type: "groupchat" });
    expect(r.senderOf(ROOM, "alice", plain).identity).toBe("occupant:OID-A");
    expect(r.senderOf(ROOM, "nobody", plain).identity).toBe("nick:nobody");
  });

  it("a real JID wins over an occupant id: it is the same in every room, occupant ids are not", () => {
    const { rooms: r } = rooms();
    const other = "other@conference.localhost";
    void r.enter(other, "Coordinator");
    r.handlePresence(presence("alice", { occupantId: "OID-HERE", jid: "Alice@localhost" }));
    r.handlePresence(xml("presence", { from: `${other}/alice` }, xml("x", { xmlns: NS_MUC_USER }, xml("item", { role: "participant", affiliation: "none", jid: "alice@localhost/res" })), xml("occupant-id", { xmlns: NS_OCCUPANT_ID, id: "OID-THERE" })));
    expect(identity(r, "alice")).toBe("jid:alice@localhost");
    expect(r.occupant(other, "alice")?.identity).toBe("jid:alice@localhost");
  });

  it("a message stamped with another occupant id than the table's is not given the earlier holder's real JID", () => {
    const { rooms: r } = rooms();
    r.handlePresence(presence("alice", { occupantId: "OID-A", jid: "alice@localhost" }));
    const stamped = (id: string) => xml("message", { from: `${ROOM}/alice`, type: "groupchat" }, xml("occupant-id", { xmlns: NS_OCCUPANT_ID, id }));
    expect(r.senderOf(ROOM, "alice", stamped("OID-A"))).toMatchObject({ identity: "jid:alice@localhost", realJid: "alice@localhost" });
    expect(r.senderOf(ROOM, "alice", stamped("OID-M"))).toMatchObject({ identity: "occupant:OID-M", realJid: undefined });
  });

  it("says at join what the room reveals, and configures a room it created as non-anonymous", async () => {
    const { rooms: r, iqs } = rooms();
    const seen: RoomIdentities[] = [];
    r.on("identities", (_room, identities) => seen.push(identities));
    r.handlePresence(presence("Coordinator", { statuses: ["110", "201"], role: "moderator", affiliation: "owner", occupantId: "OID-C" }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen[0]).toEqual({ occupantIds: true, realJids: true });
    const form = iqs[0]?.toString() ?? "";
    expect(form).toContain('var="muc#roomconfig_whois"');
    expect(form).toContain("<value>anyone</value>");
    // What keeps the room's messages across a restart: persistent, a history, archived.
    expect(form).toContain('<field var="muc#roomconfig_persistentroom"><value>1</value></field>');
    expect(form).toMatch(/<field var="muc#roomconfig_historylength"><value>\d+<\/value><\/field>/);
    expect(form).toContain('<field var="muc#roomconfig_enablearchiving"><value>1</value></field>');
    // Only fields the room offers are submitted (ejabberd's name for the archive switch is not Prosody's).
    expect(form).not.toContain('var="mam"');
    expect(r.identities(ROOM)).toEqual({ occupantIds: true, realJids: true });
  });

  it("a room that gives no configuration form is still made non-anonymous, and nothing else is asked", async () => {
    const { rooms: r, iqs } = rooms(null);
    r.handlePresence(presence("Coordinator", { statuses: ["110", "201"], role: "moderator", affiliation: "owner" }));
    await new Promise((resolve) => setImmediate(resolve));
    const form = iqs[0]?.toString() ?? "";
    expect(form).toContain('var="muc#roomconfig_whois"');
    expect(form).not.toContain("persistentroom");
  });

  it("a participant in a semi-anonymous room without occupant ids learns it goes by nicks", () => {
    const { rooms: r, iqs } = rooms();
    const seen: RoomIdentities[] = [];
    r.on("identities", (_room, identities) => seen.push(identities));
    r.handlePresence(presence("alice"));
    r.handlePresence(presence("Coordinator", { statuses: ["110"] }));
    expect(seen).toEqual([{ occupantIds: false, realJids: false }]);
    expect(iqs).toEqual([]);
  });
});
