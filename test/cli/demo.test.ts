import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

describe("npm run demo (the main job)", () => {
  it("runs a whole session on a throw-away Prosody, with a fix round, and exits 0", async () => {
    const run = await runCli(["demo"], { MFR_DEMO_NO_INSTALL: "1" }, 60_000);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toContain("--- room transcript");
    expect(out).toMatch(/\[ModelContributionRequest\]/);
    expect(out).toMatch(/the model has 1 violation; fix round 1 of 2: 1 agent asked to fix/);
    // The fix-round request needs no line of its own: the validation result announced it.
    expect(out).toMatch(/Coordinator {4}\[ModelContributionRequest\]/);
    expect(out).toMatch(/\[SolutionRequest\]/);
    expect(out).toMatch(/Final summary \(solved\):\nSession \S+ solved after/);
    expect(out).toContain("Best solution, from modeler");
  });
});
