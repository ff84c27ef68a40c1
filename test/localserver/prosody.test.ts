import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { xml } from "@xmpp/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LINGUE, MessageType, Mode } from "../../src/base/vocab.js";
import { canConnect, PROSODY_READ_SIZE, startLocalProsody } from "../../src/localserver/index.js";
import { TestPeer, type Element } from "../support/peer.js";
import { peerOptions, registerUser, startTestProsody, uniqueRoom, type LocalProsody } from "../support/prosody.js";

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("a shared local Prosody", () => {
  let server: LocalProsody;
  const peers: TestPeer[] = [];
  const connect = async (prefix: string): Promise<TestPeer> => {
    const peer = await TestPeer.connect(peerOptions(server, await registerUser(server, prefix)));
    peers.push(peer);
    return peer;
  };

  beforeAll(async () => {
    server = await startTestProsody();
  });
  afterAll(async () => {
    await Promise.all(peers.map((p) => p.stop()));
    await server?.stop();
  });

  it("listens on the loopback port it reports", async () => {
    expect(server.host).toBe("127.0.0.1");
    expect(server.service).toBe(`xmpp://127.0.0.1:${server.port}`);
    expect(server.domain).toBe("localhost");
    expect(server.mucDomain).toBe("conference.localhost");
    expect(server.running).toBe(true);
    expect(processExists(server.pid)).toBe(true);
    expect(await canConnect("127.0.0.1", server.port)).toBe(true);
    expect(existsSync(server.logPath)).toBe(true);
  });

  it("lets two registered peers exchange a groupchat payload with a sessionId sibling", async () => {
    const [alice, bob] = await Promise.all([connect("alice"), connect("bob")]);
    const room = uniqueRoom(server);
    await alice.joinRoom(room, "alice");
    await bob.joinRoom(room, "bob"); // works at once: muc_room_locking = false

    const content = JSON.stringify(
      { messageType: MessageType.SolutionProposal, sessionId: "s-1", note: "a < b & c > \"d\"" },
      null,
      2,
    );
    await alice.sendGroupchat(room, {
      body: "proposal",
      payload: {
        mode: Mode.ModelNegotiation,
        mime: "application/json",
        content,
        attrs: { messageType: MessageType.SolutionProposal },
      },
      siblings: { sessionId: "s-1" },
    });

    const got = await bob.waitForMessage((m) => m.type === "groupchat" && m.payload !== undefined);
    expect(got.from).toBe(`${room}/alice`);
    expect(got.body).toBe("proposal");
    expect(got.delayed).toBe(false);
    expect(got.payload).toMatchObject({
      mode: Mode.ModelNegotiation,
      mime: "application/json",
      messageType: MessageType.SolutionProposal,
      content,
    });
    expect(got.payload?.json).toEqual(JSON.parse(content));
    expect(got.siblings).toEqual({ sessionId: "s-1" });
    expect(got.stanza.getChild("payload", LINGUE)).toBeDefined();

    // The room reflects the message to its sender too.
    const echo = await alice.waitForMessage((m) => m.from === `${room}/alice` && m.payload !== undefined);
    expect(echo.payload?.content).toBe(content);

    // Turtle with markup characters survives escaping.
    const turtle = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#a> mfr:note \"x & y\" .";
    await bob.sendGroupchat(room, { payload: { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: turtle } });
    const rdf = await alice.waitForMessage((m) => m.payload?.mode === Mode.ModelFirstRDF);
    expect(rdf.payload?.content).toBe(turtle);
    expect(rdf.body).toBeUndefined();
    expect(rdf.payload?.json).toBeUndefined();
  });

  it("delivers 1:1 chat, answers ping and disco#info", async () => {
    const [carol, dave] = await Promise.all([connect("carol"), connect("dave")]);
    await carol.sendChat(dave.jid.split("/")[0] ?? "", "hello dave");
    const chat = await dave.waitForMessage((m) => m.type === "chat");
    expect(chat.body).toBe("hello dave");
    expect(chat.from).toBe(carol.jid);

    expect(await carol.ping(server.domain)).toBe(true);
    expect(await carol.discoInfo(server.mucDomain)).toContain("http://jabber.org/protocol/muc");
  });

  it("hands each message to one wait only, and lists what arrived on a timeout", async () => {
    const [erin, frank] = await Promise.all([connect("erin"), connect("frank")]);
    const to = frank.jid.split("/")[0] ?? "";
    await erin.sendChat(to, "one");
    await erin.sendChat(to, "two");
    expect((await frank.waitForMessage((m) => m.type === "chat")).body).toBe("one");
    expect((await frank.waitForMessage((m) => m.type === "chat")).body).toBe("two");
    await expect(frank.waitForMessage((m) => m.body === "three", 150)).rejects.toThrow(/body="one"[\s\S]*body="two"/);
    expect(frank.messages.filter((m) => m.type === "chat")).toHaveLength(2);
  });

  it("refuses a second registration of a name and a wrong password", async () => {
    const account = await registerUser(server, "gina");
    await expect(server.register(account.username, "other")).rejects.toMatchObject({ condition: "conflict" });
    await expect(TestPeer.connect({ ...peerOptions(server, account), password: "wrong" })).rejects.toThrow(
      /not-authorized/,
    );
  });

  it("rejects joining a room with a nick already in use", async () => {
    const [hank, ivy] = await Promise.all([connect("hank"), connect("ivy")]);
    const room = uniqueRoom(server);
    await hank.joinRoom(room, "same");
    await expect(ivy.joinRoom(room, "same")).rejects.toThrow(/conflict/);
  });
});

describe("restart", () => {
  it("keeps registered accounts across kill + restart on the same port", async () => {
    const server = await startTestProsody();
    try {
      const account = await registerUser(server, "persist");
      const first = await TestPeer.connect(peerOptions(server, account));
      const { port, pid } = server;

      await server.kill();
      expect(server.running).toBe(false);
      expect(processExists(pid)).toBe(false);
      await first.waitForDisconnect(2000);
      await first.stop();

      const t0 = performance.now();
      await server.restart();
      const restartMs = performance.now() - t0;
      expect(server.port).toBe(port);
      expect(server.pid).not.toBe(pid);
      expect(restartMs).toBeLessThan(5000);

      const again = await TestPeer.connect(peerOptions(server, account));
      expect(again.jid.startsWith(`${account.jid}/`)).toBe(true);
      await again.stop();
    } finally {
      await server.stop();
    }
  });
});

describe("stanza size limit", () => {
  // Exactly `bytes` long on the wire: a groupchat whose body is padded to fit.
  const stanzaOfSize = (room: string, bytes: number, marker: string): Element => {
    const build = (pad: number): Element =>
      xml("message", { to: room, type: "groupchat", id: marker }, xml("body", {}, `${marker}:${"x".repeat(pad)}`));
    const overhead = Buffer.byteLength(build(0).toString());
    const stanza = build(bytes - overhead);
    expect(Buffer.byteLength(stanza.toString())).toBe(bytes);
    return stanza;
  };

  it("closes the sender's stream over c2s_stanza_size_limit (+ read size); up to the limit passes", async () => {
    const limit = 16 * 1024;
    const server = await startTestProsody({ stanzaSizeLimit: limit });
    const [a, b] = await Promise.all([registerUser(server, "big"), registerUser(server, "watcher")]);
    const sender = await TestPeer.connect(peerOptions(server, a));
    const watcher = await TestPeer.connect(peerOptions(server, b));
    try {
      expect(server.stanzaSizeLimit).toBe(limit);
      const room = uniqueRoom(server);
      await sender.joinRoom(room, "big");
      await watcher.joinRoom(room, "watcher");

      // A payload message well under the limit, then a stanza of exactly the limit: delivered.
      const content = "y".repeat(8 * 1024);
      await sender.sendGroupchat(room, { payload: { mode: Mode.HumanChat, mime: "text/plain", content } });
      expect((await watcher.waitForMessage((m) => m.payload !== undefined)).payload?.content).toBe(content);
      const exact = stanzaOfSize(room, limit, "exact");
      await sender.sendRaw(exact);
      const delivered = await watcher.waitForMessage((m) => m.body?.startsWith("exact:") ?? false);
      expect(delivered.body).toBe(exact.getChildText("body"));

      // Over limit + Prosody's read size: always refused, and the sender is thrown out.
      await sender.sendRaw(stanzaOfSize(room, limit + PROSODY_READ_SIZE + 1, "over"));
      await sender.waitForDisconnect(3000);
      expect(sender.errors.map((e) => (e as Error & { condition?: string }).condition)).toContain("policy-violation");
      expect(sender.online).toBe(false);
      await expect(watcher.waitForMessage((m) => m.body?.startsWith("over:") ?? false, 300)).rejects.toThrow(
        /no matching/,
      );
      expect(watcher.online).toBe(true);
    } finally {
      await Promise.all([sender.stop(), watcher.stop()]);
      await server.stop();
    }
  });

  it("refuses a limit below Prosody's minimum", async () => {
    await expect(startTestProsody({ stanzaSizeLimit: 4096 })).rejects.toThrow(/>= 10000/);
  });
});

describe("stop and port conflicts", () => {
  it("stop() leaves no Prosody process and removes its temp directory", async () => {
    const server = await startTestProsody();
    const { pid, dir } = server;
    expect(processExists(pid)).toBe(true);
    await server.stop();
    expect(processExists(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    await server.stop(); // idempotent
  });

  it("fails clearly when the requested port is taken (Prosody itself would keep running)", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const address = blocker.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      await expect(startLocalProsody({ port })).rejects.toThrow(/could not listen on 127\.0\.0\.1:\d+/);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
