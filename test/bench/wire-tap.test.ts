/**
 * The wire tap of the failover test and bench (bench/support/wire-tap.ts): what a client
 * sends passes through unchanged, and every message and presence is written down with its
 * addressee, type, origin-id, message type and session id, however the bytes are split.
 */
import { createServer, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WireTap } from "../../bench/support/wire-tap.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanups.splice(0).reverse()) await step();
});

/** A server that keeps what it receives; the tap in front of it; a client connected to the tap. */
async function tapped(): Promise<{ tap: WireTap; client: Socket; received: () => string }> {
  const chunks: Buffer[] = [];
  const server = createServer((socket) => socket.on("data", (d: Buffer) => chunks.push(d)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no port");
  const tap = await WireTap.start({ host: "127.0.0.1", port: address.port });
  const client = connect(tap.port, "127.0.0.1");
  await new Promise<void>((resolve) => client.once("connect", () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())), () => tap.stop(), () => void client.destroy());
  return { tap, client, received: () => Buffer.concat(chunks).toString("utf8") };
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

const STREAM = `<?xml version='1.0'?><stream:stream to="localhost" xmlns="jabber:client" xmlns:stream="http://etherx.jabber.org/streams" version="1.0">`;
const REQUEST =
  `<message to="room@conference.localhost" type="groupchat" id="mfr:abc:3:0" xmlns="jabber:client">` +
  `<body>[MFR] a line with &lt;message&gt; and &quot;quotes&quot; — ünïcode</body>` +
  `<payload xmlns="http://purl.org/stuff/lingue/" mode="ModelNegotiation" mime="application/json" messageType="http://purl.org/stuff/mfr/SolutionRequest">{"a":"&lt;/message&gt;"}</payload>` +
  `<sessionId xmlns="http://purl.org/stuff/lingue/">abc</sessionId>` +
  `<origin-id xmlns="urn:xmpp:sid:0" id="mfr:abc:3:0"/></message>`;
const PRIVATE = `<message to='room@conference.localhost/modeler' type='chat'><body>Contribution received</body><origin-id xmlns='urn:xmpp:sid:0' id='mfr:abc:4:1'/></message>`;
const JOIN = `<presence to="room@conference.localhost/Coordinator"><x xmlns="http://jabber.org/protocol/muc"/></presence>`;
const LEAVE = `<presence to="room@conference.localhost/Coordinator" type="unavailable"/>`;

describe("the wire tap", () => {
  it("passes every byte through and writes down each stanza, whatever the chunks", async () => {
    const { tap, client, received } = await tapped();
    const all = Buffer.from(STREAM + JOIN + REQUEST + PRIVATE + LEAVE, "utf8");
    // Chunks of 7 bytes split tags, attributes and multi-byte characters.
    for (let at = 0; at < all.length; at += 7) {
      client.write(all.subarray(at, at + 7));
      await new Promise((r) => setTimeout(r, 1));
    }
    await until(() => Buffer.byteLength(received()) === all.length && tap.sent.length === 4);
    expect(received()).toBe(all.toString("utf8"));
    expect(tap.sent.map(({ at: _at, ...rest }) => rest)).toEqual([
      { connection: 1, kind: "presence", to: "room@conference.localhost/Coordinator", type: "" },
      {
        connection: 1,
        kind: "message",
        to: "room@conference.localhost",
        type: "groupchat",
        originId: "mfr:abc:3:0",
        messageType: "http://purl.org/stuff/mfr/SolutionRequest",
        sessionId: "abc",
      },
      { connection: 1, kind: "message", to: "room@conference.localhost/modeler", type: "chat", originId: "mfr:abc:4:1" },
      { connection: 1, kind: "presence", to: "room@conference.localhost/Coordinator", type: "unavailable" },
    ]);
    expect(tap.protocolMessages().map((s) => s.originId)).toEqual(["mfr:abc:3:0", "mfr:abc:4:1"]);
  });

  it("numbers each connection of the same client", async () => {
    const { tap, client } = await tapped();
    const second = connect(tap.port, "127.0.0.1");
    cleanups.push(() => void second.destroy());
    await new Promise<void>((resolve) => second.once("connect", () => resolve()));
    client.write(STREAM + PRIVATE);
    await until(() => tap.sent.length === 1);
    second.write(STREAM + PRIVATE);
    await until(() => tap.sent.length === 2);
    expect(tap.sent.map((s) => s.connection)).toEqual([1, 2]);
  });
});
