import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, shown } from "./errors.js";
import { readProfile, type ProfileValues } from "./profile.js";
import { PROFILE_PROPERTIES } from "./profile-vocab.js";
import { ConfigSchema, DEFAULTS, SharedSchema, type Config } from "./schema.js";
import { readHttpToken, readPassword } from "./secrets.js";
import { maskedDatabaseUrl, sharedSettingsOf } from "./shared-settings.js";

export const DEFAULT_PROFILE = "config/agents/coordinator.ttl";
export const DEFAULT_SECRETS = "config/agents/secrets.json";

/** Values given on the command line; they win over the environment, which wins over files. */
export interface ConfigFlags {
  profile?: string;
  secrets?: string;
  logLevel?: string;
  dataDir?: string;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/** Environment variables that override one profile value each. */
const ENV_OVERRIDES: ReadonlyArray<{ variable: string; key: string }> = [
  { variable: "XMPP_SERVICE", key: "service" },
  { variable: "XMPP_DOMAIN", key: "domain" },
  { variable: "XMPP_USERNAME", key: "username" },
  { variable: "MFR_ROOM", key: "room" },
  { variable: "MFR_LOG_ROOM", key: "logRoom" },
  { variable: "MFR_CONSTRUCT_ROOM", key: "constructRoom" },
  { variable: "MFR_VALIDATE_ROOM", key: "validateRoom" },
  { variable: "MFR_REASON_ROOM", key: "reasonRoom" },
  { variable: "MFR_NICK", key: "nick" },
  { variable: "MFR_DATA_DIR", key: "dataDir" },
  { variable: "MFR_HTTP_HOST", key: "httpHost" },
];

/** The package root, so that shipped files (shapes) are found wherever the command runs. */
const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/**
 * Builds the one validated Config from flags, environment and files.
 * Throws ConfigError whose message is a single line naming the source and field.
 */
export function loadConfig(flags: ConfigFlags, env: Environment, cwd: string): Config {
  const profilePath = resolve(cwd, flags.profile ?? env.MFR_PROFILE ?? DEFAULT_PROFILE);
  const profileSource = flags.profile ? "--profile" : env.MFR_PROFILE ? "MFR_PROFILE" : undefined;
  if (!existsSync(profilePath)) {
    throw new ConfigError(profileSource ?? profilePath, "profile", `file not found: ${profilePath}`);
  }
  const values: ProfileValues = readProfile(profilePath);
  const sourceOf = new Map<string, string>(Object.keys(values).map((k) => [k, profilePath]));

  for (const { variable, key } of ENV_OVERRIDES) {
    const value = env[variable];
    if (value !== undefined && value !== "") {
      values[key] = value;
      sourceOf.set(key, variable);
    }
  }

  const username = str(values.username);
  const passwordKey = str(values.passwordKey) ?? username ?? "";
  let password: string;
  let secretsPath: string | null = null;
  if (env.XMPP_PASSWORD) {
    password = env.XMPP_PASSWORD;
    sourceOf.set("password", "XMPP_PASSWORD");
  } else {
    secretsPath = resolve(cwd, flags.secrets ?? env.MFR_SECRETS ?? DEFAULT_SECRETS);
    password = readPassword(secretsPath, passwordKey);
    sourceOf.set("password", secretsPath);
  }

  // The environment gives text; a port that is not a number is left as it is, for the schema to name.
  if (env.MFR_HTTP_PORT !== undefined && env.MFR_HTTP_PORT !== "") {
    values.httpPort = /^\d+$/.test(env.MFR_HTTP_PORT) ? Number(env.MFR_HTTP_PORT) : env.MFR_HTTP_PORT;
    sourceOf.set("httpPort", "MFR_HTTP_PORT");
  }
  const tokenFile = secretsPath ?? resolve(cwd, flags.secrets ?? env.MFR_SECRETS ?? DEFAULT_SECRETS);
  const httpToken = env.MFR_HTTP_TOKEN ? env.MFR_HTTP_TOKEN : readHttpToken(tokenFile);
  sourceOf.set("httpToken", env.MFR_HTTP_TOKEN ? "MFR_HTTP_TOKEN" : tokenFile);

  const logLevel = flags.logLevel ?? env.LOG_LEVEL ?? DEFAULTS.logLevel;
  sourceOf.set("logLevel", flags.logLevel ? "--log-level" : env.LOG_LEVEL ? "LOG_LEVEL" : profilePath);

  const candidate = {
    profilePath,
    secretsPath,
    nick: values.nick ?? username,
    xmpp: {
      service: values.service,
      domain: values.domain,
      username: values.username,
      password,
      resource: values.resource ?? DEFAULTS.resource,
      directLine: values.directLine ?? DEFAULTS.directLine,
    },
    room: values.room,
    logRoom: values.logRoom ?? null,
    mfr: {
      shapesPath: resolveShipped(cwd, str(values.shapesPath) ?? DEFAULTS.shapesPath),
      contributionTimeoutMs: values.contributionTimeoutMs ?? DEFAULTS.contributionTimeoutMs,
      validationTimeoutMs: values.validationTimeoutMs ?? DEFAULTS.validationTimeoutMs,
      reasoningTimeoutMs: values.reasoningTimeoutMs ?? DEFAULTS.reasoningTimeoutMs,
      debateTimeoutMs: values.debateTimeoutMs ?? DEFAULTS.debateTimeoutMs,
      quietPeriodMs: values.quietPeriodMs ?? DEFAULTS.quietPeriodMs,
      enableDebate: values.enableDebate ?? DEFAULTS.enableDebate,
      maxFixRounds: values.maxFixRounds ?? DEFAULTS.maxFixRounds,
      maxRepairRounds: values.maxRepairRounds ?? DEFAULTS.maxRepairRounds,
      chairNick: values.chairNick ?? DEFAULTS.chairNick,
      maxPlanSteps: values.maxPlanSteps ?? DEFAULTS.maxPlanSteps,
      planningTimeoutMs: values.planningTimeoutMs ?? DEFAULTS.planningTimeoutMs,
      ...(values.modelWorkers !== undefined ? { modelWorkers: values.modelWorkers } : {}),
    },
    limits: {
      maxStanzaBytes: values.maxStanzaBytes ?? DEFAULTS.maxStanzaBytes,
      maxInboundBytes: values.maxInboundBytes ?? DEFAULTS.maxInboundBytes,
      maxTriplesPerContribution: values.maxTriplesPerContribution ?? DEFAULTS.maxTriplesPerContribution,
      maxLiveSessions: values.maxLiveSessions ?? DEFAULTS.maxLiveSessions,
      maxLiveSessionsPerPerson: values.maxLiveSessionsPerPerson ?? DEFAULTS.maxLiveSessionsPerPerson,
      messagesPerMinute: values.messagesPerMinute ?? DEFAULTS.messagesPerMinute,
      maxQueuedModelJobs: values.maxQueuedModelJobs ?? DEFAULTS.maxQueuedModelJobs,
    },
    commandAllowList: values.commandAllowList ?? [],
    protocolAllowList: values.protocolAllowList ?? [],
    // --data-dir wins, as every flag does (and as `resolveDataDir` has it for export and verify).
    dataDir: resolve(cwd, flags.dataDir ?? str(values.dataDir) ?? DEFAULTS.dataDir),
    // Peer profiles sit beside the coordinator's own by default (config/agents/*.ttl).
    // Peer profiles only from where the profile says: a file that happens to sit beside it is not one.
    agentsDir: str(values.agentsDir) ? resolve(dirname(profilePath), str(values.agentsDir) as string) : null,
    retention: {
      maxAgeDays: values.retentionMaxAgeDays ?? DEFAULTS.retentionMaxAgeDays,
      maxCount: values.retentionMaxCount ?? DEFAULTS.retentionMaxCount,
    },
    logLevel,
    phaseRooms: {
      construct: values.constructRoom ?? null,
      validate: values.validateRoom ?? null,
      reason: values.reasonRoom ?? null,
    },
    shared: sharedSettingsOf(values, env, sourceOf, secretsPath),
    http: {
      port: values.httpPort ?? null,
      host: values.httpHost ?? DEFAULTS.httpHost,
      token: httpToken ?? null,
    },
  };

  const parsed = ConfigSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path ?? [];
    // The phase rooms sit under `phaseRooms.construct` …; the profile and the environment call them `constructRoom` ….
    // … and the web view's settings `http.port` …; they are `httpPort` … there.
    const key =
      path[0] === "phaseRooms" && path.length === 2
        ? `${String(path[1])}Room`
        : path[0] === "shared" && path.length === 2
          ? String(path[1])
          : path[0] === "http" && path.length === 2
          ? `http${String(path[1]).charAt(0).toUpperCase()}${String(path[1]).slice(1)}`
          : String(path[path.length - 1] ?? "config");
    const where = sourceOf.get(key === "password" ? "password" : key) ?? (key in DEFAULTS ? "default" : profilePath);
    const got = valueAt(candidate, path);
    const missing = got === undefined || got === null;
    const secret = key === "password" || key === "httpToken" || key === "database";
    const field = fieldName(key, where);
    throw new ConfigError(where, field, `${missing ? "is missing: " : ""}expected ${issue?.message ?? "a valid value"}`, missing || secret ? undefined : shown(got));
  }
  if (!existsSync(parsed.data.mfr.shapesPath)) {
    throw new ConfigError(sourceOf.get("shapesPath") ?? "default", "mfr:shapesPath", `file not found: ${parsed.data.mfr.shapesPath}`);
  }
  return parsed.data;
}

/** Names a field the way its source spells it: the profile property, or the variable itself. */
function fieldName(key: string, where: string): string {
  if (/^[A-Z_]+$/.test(where) || where.startsWith("--")) return key;
  return PROFILE_PROPERTIES.find((p) => p.key === key)?.curie ?? key;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let node: unknown = root;
  for (const part of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A relative path is looked up in the working directory first, then in the package. */
export function resolveShipped(cwd: string, path: string): string {
  if (isAbsolute(path)) return path;
  const local = resolve(cwd, path);
  if (existsSync(local) || !PACKAGE_ROOT) return local;
  return join(PACKAGE_ROOT, path);
}

function findPackageRoot(start: string): string | undefined {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "shapes"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Just the data directory, for commands that need no connection (export): flags, then
 * MFR_DATA_DIR, then the profile's mfr:dataDir, then ./data. Needs no secrets.
 */
export function resolveDataDir(flags: ConfigFlags, env: Environment, cwd: string): string {
  if (flags.dataDir) return resolve(cwd, flags.dataDir);
  if (env.MFR_DATA_DIR) return resolve(cwd, env.MFR_DATA_DIR);
  const profilePath = resolve(cwd, flags.profile ?? env.MFR_PROFILE ?? DEFAULT_PROFILE);
  const fromProfile = existsSync(profilePath) ? str(readProfile(profilePath).dataDir) : undefined;
  return resolve(cwd, fromProfile ?? DEFAULTS.dataDir);
}

/**
 * The shared database's URL, for commands that read it without joining any room (export,
 * backup): MFR_DATABASE_URL, then the profile's mfr:database, with the secrets file's
 * database password put in when the URL has none, as `loadConfig` has it; undefined when
 * neither names one (the SQLite store of the data directory is used then). Needs no XMPP
 * password. Throws ConfigError, without the URL's text (it may hold a password), for a URL
 * that is not a PostgreSQL one.
 */
export function resolveDatabaseUrl(flags: ConfigFlags, env: Environment, cwd: string): string | undefined {
  const profilePath = resolve(cwd, flags.profile ?? env.MFR_PROFILE ?? DEFAULT_PROFILE);
  const values: ProfileValues = existsSync(profilePath) ? readProfile(profilePath) : {};
  const secretsPath = resolve(cwd, flags.secrets ?? env.MFR_SECRETS ?? DEFAULT_SECRETS);
  const sourceOf = new Map<string, string>();
  const url = sharedSettingsOf(values, env, sourceOf, secretsPath).database;
  if (url === null || url === undefined) return undefined;
  const parsed = SharedSchema.shape.database.safeParse(url);
  if (!parsed.success || parsed.data === null) {
    const where = sourceOf.get("database") ?? profilePath;
    throw new ConfigError(where, fieldName("database", where), `expected ${parsed.error?.issues[0]?.message ?? "a postgres:// URL"}`);
  }
  return parsed.data;
}

/** The effective configuration with secrets masked, for `check-config` and the start-up log. */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    xmpp: { ...config.xmpp, password: "********" },
    http: { ...config.http, token: config.http.token === null ? null : "********" },
    shared: { ...config.shared, database: config.shared.database === null ? null : maskedDatabaseUrl(config.shared.database) },
  };
}
