/** The admitting stage: what is not input, and what is refused before anything is read. */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { Admission } from "../../src/inbound/admit.js";
import type { InboundContext } from "../../src/inbound/context.js";
import { HeardOnce } from "../../src/inbound/heard-once.js";
import type { RefusalReason } from "../../src/ops/refusals.js";
import { LINGUE, Mode } from "../../src/base/vocab.js";
import { MemoryHeardLog } from "../../src/host/heard.js";
import { xml } from "../../src/xmpp/stanza.js";
import { noteReceivedBytes } from "../../src/xmpp/received-size.js";
import { keptLog, keptOutlet, PRIMARY, roomLine, roomsWith } from "./helpers.js";

function admission(limits = { messagesPerMinute: 30, maxInboundBytes: 2000 }) {
  const { log, lines } = keptLog();
  const outlet = keptOutlet();
  const refused: RefusalReason[] = [];
  const rooms = roomsWith({ nick: "alice" });
  const heardOnce = new HeardOnce(new MemoryHeardLog(), log, () => false);
  const admit = new Admission({
    rooms,
    ownBareJid: () => "coordinator@localhost",
    hasDirectLine: false,
    heardOnce,
    limits,
    ourRooms: { isProtocolRoom: (room: string) => room === PRIMARY },
    refused: (reason) => refused.push(reason),
    outlet,
    log,
    now: () => 1_000_000,
  });
  return { admit, heardOnce, outlet, refused, lines };
}

describe("admit", () => {
  it("drops our own echo, errors and messages with nothing to read, as not input", () => {
    const { admit } = admission();
    expect(admit.enter({ stanza: roomLine("Coordinator", "Session s1 started"), line: "room-connection" })).toBe("ignored");
    expect(admit.enter({ stanza: xml("message", { from: "coordinator@localhost/other", type: "chat" }, xml("body", {}, "hi")), line: "room-connection" })).toBe("ignored");
    expect(admit.enter({ stanza: xml("message", { from: `${PRIMARY}/alice`, type: "error" }, xml("body", {}, "x")), line: "room-connection" })).toBe("ignored");
    expect(admit.enter({ stanza: xml("message", { from: `${PRIMARY}/alice`, type: "groupchat" }), line: "room-connection" })).toBe("ignored");
  });

  it("takes a room message once: the same one again while it is handled, or after, is a duplicate", () => {
    const { admit, heardOnce } = admission();
    const first = admit.enter({ stanza: roomLine("alice", "hello"), line: "room-connection" }) as InboundContext;
    expect(typeof first).toBe("object");
    expect(admit.enter({ stanza: roomLine("alice", "hello"), line: "room-connection" })).toBe("duplicate");
    heardOnce.doneWith(first.heard!);
    expect(admit.enter({ stanza: roomLine("alice", "hello"), stamp: 999_000, line: "room-connection" })).toBe("duplicate");
    expect(typeof admit.enter({ stanza: roomLine("alice", "hello", [], "m-2"), line: "room-connection" })).toBe("object");
  });

  it("counts a stanza over the inbound limit as refused too-large, tells its sender privately, and reads no further", async () => {
    const { admit, outlet, refused } = admission({ messagesPerMinute: 30, maxInboundBytes: 200 });
    const ctx = admit.enter({ stanza: roomLine("alice", "x".repeat(500)), line: "room-connection" }) as InboundContext;
    expect(await admit.limit(ctx)).toBe(false);
    expect(refused).toEqual(["too-large"]);
    expect(outlet.said).toHaveLength(1);
    expect(outlet.said[0]).toMatchObject({ how: "privately", to: `${PRIMARY}/alice` });
    expect(outlet.said[0]?.text).toMatch(/^Your message of .* is over my limit of 200\sB and was not read\.$/);
  });

  it("judges the size as received when it is within the limit, without writing the stanza out, and as its sender would write it when it is over", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 4000 }), async (extra, received) => {
        const { admit, refused } = admission({ messagesPerMinute: 1000, maxInboundBytes: 300 });
        const stanza = roomLine("alice", "x".repeat(extra), [], `m-${extra}-${received}`);
        const written = Buffer.byteLength(stanza.toString(), "utf8");
        noteReceivedBytes(stanza, received);
        const writeOut = vi.spyOn(stanza, "toString");
        const ctx = admit.enter({ stanza, line: "room-connection" }) as InboundContext;
        const admitted = await admit.limit(ctx);
        expect(admitted).toBe(received <= 300 || written <= 300);
        if (received <= 300) expect(writeOut).not.toHaveBeenCalled();
        expect(refused.includes("too-large")).toBe(!admitted);
      }),
    );
  });

  it("throttles a flood: the first message over the limit is answered once, the rest are dropped silently", async () => {
    const { admit, outlet, refused } = admission({ messagesPerMinute: 2, maxInboundBytes: 2000 });
    const results: boolean[] = [];
    for (let i = 0; i < 5; i++) results.push(await admit.limit(admit.enter({ stanza: roomLine("alice", `line ${i}`, [], `m-${i}`), line: "room-connection" }) as InboundContext));
    expect(results).toEqual([true, true, false, false, false]);
    expect(refused).toEqual(["throttled", "throttled", "throttled"]);
    expect(outlet.said.map((s) => s.text)).toEqual(["You are sending too fast; I will ignore your messages for a little while."]);
  });

  it("refuses a protocol message said outside the rooms where agents work", async () => {
    const { admit, refused, outlet } = admission();
    const stanza = xml("message", { from: "bob@localhost/agent", type: "chat", id: "p-1" }, xml("payload", { xmlns: LINGUE, mode: Mode.ModelNegotiation }, "{}"));
    const ctx = admit.enter({ stanza, line: "room-connection" }) as InboundContext;
    expect(await admit.limit(ctx)).toBe(false);
    expect(refused).toEqual(["outside-protocol-room"]);
    expect(outlet.said).toHaveLength(0);
  });
});
