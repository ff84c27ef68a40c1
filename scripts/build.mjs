#!/usr/bin/env node
// Compiles the TypeScript sources into dist/ and stamps dist/build-info.json with the
// package version, which `npm start` (scripts/start.mjs) compares before it starts, the
// build time and, in a git checkout, the commit (short hash, and whether tracked files
// differ from it): the build id every sent record carries (src/base/build-info.ts).
//
//   node scripts/build.mjs            compile; fail when TypeScript is not installed
//   node scripts/build.mjs --optional compile when TypeScript is installed, otherwise
//                                     say so and succeed (the `prepare` hook: it runs on
//                                     `npm ci --omit=dev` too, where there is no compiler)
//
// Plain Node with no dependencies, because it runs before any are installed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const optional = process.argv.includes("--optional");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

if (!existsSync(tsc)) {
  if (optional) {
    console.error("build: skipped, TypeScript is not installed (development dependencies omitted); start uses dist/ as it is");
    process.exit(0);
  }
  console.error("build: TypeScript is not installed: run `npm ci` (with development dependencies) first");
  process.exit(1);
}

const r = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
if (r.status !== 0) {
  console.error(`build: tsc failed (exit ${r.status ?? r.signal})`);
  process.exit(r.status ?? 1);
}

/** The checkout's commit, when the sources are a git checkout and git is there; otherwise nothing. */
function gitCommit() {
  const git = (...args) => spawnSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const head = git("rev-parse", "--short", "HEAD");
  const commit = head.status === 0 ? head.stdout.trim() : "";
  if (!/^[0-9a-f]{4,40}$/.test(commit)) return {};
  // Tracked files edited since the commit: the build is not the commit's (untracked scratch files do not count).
  const status = git("status", "--porcelain", "--untracked-files=no");
  return status.status === 0 && status.stdout.trim() !== "" ? { commit, dirty: true } : { commit };
}

const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
mkdirSync(join(root, "dist"), { recursive: true });
writeFileSync(join(root, "dist", "build-info.json"), `${JSON.stringify({ version, builtAt: new Date().toISOString(), ...gitCommit() })}\n`);
