import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../support/cli.js";
import { maskedTranscript, transcriptDifferences } from "../support/transcript.js";

const PDDL = join(REPO_ROOT, "test", "fixtures", "pddl");
/** The demo's session as a person sees the room, reviewed (see the test). */
const DEMO_TRANSCRIPT = join(REPO_ROOT, "test", "fixtures", "transcripts", "demo.txt");

/** The transcript block under the README's "What a session looks like". */
function readmeTranscript(): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## What a session looks like"));
  const start = section.indexOf("```\n") + 4;
  return section.slice(start, section.indexOf("```", start));
}

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
    // The room as alice sees it, line by line, against the reviewed transcript: a change of
    // wording is a change to test/fixtures/transcripts/demo.txt, reviewed in its diff
    // (MFR_UPDATE_TRANSCRIPT=1 writes it from this run). Ids and times are masked.
    const transcript = maskedTranscript(out);
    if (process.env.MFR_UPDATE_TRANSCRIPT === "1") writeFileSync(DEMO_TRANSCRIPT, `${transcript.join("\n")}\n`);
    const expected = readFileSync(DEMO_TRANSCRIPT, "utf8").trimEnd().split("\n");
    expect(transcriptDifferences(transcript, expected)).toEqual([]);
    // The README shows the same session.
    expect(transcriptDifferences(maskedTranscript(readmeTranscript()), expected)).toEqual([]);
    // Every line of the coordinator's in the room follows the one rule: marked, unless it asks agents to work.
    for (const line of transcript.filter((l) => l.startsWith("Coordinator  "))) {
      const text = line.slice("Coordinator  ".length);
      const asks = /\[(ModelContributionRequest|SolutionRequest|subject)\]$/.test(text) || text.startsWith(" ");
      expect(text.startsWith("[MFR] "), line).toBe(!asks);
    }
    expect(out).toMatch(/Final summary \(solved\):\nSession \S+ solved after/);
  });

  it("refuses a PDDL pair outside the subset with its FILE:LINE:COL line and exit 2, before starting anything", async () => {
    const domain = join(PDDL, "durative-domain.pddl");
    const run = await runCli(["demo", "--pddl", domain, join(PDDL, "durative-problem.pddl")], { MFR_DEMO_NO_INSTALL: "1" });
    expect(run.code).toBe(2);
    expect(run.stderr.startsWith(`${domain}:`)).toBe(true);
    expect(run.stderr).toMatch(/^\S+:\d+:\d+: \S.*\n$/);
    expect(run.stdout).not.toContain("Prosody");
  });

  // Waits for the PDDL importer (src/planning/pddl-import): until it lands, the pair is refused at start.
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
