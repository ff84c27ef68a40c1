/**
 * What the store keeps of what was heard from the rooms (store/heard-log.ts), through the
 * SessionStore that catch-up reads: a message is known by any of its keys, per room, across a
 * restart; the newest instant heard and the instant last present never move back; both age
 * out after HEARD_KEPT_MS; and a message that became an input is recorded with that input.
 */
import { describe, expect, it } from "vitest";
import { HEARD_KEPT_MS } from "../../src/store/heard-log.js";
import { MemoryHeardLog } from "../../src/host/heard.js";
import { SessionStore } from "../../src/store/session-store.js";
import { T0, start, tempDir } from "./helpers.js";

const ROOM = "mfr@conference.example";
const OTHER = "other@conference.example";

describe("the heard log", () => {
  it("knows a message by any one of its keys, in its own room only, after a restart too", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    store.recordHeard({ room: ROOM, keys: ["sid:a1", "msg:d1"], at: T0 });
    expect(store.heardBefore(ROOM, ["sid:a1"])).toBe(true);
    expect(store.heardBefore(ROOM, ["sid:other", "msg:d1"])).toBe(true);
    expect(store.heardBefore(ROOM, ["sid:other"])).toBe(false);
    expect(store.heardBefore(ROOM, [])).toBe(false);
    expect(store.heardBefore(OTHER, ["sid:a1"])).toBe(false);
    store.close();

    const reopened = SessionStore.open(dir);
    expect(reopened.heardBefore(ROOM, ["msg:d1"])).toBe(true);
    expect(reopened.lastHeardAt(ROOM)).toBe(T0);
    reopened.close();
  });

  it("says the room's archive id of the newest message heard that had one, where the next catch-up reads on, in memory as in the store", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    const memory = new MemoryHeardLog();
    for (const log of [store, memory]) {
      expect(log.lastStanzaId(ROOM)).toBeUndefined();
      log.recordHeard({ room: ROOM, keys: ["sid:a1", "msg:d1"], at: T0 + 1000 });
      log.recordHeard({ room: ROOM, keys: ["sid:a3", "msg:d3"], at: T0 + 3000 });
      log.recordHeard({ room: ROOM, keys: ["sid:a2", "msg:d2"], at: T0 + 2000 }); // an older one, taken in late
      log.recordHeard({ room: ROOM, keys: ["msg:d4"], at: T0 + 4000 }); // no archive id: a room without an archive
      log.recordHeard({ room: OTHER, keys: ["sid:b9"], at: T0 + 9000 });
      expect(log.lastStanzaId(ROOM)).toBe("a3");
      expect(log.lastStanzaId(OTHER)).toBe("b9");
    }
    store.close();
    expect(SessionStore.open(dir).lastStanzaId(ROOM)).toBe("a3");
  });

  it("says the newest instant heard per room, which a key heard again does not move", () => {
    const store = SessionStore.open(tempDir());
    expect(store.lastHeardAt(ROOM)).toBeUndefined();
    store.recordHeard({ room: ROOM, keys: ["k1"], at: T0 + 5000 });
    store.recordHeard({ room: ROOM, keys: ["k2"], at: T0 + 1000 });
    expect(store.lastHeardAt(ROOM)).toBe(T0 + 5000);
    // The same key again (the room's history repeating it) keeps the instant it first counted at.
    store.recordHeard({ room: ROOM, keys: ["k2"], at: T0 + 9000 });
    expect(store.lastHeardAt(ROOM)).toBe(T0 + 5000);
    expect(store.lastHeardAt(OTHER)).toBeUndefined();
    store.close();
  });

  it("keeps the latest instant the coordinator was present; an earlier one never moves it back", () => {
    const store = SessionStore.open(tempDir());
    expect(store.presentUntil(ROOM)).toBeUndefined();
    store.markPresent(ROOM, T0 + 2000);
    store.markPresent(ROOM, T0 + 1000);
    expect(store.presentUntil(ROOM)).toBe(T0 + 2000);
    store.markPresent(ROOM, T0 + 3000);
    expect(store.presentUntil(ROOM)).toBe(T0 + 3000);
    expect(store.presentUntil(OTHER)).toBeUndefined();
    store.close();
  });

  it("forgets keys and presence older than HEARD_KEPT_MS at the prune, and keeps newer ones", () => {
    const store = SessionStore.open(tempDir());
    const now = T0 + HEARD_KEPT_MS + 60_000;
    store.recordHeard({ room: ROOM, keys: ["old"], at: T0 });
    store.recordHeard({ room: ROOM, keys: ["new"], at: now - 1000 });
    store.markPresent(OTHER, T0);
    store.prune({ now });
    expect(store.heardBefore(ROOM, ["old"])).toBe(false);
    expect(store.heardBefore(ROOM, ["new"])).toBe(true);
    expect(store.lastHeardAt(ROOM)).toBe(now - 1000);
    expect(store.presentUntil(OTHER)).toBeUndefined();
    store.close();
  });

  it("records the keys of a message that became an input with that input", () => {
    const store = SessionStore.open(tempDir());
    const seq = store.append("s1", start("s1"), T0, { room: ROOM, keys: ["sid:start"], at: T0 });
    expect(store.eventsOf("s1").map((e) => e.seq)).toEqual([seq]);
    expect(store.heardBefore(ROOM, ["sid:start"])).toBe(true);
    // Refused before anything is written: neither the input nor its keys are kept.
    expect(() => store.append("s2", start("s1"), T0, { room: ROOM, keys: ["sid:refused"], at: T0 })).toThrow(TypeError);
    expect(store.heardBefore(ROOM, ["sid:refused"])).toBe(false);
    expect(store.eventsOf("s2")).toEqual([]);
    store.close();
  });
});
