import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Parser, termToId } from "n3";
import type { Quad } from "n3";
import { describe, expect, it } from "vitest";
import { parseContribution } from "../../src/rdf/parse.js";
import type { Input } from "../../src/session/step-io.js";
import { ExportError, exportSession } from "../../src/store/export.js";
import { SessionStore } from "../../src/store/session-store.js";
import { Driver, conforming, contributionInput, ok, proposalInput, startInput } from "../support/session-fixtures.js";
import { T0, tempDir } from "./helpers.js";

const ID = "amber-fox-42";
const BASE = `http://purl.org/stuff/mfr/session/${ID}/`;
const GRAPH = (agent: string) => `${BASE}contribution/${agent}`;
const MFR = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n";
const TURTLE = {
  alice: readFileSync(new URL("../fixtures/models/valid-complete.ttl", import.meta.url), "utf8"),
  bob: `${MFR}<#truck> a mfr:Entity ; mfr:entityType "Vehicle" . <#crate> a mfr:Entity ; mfr:note "say \\"hi\\"\\nthen go"@en . [] a mfr:Goal ; mfr:goalStatement "crate delivered" .`,
};

/** A whole session through the core — start, two contributions, validation, two proposals — logged as it goes. */
function runSession(store: SessionStore): Driver {
  const driver = new Driver(T0);
  const log = (input: Input, at: number): void => {
    store.append(input.sessionId, input, at);
    driver.feed(input, at);
  };
  log(startInput({ sessionId: ID, expectedAgents: ["alice", "bob"] }), T0);
  log(contributionInput(ID, "alice", { turtle: TURTLE.alice }), T0 + 1000);
  log(contributionInput(ID, "bob", { turtle: TURTLE.bob }), T0 + 2000);
  log({ kind: "analysis", sessionId: ID, version: driver.lastAnalyse(ID).version, outcome: ok(conforming()) }, T0 + 3000);
  log(proposalInput(ID, "alice"), T0 + 4000);
  log(proposalInput(ID, "bob"), T0 + 5000);
  return driver;
}

const quadKey = (q: Quad): string => `${termToId(q.subject)} ${termToId(q.predicate)} ${termToId(q.object)} ${q.graph.termType}:${q.graph.value}`;

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

describe("export", () => {
  it("writes the four files, and a TriG with one named graph per contribution that round-trips through n3", () => {
    const store = SessionStore.open(tempDir());
    const driver = runSession(store);
    const out = join(tempDir(), "out");
    const { files, notes } = exportSession(store, ID, out);
    expect(files).toEqual([`${ID}.trig`, `${ID}.validation.json`, `${ID}.proposals.json`, `${ID}.events.json`].map((f) => join(out, f)));
    expect(notes).toEqual([]);

    const trig = readFileSync(join(out, `${ID}.trig`), "utf8");
    const quads = new Parser({ format: "application/trig", blankNodePrefix: "" }).parse(trig);
    const graphs = new Set(quads.map((q) => q.graph.value));
    expect(graphs).toEqual(new Set([GRAPH("alice"), GRAPH("bob"), `${BASE}coordinator`]));
    // Relative IRIs resolved against the session's base.
    expect(quads.some((q) => q.subject.value === `${BASE}#truck` && q.graph.value === GRAPH("bob"))).toBe(true);
    // Each contribution graph holds exactly that contribution's quads, blank nodes included.
    (["alice", "bob"] as const).forEach((agent, index) => {
      const expected = parseContribution(TURTLE[agent], { baseIri: BASE, graphIri: GRAPH(agent), maxTriples: 10_000, blankNodePrefix: `c${index}_` });
      if (!expected.ok) throw new Error(expected.error.message);
      const inGraph = quads.filter((q) => q.graph.value === GRAPH(agent));
      expect(inGraph.map(quadKey).sort()).toEqual(expected.quads.map(quadKey).sort());
    });

    const validation = readJson(join(out, `${ID}.validation.json`)) as { sessionId: string; validations: unknown[]; reports: unknown[] };
    expect(validation.sessionId).toBe(ID);
    const recorded = driver.session(ID).validations.map((v) => ({ ...v, atIso: new Date(v.at).toISOString() }));
    expect(validation.validations).toEqual(JSON.parse(JSON.stringify(recorded)));
    expect(validation.validations).toHaveLength(1);
    const proposals = readJson(join(out, `${ID}.proposals.json`)) as { proposals: Array<{ agent: string }> };
    expect(proposals.proposals.map((p) => p.agent)).toEqual(["alice", "bob"]);
    const events = readJson(join(out, `${ID}.events.json`)) as { events: Array<{ seq: number; at: number; input: { kind: string } }> };
    expect(events.events.map((e) => e.input.kind)).toEqual(["start", "contribution", "contribution", "analysis", "proposal", "proposal"]);
    expect(events.events.map((e) => e.seq)).toEqual(store.eventsOf(ID).map((e) => e.seq));
    store.close();
  });

  it("exports the saved model and validation reports of an archived session, read-only next to the coordinator", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    const driver = runSession(store);
    const savedTrig = `<${GRAPH("alice")}> { <${BASE}#a> <${BASE}#b> "saved" . }\n`;
    store.saveArtefact(ID, "model-trig", savedTrig);
    store.saveArtefact(ID, "validation", JSON.stringify({ conforms: true, results: [] }));
    store.saveArtefact(ID, "validation", "not json");
    store.archive(driver.session(ID));
    expect(driver.session(ID).completion?.status).toBe("solved");

    const reader = SessionStore.open(dir, { readonly: true });
    const out = tempDir();
    exportSession(reader, ID, out);
    expect(readFileSync(join(out, `${ID}.trig`), "utf8")).toBe(savedTrig);
    const validation = readJson(join(out, `${ID}.validation.json`)) as { reports: Array<{ report: unknown }> };
    expect(validation.reports.map((r) => r.report)).toEqual([{ conforms: true, results: [] }, "not json"]);
    expect((readJson(join(out, `${ID}.events.json`)) as { events: unknown[] }).events).toHaveLength(6);
    reader.close();
    store.close();
  });

  it("merges the contributions afresh when one arrived after the saved model", () => {
    const store = SessionStore.open(tempDir(), { now: () => T0 + 1500 });
    const driver = new Driver(T0);
    for (const [input, at] of [
      [startInput({ sessionId: ID, expectedAgents: ["alice", "bob"] }), T0],
      [contributionInput(ID, "alice", { turtle: TURTLE.alice }), T0 + 1000],
    ] as const) {
      store.append(ID, input, at);
      driver.feed(input, at);
    }
    store.saveArtefact(ID, "model-trig", "# stale\n"); // saved at T0 + 1500
    store.append(ID, contributionInput(ID, "bob", { turtle: TURTLE.bob }), T0 + 2000);
    const out = tempDir();
    const { notes } = exportSession(store, ID, out);
    expect(notes.join(" ")).toMatch(/arrived after the last validated model/);
    const quads = new Parser({ format: "application/trig" }).parse(readFileSync(join(out, `${ID}.trig`), "utf8"));
    expect(new Set(quads.map((q) => q.graph.value))).toEqual(new Set([GRAPH("alice"), GRAPH("bob"), `${BASE}coordinator`]));
    store.close();
  });

  it("states the final status, and gives every instant as ISO 8601 beside its epoch value", () => {
    const store = SessionStore.open(tempDir());
    const driver = runSession(store);
    const completion = driver.session(ID).completion;
    expect(completion?.status).toBe("solved");
    const out = tempDir();
    const { status } = exportSession(store, ID, out);
    const completedIso = new Date(completion?.at ?? 0).toISOString();
    expect(status).toBe(`session ${ID}: solved at ${completedIso}${completion?.reason ? ` (${completion.reason})` : ""}`);

    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    for (const file of ["validation", "proposals", "events"]) {
      const standing = (readJson(join(out, `${ID}.${file}.json`)) as { session: Record<string, unknown> }).session;
      expect(standing).toMatchObject({ status: "solved", phase: "complete", startedAt: T0, startedAtIso: new Date(T0).toISOString(), completedAtIso: completedIso });
    }
    const events = (readJson(join(out, `${ID}.events.json`)) as { events: Array<{ at: number; atIso: string }> }).events;
    for (const e of events) expect(e.atIso).toBe(new Date(e.at).toISOString());
    expect(events[0]?.atIso).toMatch(iso);
    const proposals = (readJson(join(out, `${ID}.proposals.json`)) as { proposals: Array<{ receivedAt: number; receivedAtIso: string }> }).proposals;
    expect(proposals.map((p) => p.receivedAtIso)).toEqual([T0 + 4000, T0 + 5000].map((t) => new Date(t).toISOString()));
    const validations = (readJson(join(out, `${ID}.validation.json`)) as { validations: Array<{ at: number; atIso: string }> }).validations;
    expect(validations.map((v) => v.atIso)).toEqual(validations.map((v) => new Date(v.at).toISOString()));
    store.close();
  });

  it("says a session is still running, and in which phase", () => {
    const store = SessionStore.open(tempDir());
    const input = startInput({ sessionId: ID, expectedAgents: ["alice"] });
    store.append(ID, input, T0);
    const out = tempDir();
    const { status } = exportSession(store, ID, out);
    expect(status).toBe(`session ${ID}: still running (collecting), started at ${new Date(T0).toISOString()}`);
    const standing = (readJson(join(out, `${ID}.events.json`)) as { session: Record<string, unknown> }).session;
    expect(standing).toMatchObject({ status: null, phase: "collecting", completedAt: null, completedAtIso: null });
    store.close();
  });

  it("refuses an unknown session and an id that is not a file name", () => {
    const store = SessionStore.open(tempDir());
    const out = tempDir();
    expect(() => exportSession(store, "no-such-session", out)).toThrow(ExportError);
    expect(() => exportSession(store, "../escape", out)).toThrow(/not a session id/);
    store.close();
  });
});
