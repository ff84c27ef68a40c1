/**
 * `mfr-coordinator solver --pddl DOMAIN PROBLEM` at start: the pair is read and imported before
 * anything connects, and a construct outside the subset ends the start with its
 * FILE:LINE:COL line alone and exit code 2. The example agent's program does the same.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../support/cli.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "pddl");
const DURATIVE = [join(FIXTURES, "durative-domain.pddl"), join(FIXTURES, "durative-problem.pddl")];
/** FILE:LINE:COL: message, the file as given. */
const REFUSAL = new RegExp(`^${DURATIVE[0]?.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+:\\d+: \\S.*\\n$`);

function runExampleAgent(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "dist", "examples", "agents", "run-example-agent.js"), ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

describe("--pddl at start", () => {
  it("the solver refuses a durative domain with the FILE:LINE:COL line and exit 2, before reading its profile", async () => {
    // No profile or secrets exist here: the refusal must come first.
    const run = await runCli(["solver", "--pddl", ...DURATIVE, "--profile", "/nonexistent.ttl"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(REFUSAL);
  });

  it("the solver names a file it cannot read, and wants exactly two files", async () => {
    const missing = await runCli(["solver", "--pddl", "/nonexistent/domain.pddl", DURATIVE[1] as string]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("/nonexistent/domain.pddl: cannot be read (ENOENT)\n");
    const one = await runCli(["solver", "--pddl", DURATIVE[0] as string]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain("--pddl takes two files: DOMAIN PROBLEM");
  });

  it("the example agent's program refuses the same way", async () => {
    const env = { XMPP_SERVICE: "xmpp://127.0.0.1:1", XMPP_DOMAIN: "localhost", XMPP_USERNAME: "m", XMPP_PASSWORD: "pw", MFR_ROOM: "mfr@conference.localhost" };
    const run = await runExampleAgent(["--pddl", ...DURATIVE], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(REFUSAL);
  });
});
