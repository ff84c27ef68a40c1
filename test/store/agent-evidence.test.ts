/** Agent evidence in the store: schema v3, rows kept as the catalog holds them, across reopenings, bounded by retention. */
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EvidenceRow } from "../../src/agent-choice/evidence.js";
import { DATABASE_FILE, SessionStore } from "../../src/store/index.js";
import { T0, tempDir } from "./helpers.js";

const row = (over: Partial<EvidenceRow> = {}): EvidenceRow => ({
  identity: "occupant:abc",
  nick: "MfrSemantic",
  kind: "protocol",
  firstSeen: T0,
  lastSeen: T0,
  contributions: 1,
  proposals: 0,
  ...over,
});

describe("agent evidence in the store", () => {
  it("keeps one row per identity and kind, written as the catalog holds it, and reads it back after reopening", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir, { now: () => T0 });
    store.saveEvidence(row());
    store.saveEvidence(row({ lastSeen: T0 + 10, contributions: 2, proposals: 1, nick: "semantic" }));
    store.saveEvidence(row({ kind: "consensus", contributions: 0 }));
    store.saveEvidence(row({ identity: "nick:dana", nick: "dana", kind: "person", contributions: 0 }));
    store.close();

    const again = SessionStore.open(dir, { now: () => T0 });
    expect(again.loadEvidence()).toEqual([
      row({ identity: "nick:dana", nick: "dana", kind: "person", contributions: 0 }),
      row({ kind: "consensus", contributions: 0 }),
      row({ lastSeen: T0 + 10, contributions: 2, proposals: 1, nick: "semantic" }),
    ]);
    again.close();
  });

  it("saveEvidenceRows writes a batch in one transaction, as saving each row would", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir, { now: () => T0 });
    const rows = [row(), row({ kind: "consensus", contributions: 0 }), row({ identity: "nick:dana", nick: "dana", kind: "person", contributions: 0 })];
    store.saveEvidenceRows(rows);
    store.saveEvidenceRows([row({ lastSeen: T0 + 5, contributions: 3 })]);
    store.close();
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    expect((db.prepare("SELECT count(*) AS n FROM agent_evidence").get() as { n: number }).n).toBe(3);
    db.close();
    const again = SessionStore.open(dir, { now: () => T0 });
    expect(again.loadEvidence()).toContainEqual(row({ lastSeen: T0 + 5, contributions: 3 }));
    expect(again.loadEvidence()).toContainEqual(row({ identity: "nick:dana", nick: "dana", kind: "person", contributions: 0 }));
    again.close();
  });

  it("a new store is at schema v3 or later, with the agent_evidence table", () => {
    const dir = tempDir();
    SessionStore.open(dir).close();
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    expect((db.prepare("SELECT version FROM schema_version").get() as { version: number }).version).toBeGreaterThanOrEqual(3);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'agent_evidence'").get()).toEqual({ name: "agent_evidence" });
    db.close();
  });

  it("forgets evidence not seen within the retention age, with the archive's prune", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir, { now: () => T0 });
    store.saveEvidence(row({ identity: "occupant:old", lastSeen: T0 - 100 }));
    store.saveEvidence(row({ identity: "occupant:new", lastSeen: T0 }));
    store.prune({ maxAgeMs: 50, now: T0 });
    expect(store.loadEvidence().map((r) => r.identity)).toEqual(["occupant:new"]);
    store.close();
  });
});
