import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { XmppConnection } from "../../src/xmpp/connection.js";
import { Outbox } from "../../src/xmpp/outbox.js";
import { xml } from "../../src/xmpp/stanza.js";

const account = { service: "xmpp://127.0.0.1:1", domain: "localhost", username: "u", password: "p", resource: "r" };

describe("sending while disconnected", () => {
  it("queues instead of throwing, and refuses stanzas over the limit", async () => {
    const connection = new XmppConnection({ account, maxStanzaBytes: 1024 }, pino({ level: "silent" }));
    await expect(connection.send(xml("message", { to: "a@b" }, xml("body", {}, "hi")))).resolves.toBe("queued");
    await expect(connection.send(xml("message", { to: "a@b" }, xml("body", {}, "x".repeat(2000))))).resolves.toBe("refused");
  });

  it("is settled at once while offline: a paced bulk send never waits on a server that is not there", async () => {
    const connection = new XmppConnection({ account, maxStanzaBytes: 1024 }, pino({ level: "silent" }));
    await expect(connection.settled()).resolves.toBeUndefined();
  });

  it("does not measure a stanza the sender sized when it built it", async () => {
    const connection = new XmppConnection({ account, maxStanzaBytes: 1024 }, pino({ level: "silent" }));
    // Over the limit on purpose, to see that it is not measured; the host marks only stanzas within it.
    await expect(connection.send(xml("message", { to: "a@b" }, xml("body", {}, "x".repeat(2000))), { sized: true })).resolves.toBe("queued");
  });

  it("keeps the outbox bounded, dropping the oldest", () => {
    const outbox = new Outbox(2);
    for (const n of ["1", "2", "3"]) outbox.push(xml("message", { id: n }));
    expect(outbox.dropped).toBe(1);
    expect(outbox.drain().map((s) => s.attrs.id)).toEqual(["2", "3"]);
    expect(outbox.size).toBe(0);
  });
});
