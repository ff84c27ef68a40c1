import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "./errors.js";

const SecretsSchema = z.object({ xmpp: z.record(z.string(), z.string()) });

/** Reads `{"xmpp": {"<passwordKey>": "…"}}` and returns the password for `key`. */
/** The password config/agents/secrets.example.json ships with: never a real one. */
export const EXAMPLE_PLACEHOLDER = "change-me";

export function readPassword(path: string, key: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigError(path, "secrets", `is not readable (${code}); copy config/agents/secrets.example.json there, or set XMPP_PASSWORD`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(path, "secrets", `is not valid JSON (${(err as Error).message})`);
  }
  const parsed = SecretsSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(path, "xmpp", 'expected an object {"xmpp": {"<passwordKey>": "<password>"}} with string passwords');
  }
  const password = parsed.data.xmpp[key];
  if (password === undefined || password === "") {
    throw new ConfigError(path, `xmpp.${key}`, "is missing: expected the password named by the profile's xmpp:passwordKey");
  }
  // A copy of the example file, not yet filled in: say so now rather than fail at the server's login.
  if (password === EXAMPLE_PLACEHOLDER) {
    throw new ConfigError(path, `xmpp.${key}`, `is still the example's placeholder "${EXAMPLE_PLACEHOLDER}": put the account's real password there`);
  }
  return password;
}

const HttpSecretsSchema = z.object({ http: z.object({ token: z.string() }).optional() });

/**
 * The web view's token from `{"http": {"token": "…"}}` in the secrets file, if the file and
 * the entry exist (the file may hold only XMPP passwords, or be absent when XMPP_PASSWORD is set).
 */
export function readHttpToken(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new ConfigError(path, "secrets", `is not valid JSON (${(err as Error).message})`);
  }
  const parsed = HttpSecretsSchema.safeParse(json);
  if (!parsed.success) throw new ConfigError(path, "http", 'expected {"http": {"token": "<token>"}} with a string token');
  return parsed.data.http?.token;
}
