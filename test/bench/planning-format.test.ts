/**
 * The planning bench's pure parts (bench/planning/): problem discovery, what counts as solved,
 * the per-folder figures and the text, on made-up results, so every case (a refusal, a kill, a
 * crash, an invalid plan, a plan past the limit, a plan check that disagrees with its round
 * trip through PDDL) is covered whatever the planners do today.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { finalLine, formatSeconds, invalidLines, parseFinalLine, planCheckDisagreementLines, planCheckLines, refusalLines, tableLines, targetLines, unsolvedLines } from "../../bench/planning/format.js";
import { parseOptions } from "../../bench/planning/options.js";
import { bestKnownLength, discoverProblems, naturalCompare } from "../../bench/planning/problems.js";
import { classify, summarise } from "../../bench/planning/summary.js";
import type { PlannerRun, ProblemResult } from "../../bench/planning/types.js";

const IMPORTED = { ok: true as const, ms: 3, domainName: "d", problemName: "p", notes: [] };
const REFUSED = { ok: false as const, ms: 1, refusal: { file: "domain" as const, line: 4, column: 2, construct: ":durative-action", message: "Durative actions are not supported." } };

function result(folder: string, file: string, heuristic: Omit<PlannerRun, "planner">, extra: Partial<ProblemResult> = {}): ProblemResult {
  return { folder, file, domainPath: "", problemPath: "", numeric: folder.includes("numeric"), bestKnown: null, heuristic: { planner: "heuristic", ...heuristic }, ...extra };
}

const solved = (ms: number, steps: number): Omit<PlannerRun, "planner"> => ({
  import: IMPORTED,
  search: { kind: "plan", reason: "found", ms, plan: Array.from({ length: steps }, (_, i) => `(step s${i})`), stats: { groundActions: steps * 10 } },
  check: { verdict: "valid", reason: "All steps are applicable", ms: 1 },
});

const RESULTS: ProblemResult[] = [
  result("gripper", "instance-1.pddl", solved(1_200, 11)),
  result("gripper", "instance-2.pddl", solved(2_400, 17), { bestKnown: 17 }),
  result("gripper", "instance-3.pddl", { import: REFUSED }),
  result("gripper", "instance-4.pddl", { import: IMPORTED, ended: { phase: "search", how: "killed", reason: "at the limit: still searching after 5 s + 5 s grace", ms: 10_000 } }),
  result("zeno-numeric", "pfile1.pddl", { import: IMPORTED, search: { kind: "plan", reason: "found", ms: 100, plan: ["(fly p1 a b)"] }, check: { verdict: "invalid", reason: "fuel runs out", step: 1, ms: 1 } }),
  result("zeno-numeric", "pfile2.pddl", { import: IMPORTED, search: { kind: "gave-up", reason: "deadline", ms: 5_000 } }),
  result("zeno-numeric", "pfile3.pddl", { import: IMPORTED, ended: { phase: "search", how: "crashed", reason: "out of memory (JavaScript heap)", ms: 900 } }),
  result("zeno-numeric", "pfile4.pddl", solved(6_000, 4)),
];

/** Made-up figures of the plan check against its round trip: 1,200 + 34 plans, one disagreement. */
const ROUND_TRIPPED: ProblemResult[] = [
  result("gripper", "instance-1.pddl", { ...solved(10, 3), roundTrip: { checked: 1_200, agreed: 1_200, invalidMutants: 1_000, disagreements: [], ms: 5 } }),
  result("gripper", "instance-2.pddl", solved(10, 3)),
  result("zeno-numeric", "pfile1.pddl", {
    ...solved(10, 3),
    roundTrip: {
      checked: 34,
      agreed: 33,
      invalidMutants: 100,
      ms: 5,
      disagreements: [{ plan: "mutant swap-any", reason: "imported invalid at step 2, round-tripped valid", imported: { verdict: "invalid", reason: "x", step: 2 }, roundTripped: { verdict: "valid", reason: "y" }, step: 2, stepText: "(fly p1 b a)" }],
    },
  }),
];

describe("problem discovery", () => {
  it("orders names naturally and reads a best known length only from a comment that states one", () => {
    expect(["instance-10.pddl", "instance-2.pddl", "instance-1.pddl"].sort(naturalCompare)).toEqual(["instance-1.pddl", "instance-2.pddl", "instance-10.pddl"]);
    expect(bestKnownLength("(define (problem p)\n;; optimal plan length: 12\n)")).toBe(12);
    expect(bestKnownLength("; best known: 40 steps\n(define)")).toBe(40);
    expect(bestKnownLength(";;Setting seed to 1229\n(define (problem p) (:objects o1 o2))")).toBeNull();
  });

  it("keeps folders with a domain and instances, filtered by --only, the first N by --limit", () => {
    const dir = mkdtempSync(join(tmpdir(), "planning-data-"));
    for (const folder of ["b-numeric-x", "a-strips", "no-domain"]) {
      mkdirSync(join(dir, folder, "instances"), { recursive: true });
      if (folder !== "no-domain") writeFileSync(join(dir, folder, "domain.pddl"), "(define (domain d))");
      for (const n of [10, 2, 1]) writeFileSync(join(dir, folder, "instances", `p${n}.pddl`), "(define (problem p))");
    }
    const all = discoverProblems(dir);
    expect(all.map((p) => `${p.folder}/${p.file}`)).toEqual(["a-strips/p1.pddl", "a-strips/p2.pddl", "a-strips/p10.pddl", "b-numeric-x/p1.pddl", "b-numeric-x/p2.pddl", "b-numeric-x/p10.pddl"]);
    expect(all.map((p) => p.numeric)).toEqual([false, false, false, true, true, true]);
    expect(discoverProblems(dir, { only: "NUMERIC", limit: 2 }).map((p) => p.file)).toEqual(["p1.pddl", "p2.pddl"]);
    expect(() => discoverProblems(join(dir, "nothing"))).toThrow(/no benchmark directory/);
  });
});

describe("what counts as solved", () => {
  it("a valid plan within the limit; a plan the simulator does not call valid is an invalid plan proposed", () => {
    expect(classify(RESULTS[0]?.heuristic, 5_000)).toMatchObject({ status: "solved", ms: 1_200, length: 11 });
    expect(classify(RESULTS[7]?.heuristic, 5_000)).toMatchObject({ status: "late" });
    expect(classify(RESULTS[2]?.heuristic, 5_000)).toEqual({ status: "refused", reason: "domain 4:2 `:durative-action`: Durative actions are not supported." });
    expect(classify(RESULTS[3]?.heuristic, 5_000).status).toBe("killed");
    expect(classify(RESULTS[4]?.heuristic, 5_000)).toMatchObject({ status: "invalid-plan", reason: "invalid at step 1: fuel runs out" });
    expect(classify(RESULTS[5]?.heuristic, 5_000)).toEqual({ status: "gave-up", reason: "deadline" });
    expect(classify(RESULTS[6]?.heuristic, 5_000).status).toBe("crashed");
    const unchecked: PlannerRun = { planner: "heuristic", import: IMPORTED, search: { kind: "plan", reason: "", ms: 1, plan: ["(a)"] }, ended: { phase: "check", how: "crashed", reason: "exited with code 1", ms: 3 } };
    expect(classify(unchecked, 5_000).status).toBe("invalid-plan");
    expect(classify(undefined, 5_000).status).toBe("not-run");
  });
});

describe("the figures and the text", () => {
  const rows = summarise(RESULTS, "heuristic", 5_000);

  it("counts per folder, with solved ≤ imported ≤ problems", () => {
    expect(rows.map((r) => [r.folder, r.problems, r.imported, r.refused, r.solved, r.invalid])).toEqual([
      ["gripper", 4, 3, 1, 2, 0],
      ["zeno-numeric", 4, 4, 0, 0, 1],
    ]);
    expect(rows[0]?.ratios).toEqual([1]);
    expect(rows[1]?.unsolved.map((u) => u.status)).toEqual(["invalid-plan", "gave-up", "crashed", "late"]);
  });

  it("prints a row per folder and the totals, times and lengths of solved problems only", () => {
    const lines = tableLines("heuristic", rows);
    const row = (name: string): string[] => (lines.find((l) => l.startsWith(`${name} `)) ?? "").split(/\s{2,}/);
    // Ground actions come from the searches that report them (the solved ones and the late ones, which this stand-in gives 10 per step).
    expect(row("gripper")).toEqual(["gripper", "4", "3", "1", "2", "0", "1.8 / 2.4", "14 / 17", "1x (1)", "140 / 170"]);
    expect(row("zeno-numeric")).toEqual(["zeno-numeric", "4", "4", "0", "0", "1", "—", "—", "—", "40 / 40"]);
    expect(row("all")).toEqual(["all", "8", "7", "1", "2", "1", "1.8 / 2.4", "14 / 17", "1x (1)", "110 / 170"]);
  });

  it("lists every problem not solved with its reason, the refusal included, and the invalid plans loudly", () => {
    expect(refusalLines(rows)).toEqual(["Refused on import (where, the construct, why):", "  gripper: 1 domain 4:2 `:durative-action`: Durative actions are not supported. [instance-3]"]);
    const text = unsolvedLines("heuristic", rows).join("\n");
    expect(text).not.toContain("durative");
    expect(text).toContain("gripper: 1 killed: at the limit: still searching after 5 s + 5 s grace (in the search) [instance-4]");
    expect(text).toContain("zeno-numeric: 1 crashed: out of memory (JavaScript heap) (in the search) [pfile3]");
    expect(invalidLines("heuristic", rows)).toEqual(["INVALID PLANS PROPOSED by the heuristic planner: 1 (target 0)", "  zeno-numeric/pfile1.pddl: invalid at step 1: fuel runs out"]);
    expect(targetLines(rows, null, 5_000).join("\n")).toContain("target (Metric-FF within 10 s on this machine kind): 324 of 470 (classical 205 of 288, numeric 119 of 182)");
  });

  it("sums the plan check on real plans per folder in one line, and lists a disagreement loudly", () => {
    const checked = summarise(ROUND_TRIPPED, "heuristic", 5_000);
    expect(checked.map((r) => [r.folder, r.planCheck.problems, r.planCheck.checked, r.planCheck.agreed, r.planCheck.invalidMutants])).toEqual([
      ["gripper", 1, 1_200, 1_200, 1_000],
      ["zeno-numeric", 1, 34, 33, 100],
    ]);
    expect(planCheckLines(checked)).toEqual(["plan check on real plans: 1,234 plans (found plans and their mutations), 1,100 mutations rejected, round trip through PDDL agreed on 1,233 of 1,234"]);
    expect(planCheckDisagreementLines("heuristic", checked)).toEqual([
      "PLAN CHECK DISAGREES WITH ITS ROUND TRIP THROUGH PDDL for the heuristic planner: 1 (target 0)",
      "  zeno-numeric/pfile1.pddl (mutant swap-any): imported invalid at step 2, round-tripped valid; first differing step 2: (fly p1 b a)",
    ]);
    // No run reported the check (the SMT planner's, or a stand-in's): no line, no alarm.
    expect(planCheckLines(rows)).toEqual([]);
    expect(planCheckDisagreementLines("heuristic", rows)).toEqual([]);
  });

  it("ends with the line scripts read, its limit as given", () => {
    const line = finalLine(rows, 5_000);
    expect(line).toBe("planning: 2 of 8 solved within 5 s (classical 2 of 4, numeric 0 of 4); invalid plans proposed: 1");
    expect(parseFinalLine(line)).toEqual({ solved: 2, problems: 8, seconds: 5, classical: [2, 4], numeric: [0, 4], invalid: 1 });
    expect(formatSeconds(30_000)).toBe("30 s");
    expect(formatSeconds(2_500)).toBe("2.5 s");
  });
});

describe("the command line", () => {
  it("takes the SMT limit from the heuristic one unless given, and refuses what is not a number", () => {
    expect(parseOptions(["--timeout-ms", "5000"])).toMatchObject({ timeoutMs: 5_000, smtTimeoutMs: 5_000, maxSteps: 60, limit: null, only: null });
    expect(parseOptions(["--smt-timeout-ms", "1000", "--only", "gripper", "--limit", "2"])).toMatchObject({ timeoutMs: 30_000, smtTimeoutMs: 1_000, only: "gripper", limit: 2 });
    expect(parseOptions(["--no-smt"]).smtTimeoutMs).toBeNull();
    expect(() => parseOptions(["--limit", "two"])).toThrow(/--limit/);
    expect(() => parseOptions(["--frobnicate"])).toThrow();
  });
});
