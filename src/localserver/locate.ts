/**
 * Finds the Prosody executables on PATH. Never runs `prosody --version`: in 0.12 that
 * starts a full server on the system config.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

export interface ProsodyCommands {
  /** Absolute path of `prosody`. */
  prosody: string;
  /** Absolute path of `prosodyctl`. */
  prosodyctl: string;
}

/** The absolute path of executable `name` in `env.PATH`, or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here: try the next directory
    }
  }
  return undefined;
}

/** Both Prosody commands, or undefined when either is missing from PATH. */
export function locateProsody(env: NodeJS.ProcessEnv = process.env): ProsodyCommands | undefined {
  const prosody = findOnPath("prosody", env);
  const prosodyctl = findOnPath("prosodyctl", env);
  return prosody && prosodyctl ? { prosody, prosodyctl } : undefined;
}

/** The installed Debian package version (e.g. "0.12.3-1+deb12u1"), or undefined. */
export function installedProsodyVersion(): string | undefined {
  const r = spawnSync("dpkg-query", ["-W", "-f", "${Version}", "prosody"], { encoding: "utf8" });
  if (r.error || r.status !== 0) return undefined;
  const version = r.stdout.trim();
  return version || undefined;
}
