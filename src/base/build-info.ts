/**
 * Which build of the coordinator is running: its build id, the name every record it writes
 * to the store carries (which build sent a stanza, which logged an input), so `verify` can
 * tell an operator that a message differs because an earlier build worded it otherwise.
 *
 * `npm run build` (scripts/build.mjs) stamps dist/build-info.json with the package version,
 * the build time and, in a git checkout, the commit; the id reads `0.1.0+813572e` (with
 * `.dirty` when tracked files differed from that commit), or `0.1.0 (built 2026-11-29T02:19Z)`
 * without git. The sources run directly (the tests) have no stamp: `0.1.0 (from source)`.
 */
import { readFileSync } from "node:fs";

/** What dist/build-info.json holds. */
export interface BuildInfo {
  version: string;
  /** ISO 8601, when the build ran. */
  builtAt?: string;
  /** The git commit built (short hash), when the sources were a git checkout. */
  commit?: string;
  /** Tracked files differed from `commit` when it was built. */
  dirty?: boolean;
}

/** The build id of a stamp: `version+commit` where the commit is known, else the version and when it was built. */
export function buildIdOf(info: BuildInfo): string {
  if (info.commit) return `${info.version}+${info.commit}${info.dirty ? ".dirty" : ""}`;
  if (info.builtAt) return `${info.version} (built ${info.builtAt.replace(/:\d\d(\.\d+)?Z$/, "Z")})`;
  return `${info.version} (from source)`;
}

let running: string | undefined;

/** The running build's id, read once: from the stamp beside the compiled files, or the package version when run from source. */
export function runningBuildId(): string {
  running ??= buildIdOf(readStamp() ?? { version: packageVersion() });
  return running;
}

/** dist/build-info.json as seen from dist/src/base/build-info.js; undefined from the sources (src/base/build-info.ts) or when unreadable. */
function readStamp(): BuildInfo | undefined {
  const stamp = readJson(new URL("../../build-info.json", import.meta.url));
  return stamp && typeof stamp.version === "string" ? (stamp as unknown as BuildInfo) : undefined;
}

/** The package's version: package.json is two levels up from src/base/, three from dist/src/base/. */
function packageVersion(): string {
  for (const up of ["../../package.json", "../../../package.json"]) {
    const pkg = readJson(new URL(up, import.meta.url));
    if (pkg?.name === "mfr-coordinator" && typeof pkg.version === "string") return pkg.version;
  }
  return "unknown";
}

function readJson(url: URL): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(url, "utf8"));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
