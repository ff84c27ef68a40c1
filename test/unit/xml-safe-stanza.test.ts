import type { Client } from "@xmpp/client";
import { pino, type Logger } from "pino";
import { describe, expect, it, vi } from "vitest";
import { XmppConnection } from "../../src/xmpp/connection.js";
import type { Outbox } from "../../src/xmpp/outbox.js";
import { stanzaBytes, textWireBytes, xml, xmlSafeStanza, type Element } from "../../src/xmpp/stanza.js";
import { ALL_FORBIDDEN, FORBIDDEN_CHARS, forbiddenCodePoints } from "../support/forbidden-chars.js";

const account = { service: "xmpp://127.0.0.1:1", domain: "localhost", username: "u", password: "p", resource: "r" };

/** A stanza with forbidden characters in an attribute, the body, a sibling and a nested element. */
function dirtyStanza(text = ALL_FORBIDDEN) {
  return xml(
    "message",
    { to: "room@conference.localhost", type: "groupchat" },
    xml("body", {}, `body ${text}`),
    xml("sessionId", { xmlns: "http://purl.org/stuff/lingue/", note: `attr ${text}` }, text),
    xml("x", {}, xml("deeper", {}, "ok", text, "ok")),
  );
}

function capturingLogger(): { log: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { log, lines };
}

describe("xmlSafeStanza: the gate at the stanza boundary", () => {
  it.each(FORBIDDEN_CHARS)("$name becomes U+FFFD in attributes, text and nested elements", ({ char }) => {
    const stanza = dirtyStanza(`a${char}b`);
    const safe = xmlSafeStanza(stanza);
    expect(safe.replaced).toBe(4);
    expect(forbiddenCodePoints(safe.stanza.toString())).toEqual([]);
    expect(safe.stanza.getChildText("body")).toBe("body a\uFFFDb");
    expect(safe.stanza.getChild("sessionId")?.attrs.note).toBe("attr a\uFFFDb");
    expect(safe.stanza.getChild("x")?.getChild("deeper")?.getText()).toBe("oka\uFFFDbok");
  });

  it("copies only when something changes, and never modifies the caller's stanza", () => {
    const clean = xml("message", { to: "a@b" }, xml("body", {}, "fine \u{1F600} <&>"));
    expect(xmlSafeStanza(clean)).toEqual({ stanza: clean, replaced: 0 });
    const dirty = dirtyStanza();
    const before = dirty.toString();
    const safe = xmlSafeStanza(dirty);
    expect(safe.stanza).not.toBe(dirty);
    expect(dirty.toString()).toBe(before);
    expect(safe.replaced).toBe(4 * FORBIDDEN_CHARS.length);
    // The copy is the same stanza with U+FFFD in place of each forbidden character.
    expect(safe.stanza.toString()).toBe(before.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD"));
  });

  it("stanzaBytes is the size of what is sent: each forbidden control grows from 1 byte to 3", () => {
    const controls = "\u0001".repeat(10);
    const stanza = xml("message", { to: "a@b" }, xml("body", {}, controls));
    expect(stanzaBytes(stanza)).toBe(Buffer.byteLength(stanza.toString()) + 20);
    expect(stanzaBytes(stanza)).toBe(Buffer.byteLength(xmlSafeStanza(stanza).stanza.toString()));
  });

  it("textWireBytes counts text as the serializer writes it and the gate leaves it", () => {
    for (const text of ["", "plain", `a<b>&c"d'e`, "\u{1F600}", "\u0001\uFFFE\uD800", ALL_FORBIDDEN]) {
      const inElement = xmlSafeStanza(xml("payload", {}, text)).stanza.toString();
      expect(textWireBytes(text), JSON.stringify(text)).toBe(Buffer.byteLength(inElement) - (text ? "<payload></payload>".length : "<payload/>".length));
    }
  });
});

describe("XmppConnection.send passes every stanza through the gate", () => {
  it("measures the limit on the safe stanza: under the limit raw, over it once replaced", async () => {
    const { log, lines } = capturingLogger();
    const connection = new XmppConnection({ account, maxStanzaBytes: 1024 }, log);
    const stanza = xml("message", { to: "a@b" }, xml("body", {}, "\u0001".repeat(500)));
    expect(Buffer.byteLength(stanza.toString())).toBeLessThan(1024);
    await expect(connection.send(stanza)).resolves.toBe("refused");
    expect(lines.find((l) => l.msg === "refusing to send a stanza over the size limit")?.bytes).toBe(stanzaBytes(stanza));
  });

  it("queues the safe copy and warns with the count", async () => {
    const { log, lines } = capturingLogger();
    const connection = new XmppConnection({ account, maxStanzaBytes: 64 * 1024 }, log);
    await expect(connection.send(dirtyStanza())).resolves.toBe("queued");
    await expect(connection.send(xml("presence"))).resolves.toBe("queued");
    const warning = lines.filter((l) => l.msg === "replaced characters XML forbids with U+FFFD before sending");
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatchObject({ replaced: 4 * FORBIDDEN_CHARS.length, stanza: "message" });
    const queued = (connection as unknown as { outbox: Outbox }).outbox.drain();
    expect(queued).toHaveLength(2);
    for (const s of queued) expect(forbiddenCodePoints(s.toString())).toEqual([]);
  });

  it("stanzas the client builds itself, such as an IQ reply, pass the same gate", async () => {
    const { log } = capturingLogger();
    const connection = new XmppConnection({ account, maxStanzaBytes: 64 * 1024 }, log);
    connection.onIqGet("urn:example:echo", "echo", () => xml("echo", { xmlns: "urn:example:echo", said: "\uFFFF" }, "got \u0001"));
    const xmpp = (connection as unknown as { createClient(): Client }).createClient();
    const written: Element[] = [];
    // Stands in for the TCP transport: what the client would write to the socket.
    (xmpp as unknown as { Transport: unknown }).Transport = { prototype: { send: (el: Element) => void written.push(el) } };
    try {
      xmpp.emit("element", xml("iq", { type: "get", id: "q1", from: "peer@localhost/r", to: "u@localhost/r" }, xml("echo", { xmlns: "urn:example:echo" })));
      await vi.waitFor(() => expect(written).toHaveLength(1));
      const reply = written[0] as Element;
      expect(reply.attrs).toMatchObject({ type: "result", id: "q1" });
      expect(reply.getChild("echo")?.attrs.said).toBe("\uFFFD");
      expect(reply.getChild("echo")?.getText()).toBe("got \uFFFD");
      expect(forbiddenCodePoints(reply.toString())).toEqual([]);
    } finally {
      xmpp.removeAllListeners();
    }
  });
});
