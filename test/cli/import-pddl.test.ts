/**
 * `mfr-coordinator import-pddl DOMAIN PROBLEM [--out FILE]` run as built (dist/): the Turtle
 * on stdout or in FILE, the summary and notes on stderr, a refusal as one
 * `file:line:col: message` line with exit code 1, and a missing argument as a usage error.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Parser } from "n3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFormalModel } from "../../src/formal/model.js";
import { importPddl } from "../../src/planning/pddl-import/index.js";
import { runCli } from "../support/cli.js";
import { RICH_DOMAIN, RICH_PROBLEM } from "../planning/pddl-import/fixtures.js";
import { IPC_DIR } from "../planning/pddl-import/ipc.js";

let dir: string;
let domain: string;
let problem: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mfr-import-pddl-"));
  domain = join(dir, "courier.pddl");
  problem = join(dir, "deliver.pddl");
  writeFileSync(domain, RICH_DOMAIN);
  writeFileSync(problem, RICH_PROBLEM);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("mfr-coordinator import-pddl", () => {
  it("prints the Turtle on stdout and a one-line summary and the notes on stderr", async () => {
    const run = await runCli(["import-pddl", domain, problem]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe((importPddl(RICH_DOMAIN, RICH_PROBLEM) as { turtle: string }).turtle);
    const model = readFormalModel(new Parser().parse(run.stdout));
    expect(model.objects).toHaveLength(7);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe("mfr-coordinator: imported problem deliver-2 of domain courier: 7 objects, 5 actions, 9 facts, 2 goals, 2 constraints, 2 notes");
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^mfr-coordinator: note: action wait /), expect.stringMatching(/^mfr-coordinator: note: metric: minimize \(total-cost\)/)]);
  });

  it("writes --out FILE and leaves stdout empty", async () => {
    const out = join(dir, "out.ttl");
    const folder = join(IPC_DIR, "ipc-2000-logistics-strips-typed");
    const run = await runCli(["import-pddl", join(folder, "domain.pddl"), join(folder, "instances", "instance-1.pddl"), "--out", out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^mfr-coordinator: imported problem \S+ of domain logistics to .*out\.ttl: \d+ objects, 6 actions, \d+ facts, \d+ goals, 0 constraints, 0 notes\n$/);
    expect(readFormalModel(new Parser().parse(readFileSync(out, "utf8"))).actions.map((a) => a.name)).toContain("drive-truck");
  });

  it("refuses with the file, line and column, exit code 1", async () => {
    const durative = join(dir, "durative.pddl");
    writeFileSync(durative, "(define (domain courier)\n  (:predicates (p))\n    (:durative-action fly :parameters ()))\n");
    const run = await runCli(["import-pddl", durative, problem]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`${durative}:3:5: :durative-action is not supported (durative actions have no place in the formal-model conventions)\n`);
  });

  it("names the problem file when the problem is refused", async () => {
    const other = join(dir, "other.pddl");
    writeFileSync(other, "(define (problem x) (:domain elsewhere) (:objects) (:init) (:goal (and)))");
    const run = await runCli(["import-pddl", domain, other]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^${other.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:1:30: the problem is for domain elsewhere`));
  });

  it("says so when a file cannot be read, and when a file is missing from the command", async () => {
    const missing = await runCli(["import-pddl", join(dir, "nope.pddl"), problem]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^mfr-coordinator: ENOENT/);
    const usage = await runCli(["import-pddl", domain]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/import-pddl needs a domain and a problem file/);
  });
});
