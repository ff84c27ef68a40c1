#!/usr/bin/env node
// Makes a fresh clone runnable for `npm run demo` and `npm test`: installs dependencies
// when node_modules is missing or older than the lock file, then compiles (scripts/build.mjs).
// `npm start` never runs this: it starts from dist/ as built (scripts/start.mjs).
// Plain Node with no dependencies, because it runs before any are installed.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env });
  if (r.status !== 0) {
    console.error(`prepare: '${cmd} ${args.join(" ")}' failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

const marker = join(root, "node_modules", ".package-lock.json");
const lock = join(root, "package-lock.json");
if (!existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs)) {
  console.error("prepare: installing dependencies (npm ci)…");
  // npm ci compiles through the `prepare` hook, so there is nothing left to build.
  run(npm, ["ci", "--no-audit", "--no-fund"]);
} else {
  run(process.execPath, [join(root, "scripts", "build.mjs")]);
}
