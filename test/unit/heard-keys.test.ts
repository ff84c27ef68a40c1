/**
 * A message the room gives back (history at a join, the archive, a second delivery) is
 * recognised as the one taken in live, whatever the room adds to it; two different messages
 * are never taken for one (host/heard.ts).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { heardKeys } from "../../src/host/heard.js";
import { LINGUE } from "../../src/base/vocab.js";
import { NS_OCCUPANT_ID } from "../../src/xmpp/occupant-identity.js";
import { NS_SID } from "../../src/xmpp/room-history.js";
import { NS_DELAY, NS_MUC_USER, xml, type Element } from "../../src/xmpp/stanza.js";

const ROOM = "room@conference.localhost";

interface Said {
  nick: string;
  id: string | undefined;
  originId: string | undefined;
  body: string | undefined;
  payload: string | undefined;
  sessionId: string;
}

const said: fc.Arbitrary<Said> = fc.record({
  nick: fc.constantFrom("modeler", "planner", "alice", "Modeler"),
  id: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
  originId: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
  body: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
  payload: fc.option(fc.string({ maxLength: 80 }), { nil: undefined }),
  sessionId: fc.constantFrom("amber-fox-1", "ivory-toad-2"),
});

/** The message as the room broadcasts it live (with the occupant id it stamps). */
function live(m: Said, stanzaId?: string): Element {
  return xml(
    "message",
    { from: `${ROOM}/${m.nick}`, to: "coordinator@localhost/Coordinator", type: "groupchat", ...(m.id !== undefined ? { id: m.id } : {}) },
    ...(m.body !== undefined ? [xml("body", {}, m.body)] : []),
    ...(m.payload !== undefined ? [xml("payload", { xmlns: LINGUE, mode: "x" }, m.payload)] : []),
    xml("sessionId", { xmlns: LINGUE }, m.sessionId),
    ...(m.originId !== undefined ? [xml("origin-id", { xmlns: NS_SID, id: m.originId })] : []),
    xml("occupant-id", { xmlns: NS_OCCUPANT_ID, id: `OID-${m.nick}` }),
    ...(stanzaId ? [xml("stanza-id", { xmlns: NS_SID, by: ROOM, id: stanzaId })] : []),
  );
}

/** The same message given back as history: a delay, maybe a stanza-id and the sender's real JID added, another `to`. */
function givenBack(m: Said, stanzaId?: string): Element {
  const stanza = live(m, stanzaId);
  stanza.attrs.to = "coordinator@localhost/Coordinator-2";
  stanza.append(xml("x", { xmlns: NS_MUC_USER }, xml("item", { jid: `${m.nick}@localhost` })));
  stanza.append(xml("delay", { xmlns: NS_DELAY, from: ROOM, stamp: "2026-11-26T10:00:00Z" }));
  return stanza;
}

const shareAKey = (a: string[], b: string[]) => a.some((k) => b.includes(k));

describe("keys of a message taken in from a room", () => {
  it("a message given back as history shares a key with the one taken in live", () => {
    fc.assert(
      fc.property(said, fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined }), (m, stanzaId) => {
        expect(shareAKey(heardKeys(ROOM, m.nick, live(m, stanzaId)), heardKeys(ROOM, m.nick, givenBack(m, stanzaId)))).toBe(true);
        // Live without a stanza-id (no archive then), given back with one (archive switched on): still one message.
        expect(shareAKey(heardKeys(ROOM, m.nick, live(m)), heardKeys(ROOM, m.nick, givenBack(m, stanzaId)))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("two messages that differ in sender, id or text never share a key (unless the room says they are one)", () => {
    fc.assert(
      fc.property(said, said, (a, b) => {
        const same = a.nick === b.nick && (a.originId ?? a.id ?? "") === (b.originId ?? b.id ?? "") && a.body === b.body && a.payload === b.payload && a.sessionId === b.sessionId;
        fc.pre(!same);
        expect(shareAKey(heardKeys(ROOM, a.nick, givenBack(a)), heardKeys(ROOM, b.nick, givenBack(b)))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("the room's stanza-id is a key of its own; one that another JID claims to have given is not", () => {
    const m: Said = { nick: "modeler", id: "1", originId: undefined, body: "hi", payload: undefined, sessionId: "amber-fox-1" };
    expect(heardKeys(ROOM, "modeler", live(m, "S1"))).toContain("sid:S1");
    const forged = live(m);
    forged.append(xml("stanza-id", { xmlns: NS_SID, by: "attacker@localhost", id: "S1" }));
    expect(heardKeys(ROOM, "modeler", forged)).not.toContain("sid:S1");
  });
});
