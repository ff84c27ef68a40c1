#!/usr/bin/env node
// Compiles the TypeScript sources into dist/ and stamps dist/build-info.json with the
// package version, which `npm start` (scripts/start.mjs) compares before it starts.
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

const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
mkdirSync(join(root, "dist"), { recursive: true });
writeFileSync(join(root, "dist", "build-info.json"), `${JSON.stringify({ version, builtAt: new Date().toISOString() })}\n`);
