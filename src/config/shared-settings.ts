/**
 * The settings of several instances on one PostgreSQL database (src/fleet/), from the
 * profile and the environment: the database URL (mfr:database or MFR_DATABASE_URL), the
 * further room units (mfr:rooms or MFR_ROOMS), the most rooms per instance
 * (mfr:maxRoomsPerInstance or MFR_MAX_ROOMS_PER_INSTANCE), this instance's name
 * (MFR_INSTANCE_ID) and the lease timing (MFR_LEASE_MS, MFR_LEASE_RENEW_MS,
 * MFR_LEASE_MARGIN_MS; the defaults are the measured ones, the variables are for tests).
 *
 * The database password may be in the URL or, so that it need not sit in a profile, in the
 * secrets file as `{"database": {"password": "…"}}`; the URL's own password wins.
 * The result is checked by the configuration's schema (SharedSchema), not here.
 */
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "./errors.js";
import type { ProfileValues } from "./profile.js";

const DatabaseSecretsSchema = z.object({ database: z.object({ password: z.string().min(1) }).optional() });

/** The shared-store settings as the schema checks them (numbers from the environment stay text when they are not numbers, for the schema to name). */
export function sharedSettingsOf(values: ProfileValues, env: NodeJS.ProcessEnv, sourceOf: Map<string, string>, secretsPath: string | null): Record<string, unknown> {
  const fromEnv = (name: string, key: string): string | undefined => {
    const value = env[name];
    if (value === undefined || value === "") return undefined;
    sourceOf.set(key, name);
    return value;
  };
  const number = (text: string | undefined): number | string | undefined => (text === undefined ? undefined : /^\d+$/.test(text) ? Number(text) : text);
  const url = fromEnv("MFR_DATABASE_URL", "database") ?? (typeof values.database === "string" ? values.database : undefined);
  const roomsText = fromEnv("MFR_ROOMS", "rooms");
  const rooms = roomsText !== undefined ? roomsText.split(",").map((r) => r.trim()).filter((r) => r !== "") : Array.isArray(values.rooms) ? values.rooms : [];
  return {
    database: url === undefined ? null : withSecretPassword(url, secretsPath),
    maxRoomsPerInstance: number(fromEnv("MFR_MAX_ROOMS_PER_INSTANCE", "maxRoomsPerInstance")) ?? values.maxRoomsPerInstance ?? null,
    rooms,
    instanceId: fromEnv("MFR_INSTANCE_ID", "instanceId") ?? null,
    leaseMs: number(fromEnv("MFR_LEASE_MS", "leaseMs")) ?? 6000,
    renewMs: number(fromEnv("MFR_LEASE_RENEW_MS", "renewMs")) ?? 2000,
    marginMs: number(fromEnv("MFR_LEASE_MARGIN_MS", "marginMs")) ?? 1000,
  };
}

/** The URL with the secrets file's database password put in, when the URL has none and the file has one. */
function withSecretPassword(url: string, secretsPath: string | null): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL at all: the schema names it.
    return url;
  }
  if (parsed.password !== "" || secretsPath === null || !existsSync(secretsPath)) return url;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(secretsPath, "utf8"));
  } catch (err) {
    throw new ConfigError(secretsPath, "secrets", `is not valid JSON (${(err as Error).message})`);
  }
  const secrets = DatabaseSecretsSchema.safeParse(json);
  if (!secrets.success) throw new ConfigError(secretsPath, "database", 'expected {"database": {"password": "<password>"}} with a string password');
  const password = secrets.data.database?.password;
  if (password === undefined) return url;
  parsed.password = password;
  return parsed.href;
}

/** What stands for the database password wherever the URL is shown. */
export const PASSWORD_MASK = "***";

/** A database URL without its password (nothing else changed), and the password, decoded; undefined when it has none. */
export interface SplitDatabaseUrl {
  readonly url: string;
  readonly password: string | undefined;
}

/**
 * Takes the password out of a database URL: from the user part, or from a `password`
 * parameter (libpq reads one there too). For handing the URL to PostgreSQL's own programs
 * with the password in their environment (PGPASSWORD) rather than on their command line,
 * where every user of the machine can read it. A URL that does not parse is returned as it is.
 */
export function splitDatabaseUrl(url: string): SplitDatabaseUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, password: undefined };
  }
  let password = parsed.password === "" ? undefined : decodeURIComponent(parsed.password);
  parsed.password = "";
  for (const key of [...parsed.searchParams.keys()]) {
    if (key.toLowerCase() !== "password") continue;
    password ??= parsed.searchParams.get(key) ?? undefined;
    parsed.searchParams.delete(key);
  }
  return { url: parsed.href, password };
}

/** The URL as it may be shown in a log line or an error: the password (in the user part or a `password` parameter) replaced by `***`. */
export function maskedDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = PASSWORD_MASK;
    for (const key of [...parsed.searchParams.keys()]) if (key.toLowerCase() === "password") parsed.searchParams.set(key, PASSWORD_MASK);
    return parsed.href;
  } catch {
    return "(not a URL)";
  }
}
