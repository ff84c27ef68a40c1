/**
 * 1:1 messages our server kept for us while we were away (offline storage), stamped by it
 * (XEP-0203): read as such only when our server signed the delay, never for a room's
 * history outside a join; answered once, late, with when they were sent; not when older
 * than a day, nor when they are no command; and only once we are back.
 */
import { describe, expect, it } from "vitest";
import { Admission } from "../../src/inbound/admit.js";
import { HeardOnce } from "../../src/inbound/heard-once.js";
import { InboundPipeline } from "../../src/inbound/pipeline.js";
import { KeptOnce, MAX_ANSWERED_LATE_MS, UntilBack } from "../../src/inbound/sent-while-away.js";
import { MemoryHeardLog } from "../../src/host/heard.js";
import type { Line } from "../../src/xmpp/direct-line.js";
import { classifyMessage, type DirectMessage } from "../../src/xmpp/inbound.js";
import { NS_DELAY, xml, type Element } from "../../src/xmpp/stanza.js";
import { keptLog, keptOutlet, PRIMARY, roomLine, roomsWith } from "./helpers.js";

const OWN = "coordinator@localhost";
const NOW = Date.parse("2026-11-26T12:00:00Z");
const SENT = "2026-11-26T10:02:03Z";

/** A 1:1 message as our server hands it over from offline storage: its delay signed by the domain. */
function kept(body: string, options: { from?: string; id?: string; stamp?: string; signer?: string; to?: string } = {}): Element {
  const { from = "alice@localhost/phone", id = "c-1", stamp = SENT, signer = "localhost", to = OWN } = options;
  return xml("message", { from, to, type: "chat", id }, xml("body", {}, body), xml("delay", { xmlns: NS_DELAY, from: signer, stamp }, "Offline Storage"));
}

describe("a delayed message, by who signed the delay", () => {
  const rooms = roomsWith({ nick: "alice", jid: "alice@localhost/phone" });

  it("a 1:1 message our server stamped was kept for us while we were away: input, with that stamp", () => {
    const message = classifyMessage(kept("help"), rooms, OWN);
    expect(message).toMatchObject({ kind: "direct", from: "alice@localhost/phone", viaRoom: undefined, storedAt: Date.parse(SENT) });
  });

  it("the stamp is the last one our server signed: one the sender put there first does not count", () => {
    const stanza = xml(
      "message",
      { from: "alice@localhost/phone", to: OWN, type: "chat", id: "c-2" },
      xml("body", {}, "help"),
      xml("delay", { xmlns: NS_DELAY, from: "localhost", stamp: "2020-01-01T00:00:00Z" }),
      xml("delay", { xmlns: NS_DELAY, from: "localhost", stamp: SENT }),
    );
    expect((classifyMessage(stanza, rooms, OWN) as DirectMessage).storedAt).toBe(Date.parse(SENT));
  });

  it("a delay only someone else signed (the sender's client, another server) says nothing of our absence: the message is live", () => {
    const message = classifyMessage(kept("help", { signer: "elsewhere.example" }), rooms, OWN);
    expect(message).toMatchObject({ kind: "direct", storedAt: undefined });
    expect(classifyMessage(kept("help", { signer: "" }), rooms, OWN)).toMatchObject({ kind: "direct", storedAt: undefined });
  });

  it("a room's history outside our join, or a private message through the room, delayed, is no input, whoever signed it", () => {
    const history = roomLine("alice", "mfr-start Plan a picnic", [xml("delay", { xmlns: NS_DELAY, from: PRIMARY, stamp: SENT })]);
    expect(classifyMessage(history, rooms, OWN)).toEqual({ ignored: "delayed" });
    const signedByServer = roomLine("alice", "help", [xml("delay", { xmlns: NS_DELAY, from: "localhost", stamp: SENT })]);
    expect(classifyMessage(signedByServer, rooms, OWN)).toEqual({ ignored: "delayed" });
    expect(classifyMessage(kept("help", { from: `${PRIMARY}/alice` }), rooms, OWN)).toEqual({ ignored: "delayed" });
    // Given back by the room at our join, the same line is the catch-up's to take.
    expect(classifyMessage(history, rooms, OWN, true)).toMatchObject({ kind: "room", room: PRIMARY, nick: "alice" });
  });

  it("our own message kept for us is still our own echo", () => {
    expect(classifyMessage(kept("help", { from: `${OWN}/elsewhere` }), rooms, OWN)).toEqual({ ignored: "self-echo" });
  });
});

describe("KeptOnce", () => {
  const message = (stanza: Element, storedAt = Date.parse(SENT)) => ({ bareFrom: "alice@localhost", storedAt, stanza });

  it("takes each kept message once, tells copies apart by stamp, id and text, and forgets them after a day", () => {
    const once = new KeptOnce();
    expect(once.verdict(message(kept("help")), NOW)).toBe("new");
    expect(once.verdict(message(kept("help")), NOW + 5_000)).toBe("copy");
    expect(once.verdict(message(kept("help", { id: "c-9" })), NOW)).toBe("new");
    expect(once.verdict(message(kept("mfr-list")), NOW)).toBe("new");
    expect(once.verdict(message(kept("help"), Date.parse(SENT) + 1000), NOW)).toBe("new");
  });

  it("one kept for more than a day is too old, and not remembered", () => {
    const once = new KeptOnce();
    const old = Date.parse(SENT) - MAX_ANSWERED_LATE_MS;
    expect(once.verdict(message(kept("help"), old), Date.parse(SENT) + 1)).toBe("too-old");
    expect(once.verdict(message(kept("help"), old), old + MAX_ANSWERED_LATE_MS)).toBe("new");
  });

  it("holds at most its capacity", () => {
    const once = new KeptOnce(MAX_ANSWERED_LATE_MS, 3);
    for (let i = 0; i < 5; i++) expect(once.verdict(message(kept("help", { id: `c-${i}` })), NOW)).toBe("new");
    // The first went to make room; the last is still known.
    expect(once.verdict(message(kept("help", { id: "c-0" })), NOW)).toBe("new");
    expect(once.verdict(message(kept("help", { id: "c-4" })), NOW)).toBe("copy");
  });
});

describe("UntilBack", () => {
  it("holds until we are back, then lets them go in order; at once after", async () => {
    const gate = new UntilBack();
    const order: string[] = [];
    const a = gate.wait().then((go) => order.push(`a:${go}`));
    const b = gate.wait().then((go) => order.push(`b:${go}`));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(gate.back()).toEqual({ waited: 2, dropped: 0 });
    await Promise.all([a, b]);
    expect(order).toEqual(["a:true", "b:true"]);
    expect(await gate.wait()).toBe(true);
    expect(gate.back()).toEqual({ waited: 0, dropped: 0 });
  });

  it("drops what is over its capacity, and everything once closed", async () => {
    const gate = new UntilBack(2);
    const held = [gate.wait(), gate.wait()];
    expect(await gate.wait()).toBe(false);
    expect(gate.close()).toBe(2);
    expect(await Promise.all(held)).toEqual([false, false]);
    expect(await gate.wait()).toBe(false);
    expect(gate.back()).toEqual({ waited: 0, dropped: 0 });
  });
});

describe("admitting a kept message", () => {
  function admission(now = NOW) {
    const { log, lines } = keptLog();
    const admit = new Admission({
      rooms: roomsWith({ nick: "alice" }),
      ownBareJid: () => OWN,
      hasDirectLine: true,
      heardOnce: new HeardOnce(new MemoryHeardLog(), log, () => false),
      limits: { messagesPerMinute: 30, maxInboundBytes: 10_000 },
      ourRooms: { isProtocolRoom: (room: string) => room === PRIMARY },
      refused: () => undefined,
      outlet: keptOutlet(),
      log,
      now: () => now,
    });
    return { admit, lines };
  }
  const enter = (admit: Admission, stanza: Element, line: Line = "room-connection") => admit.enter({ stanza, line });

  it("takes it in once, on whichever line it comes again, and says so in the log", () => {
    const { admit, lines } = admission();
    expect(typeof enter(admit, kept("help"))).toBe("object");
    expect(lines.find((l) => l.msg === "1:1 message sent while we were away; the server kept it for us")).toMatchObject({ level: 30, sentAt: new Date(SENT).toISOString() });
    expect(enter(admit, kept("help"))).toBe("duplicate");
    expect(enter(admit, kept("help"), "direct-line")).toBe("duplicate");
    // A live message with the same text is another message.
    expect(typeof enter(admit, xml("message", { from: "alice@localhost/phone", to: OWN, type: "chat", id: "c-live" }, xml("body", {}, "help")))).toBe("object");
  });

  it("does not take in one sent more than a day ago, and says so in the log", () => {
    const { admit, lines } = admission(Date.parse(SENT) + MAX_ANSWERED_LATE_MS + 1000);
    expect(enter(admit, kept("help"))).toBe("ignored");
    expect(lines.find((l) => l.msg === "1:1 message sent while we were away is more than a day old; not answered")).toMatchObject({ level: 30, from: "alice@localhost/phone" });
  });
});

describe("answering a kept message", () => {
  function pipeline(isAgent = false) {
    const { log, lines } = keptLog();
    const outlet = keptOutlet();
    const untilBack = new UntilBack();
    const p = new InboundPipeline({
      config: { room: PRIMARY, nick: "Coordinator", limits: { messagesPerMinute: 3, maxInboundBytes: 10_000, maxStanzaBytes: 60_000 } as never, protocolAllowList: [], commandAllowList: [] },
      log,
      now: () => NOW,
      rooms: roomsWith({ nick: "alice", jid: "alice@localhost/phone" }),
      ownBareJid: () => OWN,
      hasDirectLine: true,
      heard: new MemoryHeardLog(),
      readonlyStore: () => false,
      ourRooms: { isProtocolRoom: (room: string) => room === PRIMARY },
      sessions: { debatingSessions: () => [], listText: () => "No sessions." } as never,
      chooser: { isAgent: () => isAgent, commandFrom: () => undefined } as never,
      metrics: { refused: () => undefined, inboundError: () => undefined },
      outlet,
      untilBack,
    });
    return { p, lines, outlet, untilBack };
  }

  it("waits until we are back, then answers the command as live, its first line saying when it was sent", async () => {
    const { p, outlet, untilBack } = pipeline();
    const taken = p.take({ stanza: kept("mfr-list"), line: "direct-line" });
    await new Promise((r) => setTimeout(r, 20));
    expect(outlet.said).toEqual([]);
    untilBack.back();
    expect(await taken).toBe("taken");
    expect(outlet.said).toHaveLength(1);
    expect(outlet.said[0]).toMatchObject({ how: "to", target: { kind: "direct", to: "alice@localhost/phone", onDirectLine: true } });
    const [note, ...answer] = (outlet.said[0]?.text ?? "").split("\n");
    expect(note).toMatch(/^\(You sent this at (2026-11-26 )?10:02:03 UTC, while I was away; answering now\.\)$/);
    expect(answer.join("\n")).toContain("No sessions.");
    // A live command after it is answered as usual, without the note.
    await p.take({ stanza: xml("message", { from: "alice@localhost/phone", to: OWN, type: "chat", id: "c-live" }, xml("body", {}, "mfr-list")), line: "direct-line" });
    expect(outlet.said[1]?.text).toBe("No sessions.");
  });

  it("answers no word that is not a command (a live one would hear of the nearest command), nor a room's stale history", async () => {
    const { p, outlet, lines, untilBack } = pipeline();
    untilBack.back();
    expect(await p.take({ stanza: kept("are you there?"), line: "direct-line" })).toBe("taken");
    expect(lines.some((l) => l.msg === "1:1 message sent while we were away is no command; not answered")).toBe(true);
    p.dispatch(roomLine("alice", "mfr-list", [xml("delay", { xmlns: NS_DELAY, from: PRIMARY, stamp: SENT })], "h-1"));
    await new Promise((r) => setTimeout(r, 20));
    expect(outlet.said).toEqual([]);
  });

  it("treats an agent's kept command as a live one: refused, never carried out", async () => {
    const { p, outlet, untilBack } = pipeline(true);
    untilBack.back();
    await p.take({ stanza: kept("mfr-list", { from: "modeler@localhost/agent" }), line: "direct-line" });
    expect(outlet.said).toHaveLength(1);
    expect(outlet.said[0]?.text).toContain("I take commands from people, not from agents");
    expect(outlet.said[0]?.text).not.toContain("No sessions.");
  });

  it("bounds a flood of kept messages as it bounds live ones", async () => {
    const { p, outlet, untilBack } = pipeline();
    const taken = Array.from({ length: 6 }, (_, i) => p.take({ stanza: kept("mfr-list", { id: `f-${i}` }), line: "direct-line" }));
    untilBack.back();
    await Promise.all(taken);
    // Three a minute: three answers, then one "too fast", then nothing.
    expect(outlet.said.filter((s) => s.text.includes("No sessions."))).toHaveLength(3);
    expect(outlet.said.filter((s) => s.text.includes("You are sending too fast"))).toHaveLength(1);
    expect(outlet.said).toHaveLength(4);
  });
});
