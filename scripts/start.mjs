#!/usr/bin/env node
// `npm start`: runs the built CLI from dist/ without compiling anything, so a start takes
// no compiler and works after `npm ci --omit=dev`. When dist/ is missing or was built for
// another version of the package, it says so in one line and exits 1 instead of failing
// later with a stack trace from a half-present build.
//
// Plain Node with no dependencies: it must run where only the production ones are.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist", "src", "cli.js");
const buildInfo = join(root, "dist", "build-info.json");
const HOW = "run `npm run build` (or `npm ci`, which builds)";

function stop(line) {
  process.stderr.write(`mfr-coordinator: ${line}\n`);
  process.exit(1);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

if (!existsSync(cli)) stop(`dist/ is missing: ${HOW}`);
const { version } = readJson(join(root, "package.json")) ?? {};
const built = readJson(buildInfo)?.version;
if (built === undefined) stop(`dist/ has no build stamp (dist/build-info.json), so it may be stale: ${HOW}`);
if (built !== version) stop(`dist/ was built for version ${built}, the package is ${version}: ${HOW}`);

// The CLI reads process.argv itself; the arguments given to this script are its arguments.
await import(pathToFileURL(cli).href);
