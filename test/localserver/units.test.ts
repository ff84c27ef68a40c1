import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ensureProsody,
  findOnPath,
  findRepoRoot,
  installedProsodyVersion,
  locateProsody,
  pickFreePort,
  PROSODY_INSTALL_COMMAND,
  ProsodyNotInstalledError,
  startLocalProsody,
} from "../../src/localserver/index.js";
import { startupVerdict } from "../../src/localserver/logfile.js";

const repo = findRepoRoot();

describe("repo root and config", () => {
  it("is found from the source tree and from the compiled dist tree", () => {
    expect(findRepoRoot(join(repo, "src", "localserver", "paths.ts"))).toBe(repo);
    expect(findRepoRoot(join(repo, "dist", "src", "localserver", "paths.js"))).toBe(repo);
  });

  it("throws when there is no prosody/local.cfg.lua above", () => {
    expect(() => findRepoRoot("/tmp/nowhere/x.js")).toThrow(/prosody\/local\.cfg\.lua/);
  });
});

describe("locating and installing Prosody", () => {
  it("finds executables on PATH only", () => {
    expect(findOnPath("sh", { PATH: "/usr/bin:/bin" })).toMatch(/\/sh$/);
    expect(findOnPath("sh", { PATH: "/nonexistent" })).toBeUndefined();
    expect(locateProsody({ PATH: "/nonexistent" })).toBeUndefined();
  });

  it("fails with the one install command when missing and install is not allowed", async () => {
    const err = await ensureProsody({ env: { PATH: "/nonexistent" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProsodyNotInstalledError);
    expect((err as Error).message).toContain(PROSODY_INSTALL_COMMAND);
    expect(PROSODY_INSTALL_COMMAND).toBe("sudo apt-get install -y prosody");
  });

  it("does not try to install without apt-get, and says so", async () => {
    const err = await ensureProsody({ allowInstall: true, env: { PATH: "/nonexistent" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProsodyNotInstalledError);
    expect((err as Error).message).toMatch(/needs (root|apt-get)/);
  });

  it("reads the package version without starting a server", () => {
    if (!locateProsody()) throw new Error(`Prosody is required for these tests: ${PROSODY_INSTALL_COMMAND}`);
    expect(installedProsodyVersion()).toMatch(/^\d+\.\d+/);
  });

  it("reports an executable that cannot run", async () => {
    const err = await startLocalProsody({
      commands: { prosody: "/nonexistent/prosody", prosodyctl: "/nonexistent/prosodyctl" },
      startTimeoutMs: 2000,
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/nonexistent\/prosody/);
  });
});

describe("ports", () => {
  it("picks a port that is free to listen on", async () => {
    const port = await pickFreePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    await new Promise((r) => server.close(r));
  });
});

describe("startup verdict from the log", () => {
  const log = (lines: string[]): string => lines.map((l) => `Nov 22 01:28:30 ${l}`).join("\n");

  it("recognises listening, pending and a failed bind (Prosody keeps running after one)", () => {
    expect(startupVerdict(log(["portmanager\tinfo\tActivated service 'c2s' on [127.0.0.1]:15299"]), "127.0.0.1", 15299))
      .toEqual({ state: "listening" });
    expect(startupVerdict(log(["startup\tinfo\tHello and welcome to Prosody version 0.12.3"]), "127.0.0.1", 15299))
      .toEqual({ state: "pending" });
    expect(
      startupVerdict(
        log(["portmanager\terror\tFailed to open server port 15298 on 127.0.0.1, this port is in use by another application"]),
        "127.0.0.1",
        15298,
      ).state,
    ).toBe("failed");
  });
});

describe("directories", () => {
  it("uses a given directory, creates its data dir, and keeps it after stop()", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mfr-prosody-given-"));
    try {
      const server = await startLocalProsody({ dir });
      expect(server.dir).toBe(dir);
      expect(server.logPath).toBe(join(dir, "prosody.log"));
      await server.stop();
      const { existsSync } = await import("node:fs");
      expect(existsSync(join(dir, "data"))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
