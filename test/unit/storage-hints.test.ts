import { describe, expect, it } from "vitest";
import { encodeMessage } from "../../src/protocol/codec.js";
import { Mode } from "../../src/base/vocab.js";
import { hintStorage, NS_HINTS } from "../../src/xmpp/storage-hints.js";
import { xml, type Element } from "../../src/xmpp/stanza.js";

const ROOM = "room@conference.example.org";
const hints = (stanza: Element) => stanza.getChildElements().filter((c: Element) => c.attrs.xmlns === NS_HINTS).map((c: Element) => c.name);
const protocolMessage = (body?: string) =>
  encodeMessage({ to: ROOM, type: "groupchat", ...(body === undefined ? {} : { body }), payload: { mode: Mode.ModelNegotiation, content: "{}" } });

describe("storage hints on what the coordinator sends into a room (XEP-0334)", () => {
  it("a protocol message without a body asks to be kept: ejabberd keeps such a message nowhere otherwise", () => {
    const stanza = protocolMessage();
    hintStorage(stanza, false);
    expect(hints(stanza)).toEqual(["store"]);
  });

  it("a message with a body is kept anyway: no hint", () => {
    const stanza = protocolMessage("Validation of amber-fox-42: 2 violations");
    hintStorage(stanza, false);
    expect(hints(stanza)).toEqual([]);
  });

  it("a model's part asks not to be kept, body or not", () => {
    for (const stanza of [protocolMessage(), protocolMessage("part 1/3")]) {
      hintStorage(stanza, true);
      expect(hints(stanza)).toEqual(["no-store"]);
    }
  });

  it("a private message through the room is left as it is", () => {
    const stanza = xml("message", { to: `${ROOM}/planner`, type: "chat" }, xml("payload", { xmlns: "x" }));
    hintStorage(stanza, false);
    expect(hints(stanza)).toEqual([]);
  });

  it("a hint already there is kept, never doubled", () => {
    const stanza = protocolMessage();
    stanza.append(xml("no-store", { xmlns: NS_HINTS }));
    hintStorage(stanza, false);
    hintStorage(stanza, true);
    expect(hints(stanza)).toEqual(["no-store"]);
  });
});
