/**
 * The planning bench's records: what a worker (worker.ts) is asked and answers, and what the
 * bench keeps per problem. The JSON file of a run is `PlanningRun` as written here, so these
 * types are the file's schema too.
 */
import type { PddlRefusal } from "../../src/planning/pddl-import/index.js";
import type { Verdict } from "../../src/formal/simulate.js";

export type PlannerName = "heuristic" | "smt";

/** One problem of one folder under the benchmark directory. */
export interface Problem {
  folder: string;
  /** The instance's file name, e.g. `instance-3.pddl`. */
  file: string;
  domainPath: string;
  problemPath: string;
  /** The folder's name contains "numeric". */
  numeric: boolean;
  /** A best known plan length the instance file states in a comment; null when it gives none. */
  bestKnown: number | null;
}

/** What the parent sends a worker: one planner on one problem. */
export interface WorkerJob {
  planner: PlannerName;
  domainPath: string;
  problemPath: string;
  timeoutMs: number;
  /** The SMT planner's horizon; unused by the heuristic planner. */
  maxSteps: number;
}

export type ImportReport =
  | { ok: true; ms: number; domainName: string; problemName: string; notes: string[] }
  | { ok: false; ms: number; refusal: PddlRefusal };

/** The planner's answer as the bench keeps it (the outcome kinds both planners share). */
export interface SearchReport {
  kind: "plan" | "no-plan" | "gave-up" | "cannot-help";
  reason: string;
  ms: number;
  plan?: string[];
  /** Whatever figures the planner gives (the heuristic planner's HeuristicStats). */
  stats?: Record<string, number>;
}

export interface CheckReport {
  verdict: Verdict;
  reason: string;
  step?: number;
  ms: number;
}

/** A plan on which the imported model and its round trip through PDDL disagree (round-trip.ts). */
export interface RoundTripDisagreement {
  /** "the found plan", "mutant swap-any", …, or "the round trip" when the written PDDL was refused. */
  plan: string;
  reason: string;
  imported?: { verdict: Verdict; reason: string; step?: number };
  roundTripped?: { verdict: Verdict; reason: string; step?: number };
  /** The plan's first differing step (1-based; 0 the initial state) and its text. */
  step?: number;
  stepText?: string;
}

/** The plan check checked on a found plan and its mutations (heuristic planner only). */
export interface RoundTripReport {
  /** Plans simulated on both models: the found plan and its mutations. */
  checked: number;
  agreed: number;
  /** Mutations the simulator calls invalid on the imported model. */
  invalidMutants: number;
  disagreements: RoundTripDisagreement[];
  /** Why nothing was checked (a plan over the bound). */
  skipped?: string;
  ms: number;
}

/**
 * Worker → parent, in this order; the worker exits after `checked` (after `round-tripped` for
 * the heuristic planner) or a search that gave no plan.
 */
export type WorkerMessage =
  | { phase: "imported"; report: ImportReport }
  | { phase: "searched"; report: SearchReport }
  | { phase: "checked"; report: CheckReport }
  | { phase: "round-tripped"; report: RoundTripReport }
  | { phase: "failed"; error: string };

/**
 * One planner's run on one problem. `ended` is set when the child did not finish on its own:
 * killed at its limit, out of memory, or failed; the run then counts as unsolved with that reason.
 */
export interface PlannerRun {
  planner: PlannerName;
  import?: ImportReport;
  search?: SearchReport;
  check?: CheckReport;
  /** The plan check against its round trip through PDDL (heuristic planner, a plan found). */
  roundTrip?: RoundTripReport;
  ended?: { phase: "import" | "search" | "check"; how: "killed" | "crashed"; reason: string; ms: number };
}

export interface ProblemResult extends Problem {
  heuristic: PlannerRun;
  /** Absent with --no-smt, or when the problem was refused on import. */
  smt?: PlannerRun;
}

export interface RunSettings {
  commit: string;
  date: string;
  node: string;
  cpus: number;
  jobs: number;
  timeoutMs: number;
  smtTimeoutMs: number | null;
  maxSteps: number;
  graceMs: number;
  heapMb: number;
  dataDir: string;
  only: string | null;
  limit: number | null;
}

export interface PlanningRun {
  settings: RunSettings;
  problems: ProblemResult[];
}
