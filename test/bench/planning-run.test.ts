/**
 * The planning bench as it runs: a child per problem killed at its limit or counted when it
 * dies (with a stand-in worker, so the cases do not depend on the planners), and the built
 * bench on two small problems, whose output must have its shape whatever the planners do:
 * with today's stubs every problem is refused, with the real ones some are solved.
 * The bench is run from dist/ (`npm test` builds first; run `npm run build` before
 * `npx vitest run` on its own), on the IPC problems in ../shared/pddl.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runInChild } from "../../bench/planning/child.js";
import { parseFinalLine } from "../../bench/planning/format.js";
import type { PlanningRun, WorkerJob } from "../../bench/planning/types.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BENCH = join(ROOT, "dist", "bench", "planning.js");
const DATA = join(ROOT, "..", "shared", "pddl");

/** Behaves as the problem path says: the cases worker.ts can end in, without a planner. */
const STAND_IN = `
const imported = { ok: true, ms: 1, domainName: "d", problemName: "p", notes: [] };
process.once("message", (job) => {
  const send = (m) => new Promise((r) => process.send(m, undefined, {}, r));
  const mode = job.problemPath;
  (async () => {
    if (mode === "refuse") return send({ phase: "imported", report: { ok: false, ms: 1, refusal: { file: "problem", line: 2, column: 3, construct: ":constraints", message: "no" } } });
    await send({ phase: "imported", report: imported });
    if (mode === "hang") for (;;);
    if (mode === "crash") { process.stderr.write("FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\\n"); process.exit(134); }
    await send({ phase: "searched", report: { kind: "plan", reason: "found", ms: 5, plan: ["(a)"] } });
    await send({ phase: "checked", report: { verdict: "valid", reason: "ok", ms: 1 } });
  })().finally(() => process.exit(0));
});`;

describe("a planner's child process", () => {
  const dir = mkdtempSync(join(tmpdir(), "planning-child-"));
  const worker = join(dir, "stand-in.mjs");
  writeFileSync(worker, STAND_IN);
  const job = (mode: string): WorkerJob => ({ planner: "heuristic", domainPath: "", problemPath: mode, timeoutMs: 300, maxSteps: 10 });
  const limits = { graceMs: 200, heapMb: 256, worker };

  it("collects the reports of a run that ends on its own", async () => {
    expect(await runInChild(job("plan"), limits)).toEqual({
      planner: "heuristic",
      import: { ok: true, ms: 1, domainName: "d", problemName: "p", notes: [] },
      search: { kind: "plan", reason: "found", ms: 5, plan: ["(a)"] },
      check: { verdict: "valid", reason: "ok", ms: 1 },
    });
    const refused = await runInChild(job("refuse"), limits);
    expect(refused.import?.ok).toBe(false);
    expect(refused.ended).toBeUndefined();
  });

  it("kills a search at its limit plus the grace, and says so", async () => {
    const started = Date.now();
    const run = await runInChild(job("hang"), limits);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.ended).toMatchObject({ phase: "search", how: "killed", reason: expect.stringMatching(/^at the limit: still searching/) });
    expect(run.ended?.ms).toBeGreaterThanOrEqual(450);
  });

  it("counts a child that dies, with why", async () => {
    const run = await runInChild(job("crash"), limits);
    expect(run.ended).toMatchObject({ phase: "search", how: "crashed", reason: "out of memory (JavaScript heap)" });
  });
});

describe("the built planning bench on two gripper problems", () => {
  it("prints the header, the folder's row, every problem not solved, and the last line", { timeout: 120_000 }, async () => {
    expect(existsSync(BENCH), `${BENCH} is missing: run \`npm run build\``).toBe(true);
    expect(existsSync(DATA), `the IPC problems are missing at ${DATA}`).toBe(true);
    const json = join(mkdtempSync(join(tmpdir(), "planning-bench-")), "results.json");
    const { stdout } = await promisify(execFile)(process.execPath, [BENCH, "--only", "gripper", "--limit", "2", "--timeout-ms", "5000", "--no-smt", "--jobs", "2", "--quiet", "--json", json], { cwd: ROOT });
    const lines = stdout.trimEnd().split("\n");

    expect(lines[0]).toMatch(/^Planning on the IPC benchmarks in .+: 2 problems in 1 folder \(classical 2, numeric 0\), selected by --only gripper --limit 2$/);
    expect(lines[1]).toMatch(/^commit \S+, \d{4}-\d\d-\d\dT.+, node v\d+/);
    expect(lines[2]).toContain("heuristic planner 5 s per problem; SMT planner not run (--no-smt)");

    const row = lines.find((l) => l.startsWith("ipc-1998-gripper-round-1-strips "))?.split(/\s{2,}/);
    // folder, problems, imported, refused, solved, invalid, time, length, ÷ best known, ground actions.
    expect(row).toHaveLength(10);
    const [problems, imported, refused, solved, invalid] = (row ?? []).slice(1, 6).map(Number) as [number, number, number, number, number];
    expect(problems).toBe(2);
    expect(solved).toBeLessThanOrEqual(imported);
    expect(imported + refused).toBeLessThanOrEqual(problems);
    expect(invalid).toBe(0);

    // Each plan found is checked with up to 20 mutations on the model and on its round trip through PDDL, all agreeing.
    const check = /^plan check on real plans: ([\d,]+) plans \(found plans and their mutations\), ([\d,]+) mutations rejected, round trip through PDDL agreed on ([\d,]+) of ([\d,]+)$/.exec(lines.find((l) => l.startsWith("plan check on real plans: ")) ?? "");
    if (solved > 0) {
      expect(check, lines.join("\n")).not.toBeNull();
      const [plans, , agreed, of] = (check?.slice(1) ?? []).map((v) => Number(v.replace(/,/g, "")));
      expect(plans).toBeGreaterThan(solved);
      expect(plans).toBeLessThanOrEqual(21 * solved);
      expect([agreed, of]).toEqual([plans, plans]);
    }
    expect(lines.some((l) => l.startsWith("PLAN CHECK DISAGREES"))).toBe(false);

    // Each problem not solved is named once with its reason: under "Refused on import" or "Not solved" (one planner here).
    const listed = lines.filter((l) => l.startsWith("  ipc-1998-gripper-round-1-strips: "));
    const named = listed.flatMap((l) => /\[(.*)\]$/.exec(l)?.[1]?.split(", ") ?? []);
    expect(named).toHaveLength(problems - solved);
    const refusals = listed.filter((l) => /^ {2}\S+: \d+ (domain|problem) \d+:\d+ `/.test(l));
    expect(refusals.reduce((n, l) => n + Number(/: (\d+) /.exec(l)?.[1]), 0)).toBe(refused);
    if (refused > 0) expect(lines).toContain("Refused on import (where, the construct, why):");

    const last = parseFinalLine(lines.at(-1) ?? "");
    expect(last, lines.at(-1)).toEqual({ solved, problems: 2, seconds: 5, classical: [solved, 2], numeric: [0, 0], invalid: 0 });
    expect(lines).toContain("  target (Metric-FF within 10 s on this machine kind): 324 of 470 (classical 205 of 288, numeric 119 of 182) — this run covers 2 of the 470 problems");

    const run = JSON.parse(readFileSync(json, "utf8")) as PlanningRun;
    expect(run.settings).toMatchObject({ timeoutMs: 5_000, smtTimeoutMs: null, only: "gripper", limit: 2 });
    expect(run.problems.map((p) => p.file)).toEqual(["instance-1.pddl", "instance-2.pddl"]);
    for (const p of run.problems) expect(p.heuristic.import ?? p.heuristic.ended).toBeDefined();
  });
});
