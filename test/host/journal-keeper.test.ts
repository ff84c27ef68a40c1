/**
 * The journal keeper's rules: an input is logged with the heard keys of the room message it
 * came from, in the same append; a journal that fails is loud but never stops a session;
 * without a journal nothing is logged and only the newest completed sessions stay in memory;
 * a restore finds the tail of stanzas the sent-record does not have.
 */
import { describe, expect, it } from "vitest";
import type { Heard } from "../../src/host/heard.js";
import { JournalKeeper } from "../../src/host/journal-keeper.js";
import { COMPLETED_KEPT, SessionTable } from "../../src/host/session-table.js";
import type { StoredEvent } from "../../src/host/journal-records.js";
import { completedSession } from "../store/helpers.js";
import { startInput } from "../support/session-fixtures.js";
import { ArrayJournal, NOW, RENDER, silent } from "./fakes.js";

function heard(): Heard {
  return { room: RENDER.room, keys: ["sid:42", "msg:abc"], at: NOW - 5_000, caughtUp: true, recorded: false };
}

describe("JournalKeeper", () => {
  it("appends the input with the heard keys of its room message, and marks them recorded", () => {
    const journal = new ArrayJournal();
    const keeper = new JournalKeeper(journal, new SessionTable(), silent);
    const message = heard();
    const input = startInput({ sessionId: "s1" });
    expect(keeper.append(input, NOW, message)).toBe(1);
    expect(journal.appended).toEqual([{ sessionId: "s1", input, at: NOW, heard: { room: RENDER.room, keys: ["sid:42", "msg:abc"], at: NOW - 5_000 } }]);
    expect(message.recorded).toBe(true);
  });

  it("when the journal fails, gives no sequence number and leaves the message unrecorded, without throwing", () => {
    const journal = new ArrayJournal();
    journal.failing = "append";
    const keeper = new JournalKeeper(journal, new SessionTable(), silent);
    const message = heard();
    expect(keeper.append(startInput({ sessionId: "s1" }), NOW, message)).toBeUndefined();
    expect(message.recorded).toBe(false);
    journal.failing = "recordSent";
    expect(() => keeper.recordSent({ sessionId: "s1", eventSeq: 1, position: 0, at: NOW, digest: "d", what: "tell" })).not.toThrow();
  });

  it("without a journal logs nothing and records no sends", () => {
    const keeper = new JournalKeeper(undefined, new SessionTable(), silent);
    const message = heard();
    expect(keeper.append(startInput({ sessionId: "s1" }), NOW, message)).toBeUndefined();
    expect(message.recorded).toBe(false);
    expect(keeper.tracksSends).toBe(false);
    expect(keeper.knows("s1")).toBe(false);
  });

  it("archives a finished session and it leaves memory; if archiving fails it stays", () => {
    const journal = new ArrayJournal();
    const table = new SessionTable();
    const keeper = new JournalKeeper(journal, table, silent);
    table.put(completedSession("s1", NOW));
    table.put(completedSession("s2", NOW));
    keeper.finished("s1");
    expect(journal.archived.has("s1")).toBe(true);
    expect(table.get("s1")).toBeUndefined();
    journal.failing = "archive";
    keeper.finished("s2");
    expect(table.get("s2")?.phase).toBe("complete");
  });

  it("without a journal keeps only the newest completed sessions in memory", () => {
    const table = new SessionTable();
    const keeper = new JournalKeeper(undefined, table, silent);
    for (let i = 0; i <= COMPLETED_KEPT; i++) table.put(completedSession(`s${i}`, NOW + i * 1_000));
    keeper.finished(`s${COMPLETED_KEPT}`);
    expect(table.all()).toHaveLength(COMPLETED_KEPT);
    expect(table.get("s0")).toBeUndefined();
    expect(table.get("s1")?.phase).toBe("complete");
  });

  it("replays the log and finds what the sent-record does not have: the unsent tail", () => {
    const journal = new ArrayJournal();
    const keeper = new JournalKeeper(journal, new SessionTable(), silent);
    const events: StoredEvent[] = [{ seq: 1, sessionId: "s1", at: NOW, input: startInput({ sessionId: "s1" }) }];
    const all = keeper.replay(events, RENDER);
    expect(all.applied).toBe(1);
    expect(all.state.byId.s1?.phase).toBeDefined();
    expect(all.unsent.length).toBeGreaterThan(0);
    const [first] = all.unsent;
    if (!first) throw new Error("the start sends nothing");
    journal.recordSent({ sessionId: "s1", eventSeq: 1, position: first.position, at: NOW, digest: first.digest, what: first.outgoing.what });
    expect(keeper.replay(events, RENDER).unsent.map((e) => e.position)).toEqual(all.unsent.slice(1).map((e) => e.position));
  });
});
