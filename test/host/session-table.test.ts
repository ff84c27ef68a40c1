/**
 * The session table's rules: the record is changed in place (what `state` handed out sees
 * every later step), a restore replaces it whole, and without an archive the oldest
 * completed sessions go first.
 */
import { describe, expect, it } from "vitest";
import { SessionTable } from "../../src/host/session-table.js";
import { emptySessions } from "../../src/session/step.js";
import { completedSession } from "../store/helpers.js";
import { Driver, startInput } from "../support/session-fixtures.js";
import { NOW } from "./fakes.js";

describe("SessionTable", () => {
  it("changes its record in place, and a restore replaces it whole", () => {
    const table = new SessionTable();
    const seen = table.state;
    const driver = new Driver(NOW);
    driver.feed(startInput({ sessionId: "s1" }));
    table.put(driver.session("s1"));
    expect(seen.byId.s1).toBe(driver.session("s1"));
    expect(table.live().map((s) => s.id)).toEqual(["s1"]);
    const restored = emptySessions();
    table.replace(restored);
    expect(table.state).toBe(restored);
    expect(table.get("s1")).toBeUndefined();
  });

  it("forgets the oldest completed sessions beyond those kept, never a live one", () => {
    const table = new SessionTable();
    for (const [id, at] of [["old", NOW], ["newer", NOW + 5_000], ["newest", NOW + 9_000]] as const) table.put(completedSession(id, at));
    const driver = new Driver(NOW - 1_000);
    driver.feed(startInput({ sessionId: "live" }));
    table.put(driver.session("live"));
    table.forgetOldCompleted(2);
    expect(table.all().map((s) => s.id).sort()).toEqual(["live", "newer", "newest"]);
  });
});
