/**
 * Proposal intake's rules: proposals of one session reach the core in the order they
 * arrived, whatever their plan checks take; a check that fails leaves the plan unverifiable,
 * saying why; the formal model's JSON the host holds goes with a check only for its model.
 */
import { describe, expect, it } from "vitest";
import type { FormalSummary, Verification } from "../../src/formal/index.js";
import type { AnalysedModel, VerifyAnswer, VerifyRequest } from "../../src/model-workers/model-worker.js";
import { FormalTexts } from "../../src/host/analysis-runner.js";
import { JournalKeeper } from "../../src/host/journal-keeper.js";
import type { ModelService } from "../../src/host/model-service.js";
import { Outbox } from "../../src/host/outbox.js";
import { ProposalIntake } from "../../src/host/proposal-intake.js";
import { SessionQueries } from "../../src/host/queries.js";
import { SessionTable } from "../../src/host/session-table.js";
import type { Input } from "../../src/session/step-io.js";
import { Driver, conforming, contributionInput, ok, solution, startInput, who } from "../support/session-fixtures.js";
import { NOW, RENDER, silent, turns } from "./fakes.js";

const SUMMARY: FormalSummary = { digest: "a".repeat(64), hasFormalPart: true, notMachineCheckable: [] };

function intakeWith() {
  const table = new SessionTable();
  const driver = new Driver(NOW);
  driver.feed(startInput({ sessionId: "s1", expectedAgents: ["alice", "bob"] }));
  driver.feed(contributionInput("s1", "alice"));
  driver.feed(contributionInput("s1", "bob"));
  driver.answer("s1", ok(conforming({ formalSummary: SUMMARY })));
  table.put(driver.session("s1"));
  const keeper = new JournalKeeper(undefined, table, silent);
  const outbox = new Outbox({ send: async () => undefined }, keeper, silent, RENDER.room);
  const queries = new SessionQueries({ table, keeper, outbox, log: silent, now: () => NOW });
  const checks: Array<{ request: VerifyRequest; answer: (a: VerifyAnswer) => void; fail: (e: Error) => void }> = [];
  const models: ModelService = {
    check: () => Promise.reject(new Error("unused")),
    analyse: () => Promise.reject(new Error("unused")),
    verify: (request) => new Promise((answer, fail) => checks.push({ request, answer, fail })),
  };
  const formalTexts = new FormalTexts();
  const applied: Array<Extract<Input, { kind: "proposal" }>> = [];
  const intake = new ProposalIntake({ table, models, formalTexts, queries, log: silent, stepper: { apply: (input) => void (input.kind === "proposal" && applied.push(input)) } });
  return { table, intake, checks, applied, formalTexts };
}

describe("ProposalIntake", () => {
  it("hands the session's proposals to the core in arrival order, though the later check finishes first", async () => {
    const { table, intake, checks, applied } = intakeWith();
    expect(table.get("s1")?.phase).toBe("reasoning");
    const first = intake.propose("s1", who("alice"), solution());
    const second = intake.propose("s1", who("bob"), solution());
    expect(checks).toHaveLength(2);
    const valid: Verification = { verdict: "valid", reason: "Every step applies." };
    checks[1]?.answer({ ok: true, verification: valid });
    await turns();
    expect(applied).toEqual([]);
    checks[0]?.fail(new Error("the worker crashed"));
    await Promise.all([first, second]);
    expect(applied.map((p) => [p.from.nick, p.verification])).toEqual([
      ["alice", { verdict: "unverifiable", reason: "The plan check did not finish: the worker crashed." }],
      ["bob", valid],
    ]);
  });

  it("hands over at once, unchecked by a worker, what needs no simulation", async () => {
    const { intake, checks, applied } = intakeWith();
    await intake.propose("s1", who("alice"), { success: false, message: "No plan." });
    expect(checks).toEqual([]);
    expect(applied[0]?.verification).toEqual({ verdict: "unverifiable", reason: "The proposal has no plan to check." });
  });

  it("sends the formal JSON it holds only with a check of that same model", async () => {
    const { intake, checks, formalTexts } = intakeWith();
    const analysed = (digest: string) => ({ formal: { ...SUMMARY, digest }, formalJson: `{"model":"${digest}"}` }) as unknown as AnalysedModel;
    formalTexts.keep("s1", analysed("b".repeat(64)));
    void intake.propose("s1", who("alice"), solution());
    formalTexts.keep("s1", analysed(SUMMARY.digest));
    void intake.propose("s1", who("bob"), solution());
    expect(checks.map((c) => c.request.formalJson)).toEqual([undefined, `{"model":"${SUMMARY.digest}"}`]);
  });
});
