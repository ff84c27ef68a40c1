/**
 * The planning bench's command line. Unknown flags are an error (strict), and so is a number
 * that is not one: a typo should not run a two-hour benchmark with a default.
 */
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";

export interface PlanningOptions {
  timeoutMs: number;
  /** null with --no-smt. */
  smtTimeoutMs: number | null;
  maxSteps: number;
  jobs: number;
  only: string | null;
  limit: number | null;
  json: string | null;
  dataDir: string | null;
  heapMb: number;
  graceMs: number;
  quiet: boolean;
}

export const USAGE = `usage: node dist/bench/planning.js [--timeout-ms MS] [--smt-timeout-ms MS | --no-smt] [--max-steps N]
    [--jobs N] [--only SUBSTRING] [--limit N] [--json FILE] [--data DIR] [--heap-mb MIB] [--grace-ms MS] [--quiet]`;

function positiveInteger(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${flag} wants a positive whole number, not "${text}"`);
  return n;
}

export function parseOptions(argv: readonly string[]): PlanningOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      "timeout-ms": { type: "string" },
      "smt-timeout-ms": { type: "string" },
      "no-smt": { type: "boolean", default: false },
      "max-steps": { type: "string" },
      jobs: { type: "string" },
      only: { type: "string" },
      limit: { type: "string" },
      json: { type: "string" },
      data: { type: "string" },
      "heap-mb": { type: "string" },
      "grace-ms": { type: "string" },
      quiet: { type: "boolean", default: false },
    },
  });
  const timeoutMs = positiveInteger("timeout-ms", values["timeout-ms"], 30_000);
  return {
    timeoutMs,
    // The SMT planner takes the whole limit on most large problems; its own flag lets a run cut that short.
    smtTimeoutMs: values["no-smt"] ? null : positiveInteger("smt-timeout-ms", values["smt-timeout-ms"], timeoutMs),
    maxSteps: positiveInteger("max-steps", values["max-steps"], 60),
    jobs: positiveInteger("jobs", values.jobs, availableParallelism()),
    only: values.only ?? null,
    limit: values.limit === undefined ? null : positiveInteger("limit", values.limit, 0),
    json: values.json ?? null,
    dataDir: values.data ?? null,
    heapMb: positiveInteger("heap-mb", values["heap-mb"], 4096),
    graceMs: positiveInteger("grace-ms", values["grace-ms"], 5_000),
    quiet: values.quiet,
  };
}
