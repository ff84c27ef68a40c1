/**
 * An archived session refers to the long texts its events already hold (blob-json.ts,
 * `$mfrEvent`) instead of repeating them, and reads back exactly as the session was.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { SolutionBody } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import { DATABASE_FILE, SessionStore } from "../../src/store/index.js";
import { EVENT_TEXT_MIN_CHARS } from "../../src/store/blob-json.js";
import { Driver, conforming, contributionInput, ok, proposalInput, solution, startInput } from "../support/session-fixtures.js";
import { T0, tempDir } from "./helpers.js";

const ID = "amber-fox-7";
const MFR = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n";

/** A contribution of some kilobytes: long enough to be referred to, short of a blob. */
function turtle(agent: string, lines = 100): string {
  const out = [MFR];
  for (let i = 0; i < lines; i++) out.push(`<#${agent}${i}> a mfr:Entity ; mfr:entityType "Crate 📦 ${i} \\"quoted\\"" .\n`);
  return out.join("");
}

/** A whole session logged as the coordinator logs it; the proposals' bodies as given. */
function runSession(store: SessionStore, bodies: SolutionBody[] = [solution(), solution()], fed: Input[] = []): Driver {
  const driver = new Driver(T0);
  const texts = { alice: turtle("alice"), bob: turtle("bob") };
  let at = T0;
  const feed = (input: Input) => {
    at += 1000;
    fed.push(input);
    store.append(ID, input, at);
    driver.feed(input, at);
  };
  feed(startInput({ sessionId: ID, expectedAgents: ["alice", "bob"] }));
  feed(contributionInput(ID, "alice", { turtle: texts.alice }));
  feed(contributionInput(ID, "bob", { turtle: texts.bob }));
  feed({ kind: "analysis", sessionId: ID, version: driver.lastAnalyse(ID).version, outcome: ok(conforming({ modelTurtle: `${texts.alice}${texts.bob}` })) });
  feed(proposalInput(ID, "alice", bodies[0]));
  feed(proposalInput(ID, "bob", bodies[1]));
  return driver;
}

function archivedRowLength(dir: string): number {
  const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
  try {
    return (db.prepare("SELECT length(session) AS n FROM archived_sessions WHERE id = ?").get(ID) as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("an archived session refers to its events' texts", () => {
  it("writes references instead of the contributions and the model, and reads back the same session", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    const driver = runSession(store);
    const session = driver.session(ID);
    expect(session.phase).toBe("complete");
    store.archive(session);
    const contributionsLength = turtle("alice").length + turtle("bob").length;
    // Inline, the row held both contributions and the model (twice their length) and more.
    expect(archivedRowLength(dir)).toBeLessThan(contributionsLength / 2);
    expect(store.archivedSession(ID)).toEqual(session);
    store.close();
    // And after reopening, from another connection.
    const reader = SessionStore.open(dir, { readonly: true });
    expect(reader.archivedSession(ID)).toEqual(session);
    reader.close();
  });

  it("refers to them too when the session was rebuilt from the log after a restart", () => {
    const dir = tempDir();
    const first = SessionStore.open(dir);
    const driver = runSession(first);
    first.close();
    const second = SessionStore.open(dir);
    expect(second.liveEvents().length).toBeGreaterThan(0);
    second.archive(driver.session(ID));
    expect(archivedRowLength(dir)).toBeLessThan(turtle("alice").length);
    expect(second.archivedSession(ID)).toEqual(driver.session(ID));
    second.close();
  });

  it("an event the archive refers to gone missing is reported as damage, naming the event", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    store.archive(runSession(store).session(ID));
    store.close();
    const db = new Database(join(dir, DATABASE_FILE));
    db.prepare("DELETE FROM events WHERE kind = 'contribution'").run();
    db.close();
    const again = SessionStore.open(dir);
    expect(() => again.archivedSession(ID)).toThrow(/refers to the text at turtle of event \d+, which is missing/);
    again.close();
  });

  it("a proposal holding what looks like a reference is kept as it was sent (property)", () => {
    // Peers' proposals keep fields the coordinator does not know; such a field may be shaped like a reference.
    const lookalike = fc.oneof(
      fc.record({ $mfrEvent: fc.nat(20), path: fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.nat(3)), { maxLength: 3 }) }),
      fc.record({ $mfrBlob: fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 1, maxLength: 64 }), as: fc.constantFrom("text", "json") }),
      fc.record({ $$mfrEvent: fc.nat(20), path: fc.constant(["turtle"]) }),
      fc.string({ minLength: EVENT_TEXT_MIN_CHARS, maxLength: EVENT_TEXT_MIN_CHARS + 50 }),
    );
    fc.assert(
      fc.property(lookalike, lookalike, (a, b) => {
        const dir = tempDir();
        const store = SessionStore.open(dir);
        const bodies = [
          { ...solution(), extra: a },
          { ...solution(), extra: { nested: b } },
        ] as SolutionBody[];
        const fed: Input[] = [];
        const driver = runSession(store, bodies, fed);
        // The log gives back what was fed (as JSON keeps it), after a restart too.
        const asJson = (x: unknown): unknown => JSON.parse(JSON.stringify(x));
        store.close();
        const reopened = SessionStore.open(dir);
        expect(reopened.liveEvents().map((e) => e.input)).toEqual(asJson(fed));
        reopened.archive(driver.session(ID));
        expect(reopened.archivedSession(ID)).toEqual(driver.session(ID));
        expect(reopened.eventsOf(ID).map((e) => e.input)).toEqual(asJson(fed));
        reopened.close();
      }),
      { numRuns: 30 },
    );
  });
});
