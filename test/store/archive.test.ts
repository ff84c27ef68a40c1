import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Driver, conforming, contributionInput, ok, proposalInput, startInput } from "../support/session-fixtures.js";
import { SessionStore } from "../../src/store/session-store.js";
import { archiveRecordOf } from "../../src/host/journal-records.js";
import { T0, cancel, completedSession, contribution, start, tempDir } from "./helpers.js";

describe("the archive", () => {
  it("takes an archived session out of the live events but keeps its events", () => {
    const store = SessionStore.open(tempDir());
    store.append("a", start("a"), T0);
    store.append("b", start("b"), T0 + 1);
    store.append("a", cancel("a"), T0 + 2);
    store.archive(completedSession("a", T0, T0 + 2));

    expect(store.liveEvents().map((e) => e.sessionId)).toEqual(["b"]);
    expect(store.eventsOf("a").map((e) => e.input.kind)).toEqual(["start", "cancel"]);
    store.close();
  });

  it("does not replay inputs that arrive for a session after it was archived", () => {
    const store = SessionStore.open(tempDir());
    store.append("a", start("a"), T0);
    store.archive(completedSession("a", T0));
    store.append("a", contribution("a", "late-alice"), T0 + 5000);
    expect(store.liveEvents()).toEqual([]);
    expect(store.eventsOf("a")).toHaveLength(2);
    store.close();
  });

  it("gives back the final session as it was archived", () => {
    const store = SessionStore.open(tempDir());
    const session = completedSession("a", T0, T0 + 42);
    store.archive(session);
    // JSON leaves out undefined properties; the core treats missing and undefined alike.
    expect(store.archivedSession("a")).toEqual(JSON.parse(JSON.stringify(session)));
    expect(store.archivedRecord("a")).toMatchObject({ id: "a", status: "cancelled", startedAt: T0, completedAt: T0 + 42, problem: session.problem });
    expect(store.archivedSession("missing")).toBeUndefined();
    store.close();
  });

  it("holds a solved session's model once, however often the session refers to it, and gives it back as it was", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    const id = "amber-fox-42";
    const modelTurtle = `@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#model-only-here> a mfr:Entity .\n`;
    const driver = new Driver(T0);
    driver.feed(startInput({ sessionId: id, expectedAgents: ["alice"] }), T0);
    driver.feed(contributionInput(id, "alice"), T0 + 1000);
    driver.feed({ kind: "analysis", sessionId: id, version: driver.lastAnalyse(id).version, outcome: ok(conforming({ modelTurtle })) }, T0 + 2000);
    driver.feed(proposalInput(id, "alice"), T0 + 3000);
    const session = driver.session(id);
    expect(session.phase).toBe("complete");
    // The core's session refers to one analysis from two places: the model and its last validation.
    expect(session.model?.modelTurtle).toBe(modelTurtle);
    store.archive(session);

    const db = new Database(join(dir, "mfr-coordinator.sqlite"), { readonly: true });
    const row = db.prepare("SELECT session FROM archived_sessions WHERE id = ?").get(id) as { session: string };
    db.close();
    expect(row.session.split("model-only-here").length - 1).toBe(1);
    const back = store.archivedSession(id);
    expect(back).toEqual(JSON.parse(JSON.stringify(session)));
    // Put back as the core had it: one object in both places.
    const last = back?.validations.at(-1)?.outcome;
    expect(last?.ok === true && last.analysis === back?.model).toBe(true);
    store.close();
  });

  it("accepts a prepared record and refuses a session that is still running", () => {
    const store = SessionStore.open(tempDir());
    store.archive(archiveRecordOf(completedSession("a", T0)));
    expect(store.countArchived()).toBe(1);
    const running = { ...completedSession("b", T0), phase: "collecting" as const, completion: null };
    expect(() => store.archive(running)).toThrow(/still collecting/);
    expect(store.countArchived()).toBe(1);
    store.close();
  });

  it("lists archived sessions newest first, pages with `before`, and counts them", () => {
    const store = SessionStore.open(tempDir());
    // Archived out of start order, to show the list is ordered by start, not by archiving.
    for (const [id, startedAt] of [["s2", T0 + 2000], ["s0", T0], ["s3", T0 + 3000], ["s1", T0 + 1000]] as const) {
      store.archive(completedSession(id, startedAt));
    }
    expect(store.countArchived()).toBe(4);
    const page1 = store.listArchived({ limit: 2 });
    expect(page1.map((s) => s.id)).toEqual(["s3", "s2"]);
    expect(page1[0]).toEqual({ id: "s3", problem: "Problem of s3", status: "cancelled", startedAt: T0 + 3000, completedAt: T0 + 4000 });
    const page2 = store.listArchived({ limit: 2, before: page1[1]?.startedAt });
    expect(page2.map((s) => s.id)).toEqual(["s1", "s0"]);
    expect(store.listArchived(10).map((s) => s.id)).toEqual(["s3", "s2", "s1", "s0"]);
    store.close();
  });
});
