import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FormalModel } from "../../src/formal/model.js";
import { simulatePlan } from "../../src/formal/simulate.js";
import { summariseFormalModel, type FormalSummary } from "../../src/formal/index.js";
import { checkPlan, claimedPlanOf } from "../../src/session/plan-check.js";
import { BlobWriter } from "../../src/store/blobs.js";
import { openSecondWriter } from "../../src/store/database-file.js";
import type { SolutionBody } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import { ExportError } from "../../src/store/export.js";
import { exportSessionPddl } from "../../src/store/export-pddl.js";
import { SessionStore } from "../../src/store/session-store.js";
import { fixture, modelOf } from "../formal/helpers.js";
import { readPddl, readPlanFile } from "../support/pddl-reader.js";
import { Driver, conforming, contributionInput, ok, proposalInput, solution, startInput } from "../support/session-fixtures.js";
import { T0, tempDir } from "./helpers.js";

const ID = "amber-fox-42";
const COURIER = fixture("courier.ttl");
const VALID = ["Insure(P1)", "Load(P1, Van-1, 0900-North)", "Drive(Van-1, 0900-North, South)", "Unload-All(Van-1, South)", "(load p2 van-1 south)", "drive(van-1, south, 0900-north)", "unload-all(van-1, 0900-north)"];
const SHORT = ["load(p1, van-1, 0900-north)", "drive(van-1, 0900-north, south)"];

/**
 * A session through the core, logged: a contribution holding the courier model, its analysis
 * (with or without the formal model kept), proposals from agents whose nicks are no file names.
 */
function runSession(store: SessionStore, opts: { keepFormal: boolean | "stored"; turtle?: string }): Driver {
  const driver = new Driver(T0);
  const log = (input: Input, at: number): void => {
    store.append(input.sessionId, input, at);
    driver.feed(input, at);
  };
  const turtle = opts.turtle ?? COURIER;
  log(startInput({ sessionId: ID, expectedAgents: ["alice", "bob"] }), T0);
  log(contributionInput(ID, "alice", { turtle }), T0 + 1000);
  log(contributionInput(ID, "bob", { turtle: "@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#x> a mfr:Entity ." }), T0 + 1500);
  const model = modelOf(turtle);
  const formal = opts.keepFormal === "stored" ? { formalSummary: storedAsTheWorkerDoes(store, model) } : opts.keepFormal ? { formal: model } : {};
  log({ kind: "analysis", sessionId: ID, version: driver.lastAnalyse(ID).version, outcome: ok(conforming(formal)) }, T0 + 2000);
  const plan = (steps: string[]): SolutionBody => solution({ plan: steps });
  // As the host does once the worker has checked the plan.
  const checked = (body: SolutionBody) => (opts.keepFormal === "stored" ? { verification: checkPlan(model, claimedPlanOf(body)) } : {});
  log({ ...proposalInput(ID, "Alice/Planner", plan(VALID)), ...checked(plan(VALID)) }, T0 + 3000);
  log({ ...proposalInput(ID, "alice planner", plan(SHORT)), ...checked(plan(SHORT)) }, T0 + 3500);
  log(proposalInput(ID, "bob", solution({ plan: undefined, success: false })), T0 + 4000);
  return driver;
}

/** The formal model as the model worker keeps it: its JSON a blob of the session, its summary naming the blob. */
function storedAsTheWorkerDoes(store: SessionStore, model: FormalModel): FormalSummary {
  const db = openSecondWriter(store.path);
  try {
    return summariseFormalModel(model, new BlobWriter(db).write(ID, JSON.stringify(model)));
  } finally {
    db.close();
  }
}

/** Every plan file, read back, gets the verdict the simulator gives the plan on the model itself. */
function expectRoundTrip(out: string, model: FormalModel, plans: Record<string, string[]>): void {
  const back = readPddl(readFileSync(join(out, `${ID}.domain.pddl`), "utf8"), readFileSync(join(out, `${ID}.problem.pddl`), "utf8"));
  for (const [file, plan] of Object.entries(plans)) {
    const steps = readPlanFile(readFileSync(join(out, file), "utf8"));
    const [original, exported] = [simulatePlan(model, plan), simulatePlan(back, steps)];
    expect([exported.verdict, exported.step], file).toEqual([original.verdict, original.step]);
  }
}

describe("export --pddl", () => {
  it("writes the domain, the problem and a plan file per proposal with a plan, each nick made a distinct file name", () => {
    const store = SessionStore.open(tempDir());
    runSession(store, { keepFormal: true });
    const out = join(tempDir(), "out");
    const { files, notes } = exportSessionPddl(store, ID, out);
    expect(files).toEqual([`${ID}.domain.pddl`, `${ID}.problem.pddl`, `${ID}.Alice_Planner.plan`, `${ID}.alice_planner-2.plan`].map((f) => join(out, f)));
    expect(notes).toEqual(["1 proposal has no plan, so no plan file"]);
    const model = modelOf(COURIER);
    expectRoundTrip(out, model, { [`${ID}.Alice_Planner.plan`]: VALID, [`${ID}.alice_planner-2.plan`]: SHORT });
    const plan = readFileSync(join(out, `${ID}.Alice_Planner.plan`), "utf8");
    expect(plan).toContain('; Plan proposed by "Alice/Planner"');
    expect(plan).toContain("; The coordinator's verdict: valid:");
    expect(readFileSync(join(out, `${ID}.alice_planner-2.plan`), "utf8")).toContain("; The coordinator's verdict: invalid at step 3:");
    store.close();
  });

  it("reads the formal model the worker stored, by the digest in the analysis's summary", () => {
    const store = SessionStore.open(tempDir());
    runSession(store, { keepFormal: "stored" });
    const out = join(tempDir(), "out");
    const { notes } = exportSessionPddl(store, ID, out);
    // Neither read afresh from the contributions nor from the TriG: no note says so.
    expect(notes).toEqual(["1 proposal has no plan, so no plan file"]);
    expectRoundTrip(out, modelOf(COURIER), { [`${ID}.Alice_Planner.plan`]: VALID, [`${ID}.alice_planner-2.plan`]: SHORT });
    expect(readFileSync(join(out, `${ID}.alice_planner-2.plan`), "utf8")).toContain("; The coordinator's verdict: invalid at step 3:");
    store.close();
  });

  it("reads the formal model from the contributions when the log does not keep it", () => {
    const store = SessionStore.open(tempDir());
    runSession(store, { keepFormal: false });
    const out = tempDir();
    const { files, notes } = exportSessionPddl(store, ID, out);
    expect(files).toHaveLength(4);
    expect(notes.join("\n")).toMatch(/read afresh from the contributions/);
    expectRoundTrip(out, modelOf(COURIER), { [`${ID}.Alice_Planner.plan`]: VALID });
    store.close();
  });

  it("reads the saved model TriG when the session's start was not logged", () => {
    const store = SessionStore.open(tempDir());
    store.append(ID, proposalInput(ID, "alice", solution({ plan: SHORT })), T0);
    // The saved TriG: the contribution's Turtle as one named graph, its prefixes in front.
    const prefixes = COURIER.match(/^@prefix[^\n]*\n/gm) ?? [];
    const body = COURIER.replace(/^@prefix[^\n]*\n/gm, "");
    store.saveArtefact(ID, "model-trig", `${prefixes.join("")}@base <http://purl.org/stuff/mfr/session/${ID}/> .\n<contribution/alice> {\n${body}\n}\n`);
    const out = tempDir();
    const { files, notes } = exportSessionPddl(store, ID, out);
    expect(files.map((f) => f.slice(out.length + 1))).toEqual([`${ID}.domain.pddl`, `${ID}.problem.pddl`]);
    expect(notes).toContain("the formal model was read from the saved model TriG");
    expectRoundTrip(out, modelOf(COURIER), {});
    store.close();
  });

  it("refuses a model with no formal part, and writes nothing", () => {
    const store = SessionStore.open(tempDir());
    const freeText = '@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#a> mfr:actionName "drive" ; mfr:hasPrecondition [ mfr:expression "the van is ready" ] ; mfr:hasEffect [ mfr:expression "it arrives" ] .';
    runSession(store, { keepFormal: true, turtle: freeText });
    const out = join(tempDir(), "never-made");
    expect(() => exportSessionPddl(store, ID, out)).toThrow(ExportError);
    expect(() => exportSessionPddl(store, ID, out)).toThrow(/no formal part to write as PDDL.*2 free-text parts/);
    expect(existsSync(out)).toBe(false);
    store.close();
  });

  it("refuses an unknown session and an id that is not a file name", () => {
    const store = SessionStore.open(tempDir());
    const out = tempDir();
    expect(() => exportSessionPddl(store, "no-such-session", out)).toThrow(/there is no session/);
    expect(() => exportSessionPddl(store, "../escape", out)).toThrow(/not a session id/);
    expect(readdirSync(out)).toEqual([]);
    store.close();
  });
});
