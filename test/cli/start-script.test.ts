import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli.js";

/**
 * `npm start` in a copy of the package (package.json and scripts/ only) whose TypeScript
 * compiler is a stand-in that leaves a mark: starting must never compile, and a missing or
 * stale dist/ must be one line and exit code 1.
 */
let pkg: string;
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

function npmStart(args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["start", "--silent", "--", ...args], {
      cwd: pkg,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Our own lines on stderr (npm adds its own about the failed script, which we do not control). */
function ourLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l.startsWith("mfr-coordinator:"));
}

function writeDist(version: string | undefined): void {
  mkdirSync(join(pkg, "dist", "src"), { recursive: true });
  writeFileSync(join(pkg, "dist", "src", "cli.js"), 'process.stdout.write(`started ${process.argv.slice(2).join(" ")}\\n`);\n');
  if (version !== undefined) writeFileSync(join(pkg, "dist", "build-info.json"), JSON.stringify({ version }));
}

const compiled = (): boolean => existsSync(join(pkg, "tsc-was-run"));

beforeEach(() => {
  pkg = mkdtempSync(join(tmpdir(), "mfr-start-"));
  cpSync(join(REPO_ROOT, "package.json"), join(pkg, "package.json"));
  cpSync(join(REPO_ROOT, "scripts"), join(pkg, "scripts"), { recursive: true });
  const tscDir = join(pkg, "node_modules", "typescript", "bin");
  mkdirSync(tscDir, { recursive: true });
  writeFileSync(join(tscDir, "tsc"), `require("node:fs").writeFileSync(${JSON.stringify(join(pkg, "tsc-was-run"))}, "");\n`);
  writeFileSync(join(pkg, "node_modules", "typescript", "package.json"), '{"name":"typescript","type":"commonjs"}');
});

describe("npm start runs the built files and never compiles", () => {
  it("says in one line that dist/ is missing, exits 1, and does not compile", async () => {
    const run = await npmStart();
    expect(run.code).toBe(1);
    expect(ourLines(run.stderr)).toEqual(["mfr-coordinator: dist/ is missing: run `npm run build` (or `npm ci`, which builds)"]);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(compiled()).toBe(false);
  }, 30_000);

  it("refuses a dist/ built for another version of the package, in one line", async () => {
    writeDist("0.0.1-old");
    const run = await npmStart();
    expect(run.code).toBe(1);
    expect(ourLines(run.stderr)).toEqual([`mfr-coordinator: dist/ was built for version 0.0.1-old, the package is ${VERSION}: run \`npm run build\` (or \`npm ci\`, which builds)`]);
    expect(compiled()).toBe(false);
  }, 30_000);

  it("refuses a dist/ without a build stamp", async () => {
    writeDist(undefined);
    const run = await npmStart();
    expect(run.code).toBe(1);
    expect(ourLines(run.stderr)).toHaveLength(1);
    expect(ourLines(run.stderr)[0]).toContain("dist/build-info.json");
  }, 30_000);

  it("starts the built CLI with the start command and the given arguments, without compiling", async () => {
    writeDist(VERSION);
    const run = await npmStart(["--profile", "p.ttl"]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("started start --profile p.ttl");
    expect(compiled()).toBe(false);
  }, 30_000);

  it("has no prestart hook that could compile", () => {
    const scripts = (JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.prestart).toBeUndefined();
    // exec: the shell npm runs the script in becomes the coordinator, so the signals npm passes on reach it.
    expect(scripts.start).toBe("exec node scripts/start.mjs start");
  });

  it("passes SIGTERM on to the coordinator and exits with its code, leaving nothing behind", async () => {
    mkdirSync(join(pkg, "dist", "src"), { recursive: true });
    // A stand-in coordinator: says its pid, and on SIGTERM exits 3 (a code npm must hand back).
    writeFileSync(join(pkg, "dist", "src", "cli.js"), 'process.on("SIGTERM", () => process.exit(3));\nprocess.stdout.write(`pid ${process.pid}\\n`);\nsetInterval(() => undefined, 1000);\n');
    writeFileSync(join(pkg, "dist", "build-info.json"), JSON.stringify({ version: VERSION }));
    const npm = spawn("npm", ["start", "--silent"], { cwd: pkg, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" }, stdio: ["ignore", "pipe", "pipe"] });
    const pid = await new Promise<number>((resolve) => {
      let out = "";
      npm.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /pid (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
    });
    const exited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)));
    npm.kill("SIGTERM");
    expect(await exited).toBe(3);
    const alive = (() => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    })();
    expect(alive).toBe(false);
  }, 30_000);
});

describe("the prepare hook (runs on npm ci) without development dependencies", () => {
  it("skips the build with a note and succeeds when TypeScript is absent", async () => {
    const { rmSync } = await import("node:fs");
    rmSync(join(pkg, "node_modules"), { recursive: true });
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ["scripts/build.mjs", "--optional"], { cwd: pkg, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("exit", (code) => resolve({ code, stderr }));
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("build: skipped, TypeScript is not installed");
  });
});
