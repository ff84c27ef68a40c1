/**
 * The shared database's URL as the commands that only read it find it (export, backup):
 * none by default, mfr:database or MFR_DATABASE_URL (which wins), the secrets file's
 * database password put in as loadConfig does, a one-line config error that does not echo a
 * bad URL. And the URL's password: split off for PostgreSQL's programs, masked when shown,
 * in the user part or a `password` parameter.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveDatabaseUrl } from "../../src/config/load.js";
import { maskedDatabaseUrl, splitDatabaseUrl } from "../../src/config/shared-settings.js";
import { configErrorOf, writeConfigProfile } from "../support/config-profile.js";

let dir: string;
const URL_A = "postgres://mfr:s3cret%2Fpw@db.example:5432/mfr";
const URL_B = "postgresql://other:another-pw@127.0.0.1/coordinator";

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mfr-database-url-"));
});

function profile(mfrLines = ""): string {
  return writeConfigProfile(dir, `agent:roomJid "mfr@conference.example" ;`, mfrLines);
}

describe("the shared database's URL for export and backup", () => {
  it("is none by default, read from mfr:database, and MFR_DATABASE_URL wins", () => {
    expect(resolveDatabaseUrl({ profile: profile() }, {}, dir)).toBeUndefined();
    const withDb = profile(`mfr:database "${URL_A}" ;`);
    expect(resolveDatabaseUrl({ profile: withDb }, {}, dir)).toBe(URL_A);
    expect(resolveDatabaseUrl({ profile: withDb }, { MFR_DATABASE_URL: URL_B }, dir)).toBe(URL_B);
    expect(resolveDatabaseUrl({ profile: join(dir, "no-profile.ttl") }, { MFR_DATABASE_URL: URL_B }, dir)).toBe(URL_B);
  });

  it("takes the password from the secrets file when the URL has none, needing no XMPP password", () => {
    const secrets = join(dir, "secrets-db-only.json");
    writeFileSync(secrets, JSON.stringify({ database: { password: "from/secrets" } }));
    const url = resolveDatabaseUrl({ profile: profile(`mfr:database "postgres://mfr@db.example/mfr" ;`), secrets }, {}, dir);
    expect(splitDatabaseUrl(url ?? "")).toEqual({ url: "postgres://mfr@db.example/mfr", password: "from/secrets" });
  });

  it("refuses what is not a PostgreSQL URL, naming the source, without echoing it", () => {
    const bad = "mysql://root:hunter2@db/mfr";
    const fromProfile = configErrorOf(() => resolveDatabaseUrl({ profile: profile(`mfr:database "${bad}" ;`) }, {}, dir));
    expect(fromProfile).toMatch(/mfr:database: expected a postgres:\/\/ URL/);
    expect(fromProfile).not.toContain("hunter2");
    const fromEnv = configErrorOf(() => resolveDatabaseUrl({ profile: profile() }, { MFR_DATABASE_URL: bad }, dir));
    expect(fromEnv).toMatch(/^MFR_DATABASE_URL: database: expected a postgres:\/\/ URL/);
    expect(fromEnv).not.toContain("hunter2");
  });
});

describe("a database URL's password", () => {
  it("is taken out (decoded) from the user part or a password parameter, the rest unchanged", () => {
    expect(splitDatabaseUrl(URL_A)).toEqual({ url: "postgres://mfr@db.example:5432/mfr", password: "s3cret/pw" });
    expect(splitDatabaseUrl("postgres://db/mfr?sslmode=require&password=p%26w")).toEqual({ url: "postgres://db/mfr?sslmode=require", password: "p&w" });
    expect(splitDatabaseUrl("postgres://mfr@db/mfr")).toEqual({ url: "postgres://mfr@db/mfr", password: undefined });
  });

  it("is masked where the URL is shown, in the user part and in a parameter", () => {
    expect(maskedDatabaseUrl(URL_A)).toBe("postgres://mfr:***@db.example:5432/mfr");
    expect(maskedDatabaseUrl("postgres://db/mfr?sslmode=require&password=pw")).toBe("postgres://db/mfr?sslmode=require&password=***");
    expect(maskedDatabaseUrl("postgres://mfr@db/mfr")).toBe("postgres://mfr@db/mfr");
  });
});
