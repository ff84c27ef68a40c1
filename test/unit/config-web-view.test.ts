/**
 * The web view's settings: off unless a port is given (mfr:httpPort or MFR_HTTP_PORT), on
 * 127.0.0.1 unless told otherwise, a token from MFR_HTTP_TOKEN or the secrets file, and
 * no address beyond loopback without one (a one-line config error).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { describeConfig, loadConfig, type Environment } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import { configErrorOf, writeConfigProfile } from "../support/config-profile.js";

let dir: string;
const TOKEN = "a-web-view-token-0123456789";

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mfr-web-config-"));
});

function profile(mfrLines = ""): string {
  return writeConfigProfile(dir, `agent:roomJid "mfr@conference.example" ;`, mfrLines);
}

function load(path: string, env: Environment = {}, secrets?: string): Config {
  return loadConfig({ profile: path, ...(secrets ? { secrets } : {}) }, { XMPP_PASSWORD: "pw", ...env }, dir);
}

/** The one-line message loading fails with. */
function failure(path: string, env: Environment = {}): string {
  return configErrorOf(() => load(path, env));
}

describe("web view configuration", () => {
  it("is off by default and listens on 127.0.0.1 when a port is given", () => {
    expect(load(profile()).http).toEqual({ port: null, host: "127.0.0.1", token: null });
    expect(load(profile("mfr:httpPort 8080 ;")).http).toEqual({ port: 8080, host: "127.0.0.1", token: null });
    expect(load(profile("mfr:httpPort 8080 ;"), { MFR_HTTP_PORT: "9090" }).http.port).toBe(9090);
  });

  it("names a bad port by where it came from", () => {
    expect(failure(profile(), { MFR_HTTP_PORT: "eighty" })).toMatch(/MFR_HTTP_PORT/);
    expect(failure(profile("mfr:httpPort 70000 ;"))).toMatch(/mfr:httpPort.*65535/);
  });

  it("refuses an address beyond loopback without a token, in one line", () => {
    const message = failure(profile('mfr:httpPort 8080 ; mfr:httpHost "0.0.0.0" ;'));
    expect(message).toMatch(/mfr:httpHost/);
    expect(message).toMatch(/loopback/);
    expect(message).toMatch(/MFR_HTTP_TOKEN/);
    // A profile that leaves the web view off may name any address.
    expect(load(profile('mfr:httpHost "0.0.0.0" ;')).http.port).toBeNull();
  });

  it("takes the token from MFR_HTTP_TOKEN or the secrets file, and masks it when shown", () => {
    const open = load(profile('mfr:httpPort 8080 ; mfr:httpHost "0.0.0.0" ;'), { MFR_HTTP_TOKEN: TOKEN });
    expect(open.http).toEqual({ port: 8080, host: "0.0.0.0", token: TOKEN });
    expect(JSON.stringify(describeConfig(open))).not.toContain(TOKEN);
    const secrets = join(dir, "secrets.json");
    writeFileSync(secrets, JSON.stringify({ xmpp: { coordinator: "pw" }, http: { token: TOKEN } }));
    expect(load(profile("mfr:httpPort 8080 ;"), {}, secrets).http.token).toBe(TOKEN);
    expect(failure(profile("mfr:httpPort 8080 ;"), { MFR_HTTP_TOKEN: "short" })).toMatch(/16 characters/);
  });
});
