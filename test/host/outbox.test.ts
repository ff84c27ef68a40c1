/**
 * The outbox's rules: stanzas leave in the order queued, one at a time; a stanza of a logged
 * step carries its origin-id and is recorded once, after the connection took it; what a
 * crash kept from going out is sent once, unless the room's history shows it went out.
 */
import { describe, expect, it } from "vitest";
import { JournalKeeper } from "../../src/host/journal-keeper.js";
import { Outbox, originIdOf, type Outlet } from "../../src/host/outbox.js";
import { SessionTable } from "../../src/host/session-table.js";
import { stanzaDigest } from "../../src/host/outgoing.js";
import type { ExpectedSend } from "../../src/host/sent-check.js";
import { NS_SID } from "../../src/xmpp/room-history.js";
import type { Element } from "../../src/xmpp/stanza.js";
import { ArrayJournal, NOW, RENDER, line, silent, turns } from "./fakes.js";

/** An outlet whose sends finish only when the test lets them, and that notes overlapping sends. */
function slowOutlet() {
  const sent: Element[] = [];
  const waiting: Array<() => void> = [];
  let inFlight = 0;
  let overlapped = false;
  const outlet: Outlet = {
    send: (stanza) => {
      inFlight++;
      if (inFlight > 1) overlapped = true;
      return new Promise<void>((resolve) =>
        waiting.push(() => {
          inFlight--;
          sent.push(stanza);
          resolve();
        }),
      );
    },
  };
  return { outlet, sent, waiting, overlapped: () => overlapped };
}

function outboxWith(outlet: Outlet, journal: ArrayJournal | undefined) {
  return new Outbox(outlet, new JournalKeeper(journal, new SessionTable(), silent), silent, RENDER.room);
}

const bodyOf = (stanza: Element) => stanza.getChildText("body");

describe("Outbox", () => {
  it("sends in the order queued, one at a time, and records each logged stanza once, after the connection took it", async () => {
    const journal = new ArrayJournal();
    const slow = slowOutlet();
    const outbox = outboxWith(slow.outlet, journal);
    outbox.queue(line("s1", "ada", "first"), { eventSeq: 7, position: 0, at: NOW });
    outbox.queue(line("s1", "ada", "second"), { eventSeq: 7, position: 1, at: NOW });
    outbox.queue(line("s1", "ada", "not logged"), undefined);
    await turns();
    // The first send has not finished: nothing is recorded and the second has not begun.
    expect(journal.sent).toEqual([]);
    expect(slow.waiting).toHaveLength(1);
    while (slow.sent.length < 3) {
      slow.waiting.shift()?.();
      await turns();
    }
    expect(slow.overlapped()).toBe(false);
    expect(slow.sent.map(bodyOf)).toEqual(["first", "second", "not logged"]);
    expect(journal.sent.map((r) => [r.eventSeq, r.position, r.what])).toEqual([
      [7, 0, "tell privately"],
      [7, 1, "tell privately"],
    ]);
    // The digest is of the stanza as rendered, before the origin-id was stamped on it.
    expect(journal.sent[0]?.digest).toBe(stanzaDigest(line("s1", "ada", "first").stanza));
    expect(slow.sent[0]?.getChild("origin-id", NS_SID)?.attrs.id).toBe(originIdOf("s1", { eventSeq: 7, position: 0 }));
    expect(slow.sent[0]?.attrs.id).toBe("mfr:s1:7:0");
    expect(slow.sent[2]?.getChild("origin-id", NS_SID)).toBeUndefined();
  });

  it("without a journal stamps origin-ids but records nothing", async () => {
    const sent: Element[] = [];
    const outbox = outboxWith({ send: async (stanza) => void sent.push(stanza) }, undefined);
    outbox.queue(line("s1", "ada", "hello"), { eventSeq: 1, position: 0, at: NOW });
    await outbox.drained();
    expect(sent[0]?.getChild("origin-id", NS_SID)?.attrs.id).toBe("mfr:s1:1:0");
  });

  it("goes on after a failed send, and does not record the stanza that failed", async () => {
    const journal = new ArrayJournal();
    const sent: string[] = [];
    const outbox = outboxWith(
      {
        send: async (stanza) => {
          if (bodyOf(stanza) === "lost") throw new Error("connection closed");
          sent.push(bodyOf(stanza) ?? "");
        },
      },
      journal,
    );
    outbox.queue(line("s1", "ada", "lost"), { eventSeq: 1, position: 0, at: NOW });
    outbox.queue(line("s1", "ada", "kept"), { eventSeq: 1, position: 1, at: NOW });
    await outbox.drained();
    await outbox.drained();
    expect(sent).toEqual(["kept"]);
    expect(journal.sent.map((r) => r.position)).toEqual([1]);
  });

  it("sends the unsent tail once: what the room's history shows is recorded, not sent again", async () => {
    const journal = new ArrayJournal();
    const sent: string[] = [];
    const outbox = outboxWith({ send: async (stanza) => void sent.push(bodyOf(stanza) ?? "") }, journal);
    const tail: ExpectedSend[] = ["went out", "lost"].map((text, position) => {
      const outgoing = line("s1", "ada", text);
      return { eventSeq: 4, at: NOW, position, digest: stanzaDigest(outgoing.stanza), outgoing };
    });
    outbox.holdUnsent(tail);
    expect(outbox.heldUnsent).toBe(2);
    expect(outbox.sendUnsent(new Set([originIdOf("s1", { eventSeq: 4, position: 0 })]))).toEqual({ sent: 1, skipped: 1 });
    await outbox.drained();
    expect(sent).toEqual(["lost"]);
    expect(journal.sent.map((r) => r.position).sort()).toEqual([0, 1]);
    // A second call sends nothing.
    expect(outbox.sendUnsent(new Set())).toEqual({ sent: 0, skipped: 0 });
    await outbox.drained();
    expect(sent).toEqual(["lost"]);
  });

  it("tells a participant privately in their own room, else in the primary room", async () => {
    const sent: Element[] = [];
    const outbox = outboxWith({ send: async (stanza) => void sent.push(stanza) }, undefined);
    outbox.tell("s1", { nick: "ada", jid: undefined, room: "phase@conference.localhost" }, "in your room");
    outbox.tell("s1", { nick: "bob", jid: undefined }, "in the primary room");
    await outbox.drained();
    expect(sent.map((s) => [s.attrs.to, s.attrs.type])).toEqual([
      ["phase@conference.localhost/ada", "chat"],
      [`${RENDER.room}/bob`, "chat"],
    ]);
  });
});
