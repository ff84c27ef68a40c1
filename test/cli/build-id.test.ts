/**
 * The build id (src/base/build-info.ts): `npm run build` stamps dist/build-info.json with the git
 * commit of a checkout, and the compiled CLI names its build by it (`version`'s second line),
 * as the store records it with what the build wrote.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildIdOf, type BuildInfo } from "../../src/base/build-info.js";
import { REPO_ROOT, runCli } from "../support/cli.js";

describe("the build id", () => {
  const stamp = JSON.parse(readFileSync(join(REPO_ROOT, "dist", "build-info.json"), "utf8")) as BuildInfo;
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };

  it("is stamped with the checkout's commit when the sources are a git checkout", () => {
    expect(stamp.version).toBe(pkg.version);
    const git = (...args: string[]) => spawnSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" });
    // Built from a tarball or a copy without git, the stamp has no commit; in a checkout it is
    // HEAD's, or an earlier commit's when dist/ was built before the last commits.
    if (git("rev-parse", "--short", "HEAD").status !== 0) return expect(stamp.commit).toBeUndefined();
    expect(stamp.commit).toMatch(/^[0-9a-f]{4,40}$/);
    expect(git("merge-base", "--is-ancestor", stamp.commit!, "HEAD").status).toBe(0);
  });

  it("is what the compiled CLI says it is: the version alone on the first line, the build on the second", async () => {
    const run = await runCli(["version"]);
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toEqual([pkg.version, `build ${buildIdOf(stamp)}`, ""]);
    expect(buildIdOf(stamp)).toMatch(/^\d+\.\d+\.\d+(\+[0-9a-f]{4,40}(\.dirty)?| \(built .+\))$/);
  });
});
