import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../support/cli.js";

const PDDL = join(REPO_ROOT, "test", "fixtures", "pddl");

describe("npm run demo (the main job)", () => {
  it("runs a whole session on a throw-away Prosody: a fix round, an invalid plan caught and repaired, a valid plan first; exits 0", async () => {
    const run = await runCli(["demo"], { MFR_DEMO_NO_INSTALL: "1" }, 90_000);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toContain("--- room transcript");
    // The web view comes up on loopback; without a terminal the demo does not wait for Enter.
    expect(out).toMatch(/demo: the web view is at http:\/\/127\.0\.0\.1:\d+\//);
    expect(out).not.toContain("press Enter");
    // The room the coordinator created has its subject, which alice is given at her join.
    expect(out).toMatch(/Coordinator {2}Model-First Reasoning sessions with Coordinator\. Say "help" for the commands\. {2}\[subject\]/);
    expect(out).toMatch(/\[ModelContributionRequest\]/);
    expect(out).toMatch(/the model has 1 violation; fix round 1 follows/);
    // The fix-round request has a line of its own, which opens the round (client libraries hand a bot only messages with a body).
    expect(out).toMatch(/Coordinator {2}Session \S+: fix round 1 of 2: 1 agent asked to fix the model, open for 15 s\. {2}\[ModelContributionRequest\]/);
    expect(out).toMatch(/\[SolutionRequest\]/);
    // The reference solver takes part and finds a shortest plan.
    expect(out).toMatch(/Solver {7}Solution proposal for \S+: A plan of 9 steps \(no shorter one exists\), found by greedy best-first search with the FF heuristic in [0-9.]+ s and checked against the model/);
    // The planner's one-trip plan is caught by the check, and it is asked to repair it.
    expect(out).toMatch(/1 plan failed the check \(invalid at step 3: \(< \(load truck1\) \(capacity truck1\)\) is false\); a valid plan is already in\. Repair round 1 of 2/);
    expect(out).toMatch(/planner {6}Solution proposal for \S+: Two trips/);
    // The modeller has no plan to propose, and says nothing: the two proposers are the planner and the solver.
    expect(out).not.toMatch(/modeler {6}Solution proposal/);
    expect(out).toMatch(/\(2 proposals in all\)/);
    expect(out).toMatch(/Final summary \(solved\):\nSession \S+ solved after/);
    // The room's last line is the SessionComplete's own body.
    expect(out).toMatch(/Coordinator {2}\[MFR\] Session \S+ solved after [^\n]*\[SessionComplete\]/);
    expect(out).toContain("Best solution, from planner: Two trips");
    expect(out).toMatch(/Verdicts:\n {2}planner: valid, 9 steps\n {2}Solver: valid, 9 steps/);
  });

  it("refuses a PDDL pair outside the subset with its FILE:LINE:COL line and exit 2, before starting anything", async () => {
    const domain = join(PDDL, "durative-domain.pddl");
    const run = await runCli(["demo", "--pddl", domain, join(PDDL, "durative-problem.pddl")], { MFR_DEMO_NO_INSTALL: "1" });
    expect(run.code).toBe(2);
    expect(run.stderr.startsWith(`${domain}:`)).toBe(true);
    expect(run.stderr).toMatch(/^\S+:\d+:\d+: \S.*\n$/);
    expect(run.stdout).not.toContain("Prosody");
  });

  // Waits for the PDDL importer (src/pddl): until it lands, the pair is refused at start.
  it("with --pddl, the example modeller contributes the pair's model and the solver's shortest plan solves it", async () => {
    const run = await runCli(["demo", "--pddl", join(PDDL, "blocksworld-domain.pddl"), join(PDDL, "blocksworld-problem.pddl")], { MFR_DEMO_NO_INSTALL: "1" }, 90_000);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("mfr-start Solve the PDDL problem three-blocks of the domain blocksworld.");
    expect(run.stdout).toMatch(/modeler {6}Model contribution for \S+/);
    expect(run.stdout).not.toMatch(/planner {6}/);
    expect(run.stdout).toMatch(/Solver {7}Solution proposal for \S+: A plan of 6 steps \(no shorter one exists\)/);
    expect(run.stdout).toMatch(/Final summary \(solved\):/);
  });
});
