import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFormalModel } from "../../src/formal/model.js";
import { simulatePlan } from "../../src/formal/simulate.js";
import { parseContribution } from "../../src/rdf/parse.js";
import type { Input } from "../../src/session/step-io.js";
import { SessionStore } from "../../src/store/session-store.js";
import { runCli } from "../support/cli.js";
import { readPddl, readPlanFile } from "../support/pddl-reader.js";
import { Driver, T0, conforming, contributionInput, ok, proposalInput, solution, startInput } from "../support/session-fixtures.js";

const COURIER = readFileSync(new URL("../fixtures/formal/courier.ttl", import.meta.url), "utf8");
const VALID = ["Insure(P1)", "Load(P1, Van-1, 0900-North)", "Drive(Van-1, 0900-North, South)", "Unload-All(Van-1, South)", "(load p2 van-1 south)", "drive(van-1, south, 0900-north)", "unload-all(van-1, 0900-north)"];
const INVALID = ["drive(van-1, 0900-north, south)", "drive(van-1, south, 0900-north)", "drive(van-1, 0900-north, south)"];

let dir: string;

/** A finished session in a store of its own: a formal model, two proposals with plans. */
function storeWithSession(dataDir: string, id: string, turtle: string): void {
  const store = SessionStore.open(dataDir);
  const driver = new Driver(T0);
  const log = (input: Input, at: number): void => {
    store.append(input.sessionId, input, at);
    driver.feed(input, at);
  };
  log(startInput({ sessionId: id, expectedAgents: ["alice", "bob"] }), T0);
  log(contributionInput(id, "alice", { turtle }), T0 + 1000);
  log(contributionInput(id, "bob", { turtle }), T0 + 1500);
  // The formal model as the model worker reads it: from the contributions' quads.
  const parsed = parseContribution(turtle, { baseIri: `http://purl.org/stuff/mfr/session/${id}/`, graphIri: "urn:g", maxTriples: 10_000, blankNodePrefix: "c0_" });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const formal = readFormalModel(parsed.quads);
  log({ kind: "analysis", sessionId: id, version: driver.lastAnalyse(id).version, outcome: ok(conforming({ formal })) }, T0 + 2000);
  log(proposalInput(id, "alice", solution({ plan: VALID })), T0 + 3000);
  log(proposalInput(id, "bob", solution({ plan: INVALID })), T0 + 3500);
  expect(driver.session(id).completion?.status).toBe("solved");
  store.archive(driver.session(id));
  store.close();
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mfr-export-pddl-"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("mfr-coordinator export ID --pddl", () => {
  it("writes the domain, the problem and a plan per proposal, prints them, and they read back", async () => {
    const data = join(dir, "data");
    const out = join(dir, "out");
    storeWithSession(data, "amber-fox-42", COURIER);
    const run = await runCli(["export", "amber-fox-42", "--pddl", "--out", out, "--data-dir", data]);
    expect(run.code, run.stderr).toBe(0);
    const names = ["amber-fox-42.domain.pddl", "amber-fox-42.problem.pddl", "amber-fox-42.alice.plan", "amber-fox-42.bob.plan"];
    expect(run.stdout.trim().split("\n")).toEqual(names.map((n) => join(out, n)));
    expect(readdirSync(out).sort()).toEqual([...names].sort());

    const read = (name: string): string => readFileSync(join(out, name), "utf8");
    expect(read("amber-fox-42.domain.pddl")).toMatch(/^\(define \(domain mfr-amber-fox-42\)$/m);
    expect(read("amber-fox-42.problem.pddl")).toMatch(/^\(define \(problem mfr-amber-fox-42-problem\)$/m);
    const back = readPddl(read("amber-fox-42.domain.pddl"), read("amber-fox-42.problem.pddl"));
    expect(simulatePlan(back, readPlanFile(read("amber-fox-42.alice.plan")))).toMatchObject({ verdict: "valid" });
    expect(simulatePlan(back, readPlanFile(read("amber-fox-42.bob.plan")))).toMatchObject({ verdict: "invalid", step: 3 });
    expect(read("amber-fox-42.bob.plan")).toContain("; The coordinator's verdict: invalid at step 3:");
  });

  it("a session whose model has no formal part: one clear line, exit 1, no files", async () => {
    const data = join(dir, "data-free-text");
    const out = join(dir, "out-free-text");
    storeWithSession(data, "free-text", '@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#g> a mfr:Goal ; mfr:expression "all parcels delivered" .');
    const run = await runCli(["export", "free-text", "--pddl", "--out", out, "--data-dir", data]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain('session "free-text" has no formal part to write as PDDL');
    expect(run.stdout).toBe("");
    expect(existsSync(out)).toBe(false);
  });

  it("help lists --pddl", async () => {
    const run = await runCli(["help"]);
    expect(run.stdout).toContain("export ID --pddl");
    expect(run.stdout).toContain("Validate -v DOMAIN PROBLEM PLAN");
  });
});
