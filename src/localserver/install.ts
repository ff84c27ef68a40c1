/**
 * Makes sure Prosody is installed: finds it, or (only when allowed, running as root with
 * apt-get available) installs the Debian package, or fails with the one command to run.
 */
import { spawn } from "node:child_process";
import { findOnPath, locateProsody, type ProsodyCommands } from "./locate.js";

/** The one command a person runs to install Prosody. */
export const PROSODY_INSTALL_COMMAND = "sudo apt-get install -y prosody";

export class ProsodyNotInstalledError extends Error {
  readonly code = "PROSODY_NOT_INSTALLED";
  readonly installCommand = PROSODY_INSTALL_COMMAND;
  constructor(detail?: string) {
    super(
      `Prosody (the XMPP server) is not installed: 'prosody' and 'prosodyctl' are not on PATH. ` +
        `Install it with: ${PROSODY_INSTALL_COMMAND}` +
        (detail ? ` (${detail})` : ""),
    );
    this.name = "ProsodyNotInstalledError";
  }
}

export interface EnsureProsodyOptions {
  /** Install with apt-get when missing (only happens as root with apt-get on PATH). */
  allowInstall?: boolean;
  /** Receives progress lines, including apt-get's output. */
  log?: (line: string) => void;
  /** Environment to search (PATH); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** Resolves with the Prosody commands, installing the package first if allowed and needed. */
export async function ensureProsody(opts: EnsureProsodyOptions = {}): Promise<ProsodyCommands> {
  const env = opts.env ?? process.env;
  const found = locateProsody(env);
  if (found) return found;
  if (!opts.allowInstall) throw new ProsodyNotInstalledError();

  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const aptGet = findOnPath("apt-get", env);
  if (!isRoot) throw new ProsodyNotInstalledError("automatic install needs root");
  if (!aptGet) throw new ProsodyNotInstalledError("automatic install needs apt-get");

  const log = opts.log ?? (() => undefined);
  log("Prosody is not installed; installing it with apt-get (about 10 s)…");
  await run(aptGet, ["update"], env, log);
  await run(aptGet, ["install", "-y", "prosody"], { ...env, DEBIAN_FRONTEND: "noninteractive" }, log);

  const installed = locateProsody(env);
  if (!installed) throw new ProsodyNotInstalledError("apt-get finished but prosody is still not on PATH");
  log(`Prosody installed: ${installed.prosody}`);
  return installed;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const onData = (chunk: Buffer): void => {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim()) log(line);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (err) => reject(new ProsodyNotInstalledError(`'${cmd} ${args.join(" ")}' failed: ${err.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new ProsodyNotInstalledError(`'${cmd} ${args.join(" ")}' exited with ${code ?? signal}`));
    });
  });
}
