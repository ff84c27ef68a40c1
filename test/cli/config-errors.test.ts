import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../support/cli.js";

const GOOD_PROFILE = readFileSync(join(REPO_ROOT, "config/agents/coordinator.ttl"), "utf8");
let dir: string;
let secrets: string;

function profileWith(name: string, edit: (text: string) => string): string {
  const path = join(dir, name);
  writeFileSync(path, edit(GOOD_PROFILE));
  return path;
}

/** One line on stderr, exit code 2, no stack trace. */
function expectOneLine(run: { code: number | null; stderr: string }, ...fragments: string[]): void {
  expect(run.code).toBe(2);
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines, run.stderr).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  for (const f of fragments) expect(lines[0]).toContain(f);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mfr-config-"));
  secrets = join(dir, "secrets.json");
  writeFileSync(secrets, JSON.stringify({ xmpp: { coordinator: "pw" } }));
});

describe("configuration errors: one line naming the source and field, exit 2", () => {
  it("accepts the shipped profile and masks the password", async () => {
    const run = await runCli(["check-config", "--secrets", secrets]);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { xmpp: { password: string }; room: string; mfr: { contributionTimeoutMs: number } };
    expect(printed.xmpp.password).toBe("********");
    expect(run.stdout).not.toContain('"pw"');
    expect(printed.room).toBe("mfr@conference.localhost");
    expect(printed.mfr.contributionTimeoutMs).toBe(30000);
  });

  it("check-config shows the phase rooms of agent:mfrRooms", async () => {
    const profile = profileWith("phase-rooms.ttl", (t) =>
      t.replace('agent:roomJid "mfr@conference.localhost" ;', 'agent:roomJid "mfr@conference.localhost" ;\n  agent:mfrRooms [ mfr:constructRoom "construct@conference.localhost" ; mfr:reasonRoom "reason@conference.localhost" ] ;'),
    );
    const run = await runCli(["check-config", "--profile", profile, "--secrets", secrets]);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { phaseRooms: unknown }).phaseRooms).toEqual({ construct: "construct@conference.localhost", validate: null, reason: "reason@conference.localhost" });
  });

  it("the example secrets file copied but not filled in is refused, at check-config and at start", async () => {
    const copied = join(dir, "copied-secrets.json");
    writeFileSync(copied, readFileSync(join(REPO_ROOT, "config/agents/secrets.example.json"), "utf8"));
    for (const command of ["check-config", "start"]) {
      expectOneLine(await runCli([command, "--secrets", copied]), copied, "xmpp.coordinator", 'is still the example\'s placeholder "change-me"');
    }
  });

  it("peer profiles are read from mfr:agentsDir only, never from the profile's own folder", async () => {
    // A copy of one's own profile beside it is not a peer agent.
    writeFileSync(join(dir, "copy-of-coordinator.ttl"), GOOD_PROFILE);
    const plain = profileWith("no-agents-dir.ttl", (t) => t);
    const without = await runCli(["check-config", "--profile", plain, "--secrets", secrets]);
    expect(without.code, without.stderr).toBe(0);
    expect((JSON.parse(without.stdout) as { agentsDir: unknown }).agentsDir).toBeNull();
    const withDir = profileWith("agents-dir.ttl", (t) => t.replace('mfr:shapesPath "shapes/mfr-shapes.ttl" ;', 'mfr:shapesPath "shapes/mfr-shapes.ttl" ; mfr:agentsDir "peers" ;'));
    const run = await runCli(["check-config", "--profile", withDir, "--secrets", secrets]);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { agentsDir: unknown }).agentsDir).toBe(join(dir, "peers"));
  });

  it("a typo in a property name suggests the right one", async () => {
    const profile = profileWith("typo.ttl", (t) => t.replace("agent:roomJid", "agent:roomJd"));
    expectOneLine(await runCli(["start", "--profile", profile, "--secrets", secrets]), profile, "agent:roomJd", "did you mean agent:roomJid?");
  });

  it("a missing room names the property", async () => {
    const profile = profileWith("noroom.ttl", (t) => t.replace(/agent:roomJid "[^"]*" ;/, ""));
    expectOneLine(await runCli(["start", "--profile", profile, "--secrets", secrets]), profile, "agent:roomJid", "is missing");
  });

  it("a room that is not a JID says what was expected and what was given", async () => {
    const profile = profileWith("badroom.ttl", (t) => t.replace("mfr@conference.localhost", "just-a-name"));
    expectOneLine(await runCli(["start", "--profile", profile, "--secrets", secrets]), profile, "agent:roomJid", "bare JID", '"just-a-name"');
  });

  it("a timeout that is not a number", async () => {
    const profile = profileWith("badtimeout.ttl", (t) => t.replace('"30000"^^xsd:integer', '"30s"'));
    expectOneLine(await runCli(["start", "--profile", profile, "--secrets", secrets]), profile, "mfr:contributionTimeout", "whole number", '"30s"');
  });

  it("a Turtle syntax error gives the line", async () => {
    const profile = profileWith("syntax.ttl", (t) => t.replace('foaf:nick "Coordinator" ;', 'foaf:nick "Coordinator ;'));
    expectOneLine(await runCli(["start", "--profile", profile, "--secrets", secrets]), profile, "line", "not valid Turtle");
  });

  it("a profile without an XMPP account", async () => {
    const profile = profileWith("noaccount.ttl", () => '@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n<#c> foaf:nick "C" .\n');
    expectOneLine(await runCli(["start", "--profile", profile, "--secrets", secrets]), profile, "agent:xmppAccount", "is missing");
  });

  it("a profile file that does not exist", async () => {
    expectOneLine(await runCli(["start", "--profile", join(dir, "nope.ttl"), "--secrets", secrets]), "--profile", "file not found");
  });

  it("a missing secrets file says how to fix it", async () => {
    const missing = join(dir, "no-secrets.json");
    expectOneLine(await runCli(["start", "--secrets", missing]), missing, "secrets.example.json", "XMPP_PASSWORD");
  });

  it("a secrets file without the profile's password key", async () => {
    const other = join(dir, "other-secrets.json");
    writeFileSync(other, JSON.stringify({ xmpp: { someoneelse: "x" } }));
    expectOneLine(await runCli(["start", "--secrets", other]), other, "xmpp.coordinator", "is missing");
  });

  it("a secrets file that is not JSON", async () => {
    const broken = join(dir, "broken.json");
    writeFileSync(broken, "{ xmpp: ");
    expectOneLine(await runCli(["start", "--secrets", broken]), broken, "not valid JSON");
  });

  it("an environment override is named as the source", async () => {
    expectOneLine(await runCli(["start", "--secrets", secrets], { MFR_ROOM: "not a jid" }), "MFR_ROOM", "bare JID");
    expectOneLine(await runCli(["start", "--secrets", secrets], { XMPP_SERVICE: "localhost:5222" }), "XMPP_SERVICE", "service URL");
    expectOneLine(await runCli(["start", "--secrets", secrets], { LOG_LEVEL: "loud" }), "LOG_LEVEL", "logLevel");
  });

  it("environment overrides the profile, and flags override the environment", async () => {
    const run = await runCli(["check-config", "--secrets", secrets, "--profile", join(REPO_ROOT, "config/agents/coordinator.ttl")], {
      MFR_ROOM: "other@conference.localhost",
      MFR_NICK: "Coord2",
      MFR_PROFILE: join(dir, "does-not-exist.ttl"),
      XMPP_PASSWORD: "from-env",
    });
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { room: string; nick: string; secretsPath: string | null };
    expect(printed.room).toBe("other@conference.localhost");
    expect(printed.nick).toBe("Coord2");
    // XMPP_PASSWORD makes the secrets file unnecessary.
    expect(printed.secretsPath).toBeNull();
    expect(run.stdout).not.toContain("from-env");
  });

  it("--data-dir wins over MFR_DATA_DIR and the profile", async () => {
    const flagDir = join(dir, "from-flag");
    const run = await runCli(["check-config", "--secrets", secrets, "--data-dir", flagDir], { MFR_DATA_DIR: join(dir, "from-env") });
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { dataDir: string }).dataDir).toBe(flagDir);
  });

  it("verify needs no password: it reads the store and never connects", async () => {
    const run = await runCli(["verify", "--data-dir", join(dir, "no-store-here")], { MFR_SECRETS: join(dir, "missing-secrets.json") });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no-store-here.*does not exist/);
    expect(run.stderr).not.toMatch(/secrets/);
  });

  it("an unknown command or flag is a usage error", async () => {
    const run = await runCli(["frobnicate"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown command "frobnicate"');
    expect((await runCli(["start", "--bogus"])).code).toBe(2);
  });
});
