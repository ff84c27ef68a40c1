import Database from "better-sqlite3";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Input } from "../../src/session/step-io.js";
import { BlobReader, BlobWriter, blobChunks } from "../../src/store/blobs.js";
import { BLOB_MIN_CHARS } from "../../src/host/journal-records.js";
import { openSecondWriter } from "../../src/store/database-file.js";
import { exportSession } from "../../src/store/export.js";
import { replayEvents } from "../../src/store/replay.js";
import { SessionStore } from "../../src/store/session-store.js";
import { Driver, conforming, contributionInput, ok, proposalInput, startInput } from "../support/session-fixtures.js";
import { T0, tempDir } from "./helpers.js";

const ID = "amber-fox-42";
const MFR = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n";

/** A Turtle contribution well over BLOB_MIN_CHARS, with characters outside the BMP in it. */
function largeTurtle(agent: string): string {
  const lines = [MFR];
  for (let i = 0; lines.join("").length < 2 * BLOB_MIN_CHARS; i++) lines.push(`<#${agent}${i}> a mfr:Entity ; mfr:entityType "Crate 📦 ${i}" .\n`);
  return lines.join("");
}

const TURTLE = { alice: largeTurtle("alice"), bob: largeTurtle("bob") };
const MODEL = `${TURTLE.alice}${TURTLE.bob}`;
const FORMAL = { goals: [], constraints: [], actions: [], findings: [], notMachineCheckable: [], note: "x".repeat(BLOB_MIN_CHARS) };

/**
 * A whole session logged as the coordinator logs it. With `worker`, the large values are
 * first written by a second connection and adopted, as the model worker and the host do.
 */
function runSession(store: SessionStore, worker: BlobWriter | undefined, until = Infinity): Driver {
  const driver = new Driver(T0);
  const analysis = conforming({ modelTurtle: MODEL, formal: FORMAL as never });
  const inputs: Array<[Input, number]> = [
    [startInput({ sessionId: ID, expectedAgents: ["alice", "bob"] }), T0],
    [contributionInput(ID, "alice", { turtle: TURTLE.alice }), T0 + 1000],
    [contributionInput(ID, "bob", { turtle: TURTLE.bob }), T0 + 2000],
  ];
  inputs.forEach(([input, at], i) => {
    if (i >= until) return;
    if (worker && input.kind === "contribution") store.adoptBlob(ID, input.turtle, { digest: worker.write(ID, input.turtle), as: "text" });
    store.append(ID, input, at);
    driver.feed(input, at);
  });
  if (until <= inputs.length) return driver;
  if (worker) {
    store.adoptBlob(ID, analysis.modelTurtle, { digest: worker.write(ID, analysis.modelTurtle), as: "text" });
    store.adoptBlob(ID, FORMAL, { digest: worker.writeJson(ID, FORMAL), as: "json" });
    store.saveArtefactBlob(ID, "model-trig", worker.write(ID, `# TriG\n${MODEL}`));
  } else {
    store.saveArtefact(ID, "model-trig", `# TriG\n${MODEL}`);
  }
  const rest: Input[] = [
    { kind: "analysis", sessionId: ID, version: driver.lastAnalyse(ID).version, outcome: ok(analysis) },
    proposalInput(ID, "alice"),
    proposalInput(ID, "bob"),
  ];
  rest.forEach((input, i) => {
    store.append(ID, input, T0 + 3000 + i * 1000);
    driver.feed(input, T0 + 3000 + i * 1000);
  });
  return driver;
}

/** The largest row the main thread wrote for the session's events and archive. */
function largestRow(dir: string): number {
  const db = new Database(join(dir, "mfr-coordinator.sqlite"), { readonly: true });
  try {
    const events = db.prepare("SELECT max(length(input)) AS n FROM events").get() as { n: number };
    const archived = db.prepare("SELECT coalesce(max(length(session)), 0) AS n FROM archived_sessions").get() as { n: number };
    return Math.max(events.n, archived.n);
  } finally {
    db.close();
  }
}

describe("blobs", () => {
  it("cuts texts into chunks without ever splitting a surrogate pair, and reads them back whole", () => {
    const text = `a${"📦".repeat(10)}b`;
    for (const size of [2, 3, 4, 5]) {
      const chunks = blobChunks(text, size);
      expect(chunks.join("")).toBe(text);
      for (const c of chunks) expect(c).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
    const dir = tempDir();
    const store = SessionStore.open(dir);
    const writer = new BlobWriter(openSecondWriter(store.path), 3);
    const digest = writer.write(ID, text);
    expect(writer.write(ID, text)).toBe(digest);
    const reader = new BlobReader(new Database(store.path, { readonly: true }));
    expect(reader.text(ID, digest)).toBe(text);
    expect(reader.text("other-session", digest)).toBeUndefined();
    store.close();
  });

  it("keeps large values out of events and the archive, and gives back the same session, replay and export", () => {
    const plainDir = tempDir();
    const plain = SessionStore.open(plainDir);
    const plainDriver = runSession(plain, undefined);
    plain.archive(plainDriver.session(ID));

    const dir = tempDir();
    const store = SessionStore.open(dir);
    const driver = runSession(store, new BlobWriter(openSecondWriter(store.path)));
    store.archive(driver.session(ID));

    // The main thread wrote references only; without them the rows hold the texts.
    expect(largestRow(dir)).toBeLessThan(BLOB_MIN_CHARS);
    expect(largestRow(plainDir)).toBeGreaterThan(MODEL.length);

    expect(store.archivedSession(ID)).toEqual(plain.archivedSession(ID));
    expect(store.eventsOf(ID).map((e) => e.input)).toEqual(plain.eventsOf(ID).map((e) => e.input));
    expect(replayEvents(store.eventsOf(ID)).byId[ID]).toEqual(replayEvents(plain.eventsOf(ID)).byId[ID]);

    // Export (read-only, next to the running coordinator) writes the same files, byte for byte.
    const reader = SessionStore.open(dir, { readonly: true });
    const [outA, outB] = [tempDir(), tempDir()];
    exportSession(reader, ID, outA);
    exportSession(plain, ID, outB);
    const names = readdirSync(outA).sort();
    expect(names).toEqual(readdirSync(outB).sort());
    for (const name of names) expect(readFileSync(join(outA, name), "utf8")).toBe(readFileSync(join(outB, name), "utf8"));
    reader.close();
    plain.close();
    store.close();
  });

  it("rebuilds a live session after a restart from its references, and archives it by reference again", () => {
    const dir = tempDir();
    const before = SessionStore.open(dir);
    const driver = runSession(before, new BlobWriter(openSecondWriter(before.path)), 3);
    before.close();

    const after = SessionStore.open(dir);
    const restored = replayEvents(after.liveEvents()).byId[ID];
    expect(restored).toEqual(JSON.parse(JSON.stringify(driver.session(ID))));
    expect(restored?.contributions.alice?.turtle).toBe(TURTLE.alice);
    // The values read back are known as stored: the archive of the rebuilt session refers to them.
    const cancelled = new Driver(T0);
    for (const e of after.liveEvents()) cancelled.feed(e.input, e.at);
    const cancel: Input = { kind: "cancel", sessionId: ID, by: { nick: "dana", jid: "dana@people.example" } };
    after.append(ID, cancel, T0 + 9000);
    cancelled.feed(cancel, T0 + 9000);
    after.archive(cancelled.session(ID));
    expect(largestRow(dir)).toBeLessThan(BLOB_MIN_CHARS);
    expect(after.archivedSession(ID)?.contributions.bob?.turtle).toBe(TURTLE.bob);
    after.close();
  });

  it("names a missing blob as damage rather than giving back a session without its text", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    runSession(store, new BlobWriter(openSecondWriter(store.path)), 2);
    const db = new Database(store.path);
    db.prepare("DELETE FROM blob_chunks WHERE chunk = 0").run();
    db.close();
    expect(() => store.eventsOf(ID)).toThrow(/refers to stored text .*missing/);
    store.close();
  });
});
