/** Session steps → metrics, on the fake clock, read back from the Prometheus text. */
import { beforeEach, describe, expect, it } from "vitest";
import { OperationsMetrics } from "../../src/ops/metrics.js";
import { SessionMetrics } from "../../src/ops/session-metrics.js";
import type { Input } from "../../src/session/step-io.js";
import { conforming, contributionInput, Driver, failedCheck, ok, proposalInput, settings, solution, startInput, T0, workerError } from "../support/session-fixtures.js";

/** The core on a fake clock, each step handed to the metrics as the host hands it. */
class MeteredCore {
  readonly driver = new Driver(T0);
  readonly metrics = new OperationsMetrics({ liveSessions: () => 0, queuedModelJobs: () => 0, connected: () => true }, { processMetrics: false });
  private readonly sessionMetrics = new SessionMetrics(this.metrics);

  feed(input: Input, at: number): void {
    const before = this.driver.state.byId[input.sessionId];
    const effects = this.driver.feed(input, at);
    this.sessionMetrics.take({ at, input, before, after: this.driver.state.byId[input.sessionId], effects });
  }

  async value(series: string): Promise<number | undefined> {
    const text = await this.metrics.text();
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  }
}

const S = (ms: number) => T0 + ms;

describe("session metrics from the step stream", () => {
  let core: MeteredCore;
  beforeEach(() => {
    core = new MeteredCore();
  });

  it("a solved session: started, phases timed by the steps' instants, validation, contributions, proposals, completed", async () => {
    core.feed(startInput({ sessionId: "s1", expectedAgents: ["alice", "bob"] }), S(0));
    core.feed(contributionInput("s1", "alice"), S(1_000));
    core.feed(contributionInput("s1", "bob"), S(2_000)); // everyone expected is in: validation asked for
    core.feed({ kind: "analysis", sessionId: "s1", version: core.driver.lastAnalyse("s1").version, outcome: ok(conforming()) }, S(2_500));
    core.feed(proposalInput("s1", "alice", solution()), S(4_000));
    core.feed(proposalInput("s1", "bob", solution()), S(5_000));
    expect(core.driver.session("s1").completion?.status).toBe("solved");

    expect(await core.value("mfr_sessions_started_total")).toBe(1);
    expect(await core.value('mfr_sessions_completed_total{status="solved"}')).toBe(1);
    expect(await core.value('mfr_sessions_completed_total{status="failed"}')).toBe(0);
    expect(await core.value('mfr_session_phase_duration_seconds_sum{phase="collecting"}')).toBe(2);
    expect(await core.value('mfr_session_phase_duration_seconds_sum{phase="validating"}')).toBe(0.5);
    expect(await core.value('mfr_session_phase_duration_seconds_sum{phase="reasoning"}')).toBe(2.5);
    expect(await core.value('mfr_session_phase_duration_seconds_count{phase="reasoning"}')).toBe(1);
    expect(await core.value('mfr_session_phase_duration_seconds_count{phase="selecting"}')).toBe(0);
    expect(await core.value('mfr_validation_duration_seconds_sum{outcome="sound"}')).toBe(0.5);
    expect(await core.value('mfr_validation_duration_seconds_bucket{le="0.5",outcome="sound"}')).toBe(1);
    expect(await core.value('mfr_validation_duration_seconds_bucket{le="0.25",outcome="sound"}')).toBe(0);
    expect(await core.value("mfr_contributions_received_total")).toBe(2);
    expect(await core.value("mfr_proposals_received_total")).toBe(2);
  });

  it("validation is timed from the worker's start when the session's clock starts there, and a failed one is labelled", async () => {
    core.feed(startInput({ sessionId: "s1", expectedAgents: ["alice"], settings: settings({ validationClockStartsInWorker: true }) }), S(0));
    core.feed(contributionInput("s1", "alice"), S(1_000));
    const version = core.driver.lastAnalyse("s1").version;
    core.feed({ kind: "analysis-started", sessionId: "s1", version }, S(3_000)); // two seconds waiting for a worker: not validation time
    core.feed({ kind: "analysis", sessionId: "s1", version, outcome: workerError("worker crashed") }, S(3_250));

    expect(await core.value('mfr_validation_duration_seconds_sum{outcome="failed"}')).toBe(0.25);
    expect(await core.value('mfr_validation_duration_seconds_count{outcome="sound"}')).toBe(0);
    // The phase counts both: waiting for a worker is part of validating.
    expect(await core.value('mfr_session_phase_duration_seconds_sum{phase="validating"}')).toBe(2.25);
  });

  it("refusals the core decides: malformed Turtle, a rule broken, an unknown session; a cancel completes as cancelled", async () => {
    core.feed(startInput({ sessionId: "s1", expectedAgents: ["alice", "bob"] }), S(0));
    core.feed(contributionInput("s1", "carol", { check: failedCheck("Unexpected literal", 3, 5) }), S(100));
    core.feed(contributionInput("s1", "dave", { check: { ok: false, message: "over 5000 triples", line: null, column: null, refused: true } }), S(200));
    core.feed(contributionInput("nope", "erin"), S(300));
    core.feed(proposalInput("nope", "erin", solution()), S(400));
    core.feed({ kind: "cancel", sessionId: "s1", by: { nick: "dana", jid: "dana@people.example" } }, S(10_000));

    expect(await core.value('mfr_inputs_refused_total{reason="malformed-turtle"}')).toBe(1);
    expect(await core.value('mfr_inputs_refused_total{reason="contribution-over-limit"}')).toBe(1);
    expect(await core.value('mfr_inputs_refused_total{reason="unknown-session"}')).toBe(2);
    expect(await core.value('mfr_inputs_refused_total{reason="throttled"}')).toBe(0);
    expect(await core.value("mfr_contributions_received_total")).toBe(3);
    expect(await core.value("mfr_proposals_received_total")).toBe(1);
    expect(await core.value('mfr_sessions_completed_total{status="cancelled"}')).toBe(1);
    expect(await core.value('mfr_session_phase_duration_seconds_sum{phase="collecting"}')).toBe(10);
    expect(await core.value("mfr_sessions_started_total")).toBe(1);
  });

  it("a session restored from the log is timed from its first phase change, and counted once when it completes", async () => {
    const restored = new Driver(T0);
    restored.feed(startInput({ sessionId: "s1", expectedAgents: ["alice"] }), S(0));
    core.driver.state = restored.state; // as SessionHost.restore leaves it: no steps were emitted
    core.feed(contributionInput("s1", "alice", { check: { ok: true, tripleCount: 5, counts: { entities: 1, stateVariables: 0, actions: 1, constraints: 0, goals: 1 } } }), S(60_000));
    core.feed({ kind: "cancel", sessionId: "s1", by: { nick: "dana", jid: "dana@people.example" } }, S(61_000));

    expect(await core.value("mfr_sessions_started_total")).toBe(0);
    expect(await core.value('mfr_session_phase_duration_seconds_count{phase="collecting"}')).toBe(0);
    expect(await core.value('mfr_session_phase_duration_seconds_sum{phase="validating"}')).toBe(1);
    expect(await core.value('mfr_sessions_completed_total{status="cancelled"}')).toBe(1);
  });
});

describe("the other metrics", () => {
  it("reads gauges from their owners at each scrape, counts reconnects after the first connection, and has no label from input", async () => {
    let live = 3;
    const metrics = new OperationsMetrics({ liveSessions: () => live, queuedModelJobs: () => 7, connected: () => false });
    metrics.connectionOnline();
    metrics.connectionOnline();
    metrics.connectionOnline();
    metrics.refused("throttled");
    const text = await metrics.text();
    expect(text).toContain("mfr_live_sessions 3");
    expect(text).toContain("mfr_model_jobs_queued 7");
    expect(text).toContain("mfr_xmpp_connected 0");
    expect(text).toContain("mfr_xmpp_reconnects_total 2");
    expect(text).toContain('mfr_inputs_refused_total{reason="throttled"} 1');
    // The event-loop delay, from perf_hooks.monitorEventLoopDelay via prom-client's process metrics.
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
    live = 0;
    expect(await metrics.text()).toContain("mfr_live_sessions 0");
    // A second registry beside the first: nothing is registered globally.
    const other = new OperationsMetrics({ liveSessions: () => 1, queuedModelJobs: () => 0, connected: () => true });
    expect(await other.text()).toContain("mfr_xmpp_reconnects_total 0");
  });
});
