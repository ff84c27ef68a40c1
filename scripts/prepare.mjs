#!/usr/bin/env node
// Makes a fresh clone runnable: installs dependencies when node_modules is missing or
// older than the lock file, then compiles TypeScript. Plain Node with no dependencies,
// because it runs before any are installed.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`prepare: '${cmd} ${args.join(" ")}' failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

const marker = join(root, "node_modules", ".package-lock.json");
const lock = join(root, "package-lock.json");
if (!existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs)) {
  console.error("prepare: installing dependencies (npm ci)…");
  run(npm, ["ci", "--no-audit", "--no-fund"]);
}
run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"]);
