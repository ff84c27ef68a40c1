/**
 * The analysis runner's rules: the validation clock starts when a worker begins the job, by
 * an input applied after the step that asked for the analysis, and only while the session
 * still waits for that version; the outcome goes back to the core as an input, the model to
 * the journal for export, and the formal JSON the worker could not store to the plan checks.
 */
import { describe, expect, it } from "vitest";
import type { AnalyseAnswer } from "../../src/model-workers/model-worker.js";
import { AnalysisRunner, FormalTexts } from "../../src/host/analysis-runner.js";
import { JournalKeeper } from "../../src/host/journal-keeper.js";
import type { ModelService } from "../../src/host/model-service.js";
import { SessionTable } from "../../src/host/session-table.js";
import type { Input } from "../../src/session/step-io.js";
import { Driver, contributionInput, settings, startInput } from "../support/session-fixtures.js";
import { ArrayJournal, NOW, RENDER, silent } from "./fakes.js";

const SUMMARY = { digest: "c".repeat(64), hasFormalPart: true, notMachineCheckable: [] };
const ANSWER: AnalyseAnswer = {
  ok: true,
  analysis: {
    validation: { conforms: true, violations: 0, warnings: 0, results: [], summary: "The model conforms." },
    modelTurtle: "<#a> a <#T> .",
    problemModelIri: "http://example.org/pm",
    tripleCount: 1,
    countsByAgent: {},
    parseErrors: [],
    formal: SUMMARY,
    formalJson: '{"formal":true}',
  },
};

function runnerWith(answer: AnalyseAnswer) {
  const table = new SessionTable();
  const driver = new Driver(NOW);
  driver.feed(startInput({ sessionId: "s1", expectedAgents: ["alice"], settings: settings({ validationClockStartsInWorker: true }) }));
  driver.feed(contributionInput("s1", "alice"));
  table.put(driver.session("s1"));
  const journal = new ArrayJournal();
  const formalTexts = new FormalTexts();
  const applied: Input[] = [];
  let begin: (() => void) | undefined;
  let finish: (() => void) | undefined;
  const models: ModelService = {
    check: () => Promise.reject(new Error("unused")),
    // The worker begins the job, and answers only when the test lets it.
    analyse: (_job, options) =>
      new Promise((resolve) => {
        begin = options?.onStart;
        finish = () => resolve(answer);
      }),
    verify: () => Promise.reject(new Error("unused")),
  };
  const runner = new AnalysisRunner({ models, settings: settings(), render: RENDER, table, keeper: new JournalKeeper(journal, table, silent), formalTexts, stepper: { apply: (input) => void applied.push(input) } });
  return { runner, driver, applied, journal, formalTexts, begin: () => begin?.(), finish: () => finish?.() };
}

describe("AnalysisRunner", () => {
  it("starts the validation clock when a worker begins, after the current step; then hands the outcome to the core", async () => {
    const { runner, driver, applied, begin, finish } = runnerWith(ANSWER);
    expect(driver.session("s1").phase).toBe("validating");
    const version = driver.lastAnalyse("s1").version;
    const done = runner.run(driver.lastAnalyse("s1"));
    begin();
    // Not inside the worker's call: the step that asked for the analysis may still be running.
    expect(applied).toEqual([]);
    await Promise.resolve();
    expect(applied.map((i) => i.kind)).toEqual(["analysis-started"]);
    finish();
    await done;
    expect(applied.map((i) => i.kind)).toEqual(["analysis-started", "analysis"]);
    const outcome = applied[1];
    if (outcome?.kind !== "analysis" || !outcome.outcome.ok) throw new Error("no analysis outcome");
    expect(outcome.version).toBe(version);
    expect(outcome.outcome.analysis.formalSummary).toEqual(SUMMARY);
  });

  it("keeps the validation report for export and the formal JSON the worker could not store", async () => {
    const { runner, driver, journal, formalTexts, finish } = runnerWith(ANSWER);
    const done = runner.run(driver.lastAnalyse("s1"));
    finish();
    await done;
    expect(journal.artefacts.map((a) => a.kind)).toEqual(["validation"]);
    expect(formalTexts.of("s1", SUMMARY.digest)).toBe('{"formal":true}');
    expect(formalTexts.of("s1", "d".repeat(64))).toBeUndefined();
  });

  it("hands a failed analysis to the core as a failure, saying whether it ran out of time", async () => {
    const { runner, driver, applied, finish } = runnerWith({ ok: false, error: "over its budget", timedOut: true });
    const done = runner.run(driver.lastAnalyse("s1"));
    finish();
    await done;
    expect(applied.at(-1)).toMatchObject({ kind: "analysis", outcome: { ok: false, error: "over its budget", timedOut: true } });
  });
});
