import { describe, expect, it } from "vitest";
import { SessionStore } from "../../src/store/session-store.js";
import { T0, cancel, contribution, proposal, start, tempDir } from "./helpers.js";

describe("the durable input log", () => {
  it("returns live events of all sessions in append order, with what was appended", () => {
    const store = SessionStore.open(tempDir());
    const appended = [
      store.append("a", start("a"), T0),
      store.append("b", start("b"), T0 + 1),
      store.append("a", contribution("a", "alice"), T0 + 2),
      store.append("b", contribution("b", "bob"), T0 + 3),
      store.append("a", proposal("a", "alice"), T0 + 4),
    ];
    expect(appended).toEqual([...appended].sort((x, y) => x - y));
    expect(new Set(appended).size).toBe(5);

    const live = store.liveEvents();
    expect(live.map((e) => [e.sessionId, e.input.kind, e.at])).toEqual([
      ["a", "start", T0],
      ["b", "start", T0 + 1],
      ["a", "contribution", T0 + 2],
      ["b", "contribution", T0 + 3],
      ["a", "proposal", T0 + 4],
    ]);
    expect(live.map((e) => e.seq)).toEqual(appended);
    expect(live[2]?.input).toEqual(contribution("a", "alice"));
    store.close();
  });

  it("gives one session's events in order with eventsOf", () => {
    const store = SessionStore.open(tempDir());
    store.append("a", start("a"), T0);
    store.append("b", start("b"), T0 + 1);
    store.append("a", cancel("a"), T0 + 2);
    expect(store.eventsOf("a").map((e) => e.input.kind)).toEqual(["start", "cancel"]);
    expect(store.eventsOf("nobody")).toEqual([]);
    store.close();
  });

  it("keeps inputs for sessions that never started, but does not replay them", () => {
    const store = SessionStore.open(tempDir());
    store.append("ghost", contribution("ghost", "alice"), T0);
    store.append("a", start("a"), T0 + 1);
    expect(store.liveEvents().map((e) => e.sessionId)).toEqual(["a"]);
    expect(store.eventsOf("ghost")).toHaveLength(1);
    expect(store.knows("ghost")).toBe(true);
    expect(store.knows("a")).toBe(true);
    expect(store.knows("other")).toBe(false);
    store.close();
  });

  it("refuses an input filed under another session's id", () => {
    const store = SessionStore.open(tempDir());
    expect(() => store.append("a", start("b"), T0)).toThrow(TypeError);
    expect(store.eventsOf("a")).toEqual([]);
    store.close();
  });

  it("refuses writes after close and on a read-only store", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    store.append("a", start("a"), T0);
    store.close();
    expect(() => store.append("a", cancel("a"), T0)).toThrow(/closed/);
    const reader = SessionStore.open(dir, { readonly: true });
    expect(reader.liveEvents()).toHaveLength(1);
    expect(() => reader.append("a", cancel("a"), T0)).toThrow(/read-only/);
    reader.close();
  });
});
