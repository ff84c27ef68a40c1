/**
 * Runs one WorkerJob in a forked worker.ts and collects its reports into a PlannerRun. Each
 * phase has its own allowance, started by the report of the phase before: the search gets the
 * job's limit plus a grace, after which the child is killed and the run counts as unsolved
 * with that reason; a child that dies (out of memory, Z3's abort) counts the same way.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { PlannerRun, WorkerJob, WorkerMessage } from "./types.js";

export interface ChildLimits {
  /** Extra time past the job's limit before the child is killed. */
  graceMs: number;
  /** The child's V8 heap limit in MiB (Z3's heap is WebAssembly memory, outside it). */
  heapMb: number;
  /** The module to fork; the compiled worker.js beside this file by default (a test gives a stand-in). */
  worker?: string;
}

/** Reading and translating the PDDL (and starting Z3) is not the search; bounded only against a hang. */
const IMPORT_ALLOWANCE_MS = 120_000;
/** Simulating a plan of thousands of steps takes seconds at most; bounded only against a hang. */
const CHECK_ALLOWANCE_MS = 120_000;

const WORKER = fileURLToPath(new URL("./worker.js", import.meta.url));

type Phase = "import" | "search" | "check";

export function runInChild(job: WorkerJob, limits: ChildLimits): Promise<PlannerRun> {
  return new Promise((resolve) => {
    const run: PlannerRun = { planner: job.planner };
    const child = fork(limits.worker ?? WORKER, [], { stdio: ["ignore", "ignore", "pipe", "ipc"], execArgv: [`--max-old-space-size=${limits.heapMb}`] });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr = `${stderr}${d.toString()}`.slice(-4_000)));
    let phase: Phase = "import";
    let phaseStarted = performance.now();
    let killedFor: string | null = null;
    let failure: string | null = null;
    let timer: NodeJS.Timeout | undefined;

    const arm = (next: Phase, allowanceMs: number, why: string): void => {
      clearTimeout(timer);
      phase = next;
      phaseStarted = performance.now();
      timer = setTimeout(() => {
        killedFor = why;
        child.kill("SIGKILL");
      }, allowanceMs);
    };
    arm("import", IMPORT_ALLOWANCE_MS, `no import within ${seconds(IMPORT_ALLOWANCE_MS)}`);

    child.on("message", (message: WorkerMessage) => {
      switch (message.phase) {
        case "imported":
          run.import = message.report;
          arm("search", job.timeoutMs + limits.graceMs, `at the limit: still searching after ${seconds(job.timeoutMs)} + ${seconds(limits.graceMs)} grace`);
          break;
        case "searched":
          run.search = message.report;
          arm("check", CHECK_ALLOWANCE_MS, `the plan check took over ${seconds(CHECK_ALLOWANCE_MS)}`);
          break;
        case "checked":
          run.check = message.report;
          // The round trip that may follow has an allowance of its own; the run is complete without it.
          arm("check", CHECK_ALLOWANCE_MS, `the plan check's round trip took over ${seconds(CHECK_ALLOWANCE_MS)}`);
          break;
        case "round-tripped":
          run.roundTrip = message.report;
          break;
        case "failed":
          failure = `the worker failed: ${firstLine(message.error)}`;
          break;
      }
    });

    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const complete = run.import !== undefined && (run.import.ok === false || (run.search !== undefined && (run.search.plan === undefined || run.check !== undefined)));
      // A round trip that was killed or failed is a finding about the plan check, listed with the disagreements.
      if (complete && run.check !== undefined && run.roundTrip === undefined && (killedFor !== null || failure !== null)) {
        const reason = `the round trip did not end: ${killedFor ?? failure ?? ""}`;
        run.roundTrip = { checked: 0, agreed: 0, invalidMutants: 0, disagreements: [{ plan: "the round trip", reason }], ms: performance.now() - phaseStarted };
      }
      if (!complete) {
        const ms = performance.now() - phaseStarted;
        run.ended = killedFor !== null ? { phase, how: "killed", reason: killedFor, ms } : { phase, how: "crashed", reason: failure ?? describeExit(code, signal, stderr), ms };
      }
      resolve(run);
    };
    child.on("exit", finish);
    // A fork that fails may never emit "exit": the run ends here then.
    child.on("error", (err) => {
      failure = `could not run the worker: ${err.message}`;
      child.kill("SIGKILL");
      finish(null, null);
    });
    child.send(job);
  });
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

/** Why a child ended without its reports: the heap, Z3's memory, or the exit as it was. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  if (/JavaScript heap out of memory|Reached heap limit/i.test(stderr)) return "out of memory (JavaScript heap)";
  if (/Cannot enlarge memory|OOM|out of memory/i.test(stderr)) return "out of memory (Z3's WebAssembly heap)";
  if (signal) return `ended by ${signal}`;
  const last = stderr.trim().split("\n").pop();
  return `exited with code ${code ?? "?"}${last ? ` (${last.slice(0, 200)})` : ""}`;
}
