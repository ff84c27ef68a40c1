/**
 * The settings of several instances on one database: off without a database URL; the URL
 * from mfr:database or MFR_DATABASE_URL, its password from the URL or the secrets file and
 * never shown; the further rooms, the most rooms per instance, the instance's name and the
 * lease timing; bad values are one-line configuration errors. And the room units made from
 * them: the primary unit with its log and phase rooms first, each further room a unit of
 * its own, a resource per instance and unit, the direct line on the primary unit only.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { describeConfig, loadConfig, type Environment } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import { roomUnitsOf } from "../../src/fleet/room-units.js";
import { configErrorOf, writeConfigProfile } from "../support/config-profile.js";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mfr-shared-config-"));
});

function profile(mfrLines = "", agentLines = ""): string {
  return writeConfigProfile(dir, `agent:roomJid "mfr@conference.example" ; ${agentLines}`, mfrLines);
}

function load(path: string, env: Environment = {}): Config {
  return loadConfig({ profile: path }, { XMPP_PASSWORD: "pw", ...env }, dir);
}

/** The one-line message loading fails with. */
function failure(path: string, env: Environment = {}): string {
  return configErrorOf(() => load(path, env));
}

describe("the shared-store settings", () => {
  it("are off without a database, with the shipped lease timing", () => {
    expect(load(profile()).shared).toEqual({ database: null, maxRoomsPerInstance: null, rooms: [], instanceId: null, leaseMs: 6000, renewMs: 2000, marginMs: 1000 });
  });

  it("come from the profile, and the environment wins", () => {
    const path = profile(`mfr:database "postgres://mfr@db.example/mfr" ; mfr:maxRoomsPerInstance 2 ; mfr:rooms "a@conference.example", "b@conference.example" ;`);
    expect(load(path).shared).toMatchObject({ database: "postgres://mfr@db.example/mfr", maxRoomsPerInstance: 2, rooms: ["a@conference.example", "b@conference.example"] });
    const fromEnv = load(path, {
      MFR_DATABASE_URL: "postgres://other@db2.example/x",
      MFR_MAX_ROOMS_PER_INSTANCE: "1",
      MFR_ROOMS: "c@conference.example, d@conference.example",
      MFR_INSTANCE_ID: "node-a",
      MFR_LEASE_MS: "3000",
      MFR_LEASE_RENEW_MS: "1000",
      MFR_LEASE_MARGIN_MS: "500",
    }).shared;
    expect(fromEnv).toEqual({ database: "postgres://other@db2.example/x", maxRoomsPerInstance: 1, rooms: ["c@conference.example", "d@conference.example"], instanceId: "node-a", leaseMs: 3000, renewMs: 1000, marginMs: 500 });
  });

  it("take the database password from the secrets file when the URL has none, and never show it", () => {
    const secrets = join(dir, "secrets-db.json");
    writeFileSync(secrets, JSON.stringify({ xmpp: { coordinator: "xmpp-pw" }, database: { password: "s3cret/db" } }));
    const config = loadConfig({ profile: profile(`mfr:database "postgres://mfr@db.example:5432/mfr" ;`), secrets }, {}, dir);
    expect(new URL(config.shared.database ?? "").password).toBe(encodeURIComponent("s3cret/db"));
    const described = JSON.stringify(describeConfig(config));
    expect(described).not.toContain("s3cret");
    expect(described).toContain("postgres://mfr:***@db.example:5432/mfr");
    // The URL's own password wins.
    const own = loadConfig({ profile: profile(`mfr:database "postgres://mfr:inline@db.example/mfr" ;`), secrets }, {}, dir);
    expect(new URL(own.shared.database ?? "").password).toBe("inline");
  });

  it("refuse what is not a postgres URL, a bad instance name, a renewal too slow for the lease or a lease too short for a write, in one line", () => {
    expect(failure(profile(), { MFR_DATABASE_URL: "mysql://db/x" })).toMatch(/MFR_DATABASE_URL|database.*postgres:\/\//);
    expect(failure(profile(), { MFR_DATABASE_URL: "postgres://db/x", MFR_INSTANCE_ID: "a b" })).toMatch(/instanceId|MFR_INSTANCE_ID/);
    expect(failure(profile(), { MFR_DATABASE_URL: "postgres://db/x", MFR_LEASE_MS: "3000", MFR_LEASE_RENEW_MS: "2600" })).toMatch(/renewal period shorter than the lease/);
    // Lease − margin − renewal is how long a write may stand idle in its transaction: at least a second.
    expect(failure(profile(), { MFR_DATABASE_URL: "postgres://db/x", MFR_LEASE_MS: "3000", MFR_LEASE_RENEW_MS: "1500", MFR_LEASE_MARGIN_MS: "600" })).toMatch(/at least 1000 ms longer than its margin plus one renewal period/);
    expect(load(profile(), { MFR_DATABASE_URL: "postgres://db/x", MFR_LEASE_MS: "3000", MFR_LEASE_RENEW_MS: "1500", MFR_LEASE_MARGIN_MS: "500" }).shared.leaseMs).toBe(3000);
    expect(failure(profile(), { MFR_ROOMS: "not a jid" })).toMatch(/bare JID/);
    // A password in a bad URL is not echoed.
    expect(failure(profile(), { MFR_DATABASE_URL: "mysql://u:topsecret@db/x" })).not.toContain("topsecret");
  });
});

describe("room units", () => {
  it("put the primary room with its log and phase rooms first, then each further room alone", () => {
    const config = load(
      profile(`mfr:rooms "b@conference.example", "mfr@conference.example", "c@conference.example" ;`, `agent:logRoomJid "log@conference.example" ; agent:mfrRooms [ mfr:reasonRoom "reason@conference.example" ] ;`),
      { MFR_DATABASE_URL: "postgres://db/x" },
    );
    const units = roomUnitsOf(config, "node-a");
    expect(units.map((u) => [u.key, u.rooms])).toEqual([
      ["mfr@conference.example", ["mfr@conference.example", "log@conference.example", "reason@conference.example"]],
      ["b@conference.example", ["b@conference.example"]],
      ["c@conference.example", ["c@conference.example"]],
    ]);
    expect(units.map((u) => u.config.xmpp.resource)).toEqual(["coordinator-node-a-0", "coordinator-node-a-1", "coordinator-node-a-2"]);
    // 1:1 chat reaches one instance: the primary unit's owner's direct line.
    expect(units.map((u) => u.config.xmpp.directLine)).toEqual([true, false, false]);
    expect(units[1]?.config).toMatchObject({ room: "b@conference.example", logRoom: null, phaseRooms: { construct: null, validate: null, reason: null } });
    // The instance serves the web endpoints, not each unit.
    expect(units.every((u) => u.config.http.port === null)).toBe(true);
  });
});
