#!/usr/bin/env node
import { parseArgs } from "node:util";
import { runningBuildId } from "./base/build-info.js";
import { ConfigError } from "./config/errors.js";
import { describeConfig, loadConfig, resolveDatabaseUrl, resolveDataDir, type ConfigFlags } from "./config/load.js";
import type { Config } from "./config/schema.js";
import type { PddlContribution } from "./agents/pddl-contribution/index.js";
import { LaunchedCoordinator } from "./launch/launched-coordinator.js";
import { createLogger, type Logger } from "./base/log.js";
import { BackupError, ExportError, SessionStore, StoreError, backupStore, exportSession, exportSessionPddl, type ExportSource } from "./store/index.js";
import type { PgStoreReader } from "./store/pg/pg-store-reader.js";
import { AuthenticationError } from "./xmpp/connection.js";

/** Exit codes: 0 done, 1 failed while running, 2 bad configuration or usage. */
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const SHUTDOWN_GRACE_MS = 4500;

const USAGE = `Usage: mfr-coordinator <command> [options]

Commands:
  start           connect, join the room and run sessions (default)
  check-config    validate the configuration and print it, secrets masked
  export ID       write a session out: model (TriG), validation reports, proposals, events (JSON)
  export ID --pddl
                  write the model's formal part as PDDL: ID.domain.pddl, ID.problem.pddl and
                  ID.AGENT.plan per proposed plan (check one with: Validate -v DOMAIN PROBLEM PLAN)
  import-pddl DOMAIN PROBLEM
                  read a PDDL domain and problem into one Turtle contribution of the formal-model
                  conventions (stdout, or --out FILE); a summary goes to stderr; what the
                  conventions cannot carry is refused as FILE:LINE:COL: message (exit 1)
  backup FILE     an online copy of the database (safe while the coordinator runs; --data-dir DIR)
  verify          replay every logged session and check it sends what was sent live: what each
                  stanza decides strictly, its wording (bodies, summaries, replies) as the words
                  of the build that sent it; exit 1 on a mismatch only (give it the profile the
                  coordinator runs with: its rooms and stanza limit; --verbose: every stanza
                  worded otherwise, and which builds logged each session's inputs)
  fleet           list the instances on the shared database: the rooms each owns, since when
                  (its last takeover), the time its lease has left, the instances standing
                  by, and the rooms nobody owns
  solver          run the reference solver agent: a peer that answers SolutionRequests with
                  plans found by bounded planning (give it its own --profile and --secrets)
  solver --pddl DOMAIN PROBLEM
                  the same, and it also answers each session's ModelContributionRequest with
                  the PDDL pair imported as a formal model (a refused construct: FILE:LINE:COL)
  demo            run a throw-away Prosody, the coordinator and example agents, and show a session
  demo --pddl DOMAIN PROBLEM
                  the same on a PDDL pair: the example modeller contributes its imported model
  help            this text

export, backup and verify read the shared PostgreSQL database instead of the data directory
when one is configured (env MFR_DATABASE_URL; profile mfr:database): every room's sessions;
backup then writes pg_dump's custom format and prints the pg_restore command.

Options:
  --profile FILE    RDF profile (default config/agents/coordinator.ttl; env MFR_PROFILE)
  --secrets FILE    secrets JSON (default config/agents/secrets.json; env MFR_SECRETS)
  --log-level LVL   fatal|error|warn|info|debug|trace|silent (env LOG_LEVEL; default info)
  --pretty          human-readable log lines (default when stdout is a terminal)
  --out DIR         where export writes its files (default: the current directory);
                    import-pddl: the file the Turtle is written to (default: stdout)
  --pddl            export: the formal model and plans as PDDL instead of TriG and JSON;
                    solver, demo: contribute the model of the DOMAIN and PROBLEM files that follow
  --data-dir DIR    the data directory (env MFR_DATA_DIR; profile mfr:dataDir; default ./data)
  --verbose         verify: list each stanza that differs in wording only
  --version         print the version and the build
`;

interface CliArgs {
  command: string;
  flags: ConfigFlags;
  pretty: boolean;
  out: string | undefined;
  pddl: boolean;
  verbose: boolean;
  rest: string[];
}

function parseCli(argv: string[]): CliArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      profile: { type: "string" },
      secrets: { type: "string" },
      "log-level": { type: "string" },
      pretty: { type: "boolean", default: false },
      out: { type: "string" },
      pddl: { type: "boolean", default: false },
      "data-dir": { type: "string" },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
      version: { type: "boolean", default: false },
    },
  });
  const command = values.version ? "version" : values.help ? "help" : (positionals[0] ?? "start");
  return {
    command,
    flags: { profile: values.profile, secrets: values.secrets, logLevel: values["log-level"], dataDir: values["data-dir"] },
    pretty: values.pretty || process.stdout.isTTY === true,
    out: values.out,
    pddl: values.pddl,
    verbose: values.verbose,
    rest: positionals.slice(1),
  };
}

function fail(message: string, code: number): never {
  process.stderr.write(`mfr-coordinator: ${message}\n`);
  process.exit(code);
}

function configOrExit(flags: ConfigFlags, env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(flags, env, process.cwd());
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, EXIT_USAGE);
    throw err;
  }
}

function openStoreOrExit(dataDir: string, readonly = false): SessionStore {
  try {
    return SessionStore.open(dataDir, { readonly });
  } catch (err) {
    if (err instanceof StoreError) fail(err.message, EXIT_FAILED);
    throw err;
  }
}

/**
 * The shared database's URL when one is configured (MFR_DATABASE_URL, then the profile's
 * mfr:database); undefined: export, verify and backup use the SQLite store of the data directory.
 */
function databaseUrlOrExit(flags: ConfigFlags): string | undefined {
  try {
    return resolveDatabaseUrl(flags, process.env, process.cwd());
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, EXIT_USAGE);
    throw err;
  }
}

/** Opens the shared database for reading (schema checked); one line and exit 1 when it cannot be. */
async function openDatabaseOrExit(url: string, command: string): Promise<PgStoreReader> {
  // Loaded only when a database is configured: a SQLite installation never loads the driver.
  const { PgStoreReader } = await import("./store/pg/pg-store-reader.js");
  try {
    return await PgStoreReader.open(url, `mfr-coordinator ${command}`);
  } catch (err) {
    if (err instanceof StoreError) fail(err.message, EXIT_FAILED);
    throw err;
  }
}

/** Runs `read` on the shared database; a failure of the database (the connection dropped mid-way) is one line, exit 1. */
async function readDatabaseOrExit<T>(reader: PgStoreReader, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ExportError) fail(err.message, EXIT_FAILED);
    fail(`cannot read the database ${reader.where}: ${err instanceof Error ? err.message : String(err)}`, EXIT_FAILED);
  } finally {
    await reader.close();
  }
}

/**
 * What export reads: the session loaded from the shared database when one is configured,
 * else the SQLite store of the data directory, read-only (no lock: it runs beside the coordinator).
 */
async function exportSourceOrExit(flags: ConfigFlags, sessionId: string): Promise<{ source: ExportSource; close: () => void }> {
  const url = databaseUrlOrExit(flags);
  if (url === undefined) {
    const store = openStoreOrExit(resolveDataDir(flags, process.env, process.cwd()), true);
    return { source: store, close: () => store.close() };
  }
  const reader = await openDatabaseOrExit(url, "export");
  const source = await readDatabaseOrExit(reader, () => reader.exportSource(sessionId));
  return { source, close: () => undefined };
}

/** `backup` of the shared database (pg_dump): the same first line as for SQLite, then how to restore it. */
async function backupDatabaseOrExit(url: string, destination: string): Promise<void> {
  const { backupDatabase } = await import("./store/pg/pg-backup.js");
  const reader = await openDatabaseOrExit(url, "backup");
  try {
    const result = await backupDatabase(reader, url, destination);
    process.stdout.write(`${result.path}: ${result.sessions} sessions (${result.archived} archived), ${result.bytes} bytes\n`);
    process.stdout.write(`restore with: ${result.restoreCommand}\n`);
    if (result.passwordLeftOut) process.stderr.write("mfr-coordinator: note: the database password is left out of the restore command: give it in PGPASSWORD or ~/.pgpass\n");
  } catch (err) {
    if (err instanceof BackupError) fail(err.message, EXIT_FAILED);
    throw err;
  } finally {
    await reader.close();
  }
}

/**
 * Stops cleanly on SIGINT/SIGTERM, within the grace period however the server behaves, and
 * keeps the process alive through anything the network sends (logged, never fatal).
 */
function stopOnSignals(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
    void stop()
      .catch((err: unknown) => log.warn({ err }, "error while shutting down"))
      .finally(() => process.exit(0));
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("unhandledRejection", (reason) => log.error({ err: reason }, "unhandled rejection"));
  process.on("uncaughtException", (err) => log.error({ err }, "uncaught exception"));
}

/**
 * One instance of several on a shared PostgreSQL database (src/fleet/): it stands by until
 * it owns a room, and hands its rooms over on SIGTERM.
 */
async function runFleet(config: Config, log: Logger): Promise<void> {
  const { Fleet } = await import("./fleet/fleet.js");
  const fleet = new Fleet({ config, log });
  stopOnSignals(log, () => fleet.stop());
  log.info({ config: describeConfig(config), instance: fleet.instanceId, build: runningBuildId() }, "starting as one of several instances on the shared database");
  try {
    await fleet.start();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") fail(`the operations endpoints cannot listen on ${config.http.host}:${String(config.http.port)} (${code})`, EXIT_FAILED);
    fail(`the shared database cannot be used: ${err instanceof Error ? err.message : String(err)}`, EXIT_FAILED);
  }
}

async function runStart(config: Config, log: Logger): Promise<void> {
  if (config.shared.database !== null) return runFleet(config, log);
  const store = openStoreOrExit(config.dataDir);
  const coordinator = new LaunchedCoordinator({ config, log, store });
  stopOnSignals(log, async () => {
    try {
      await coordinator.stop();
    } finally {
      store.close();
    }
  });
  log.info({ config: describeConfig(config), build: runningBuildId() }, "starting");
  try {
    await coordinator.start();
  } catch (err) {
    if (err instanceof AuthenticationError) fail(err.message, EXIT_FAILED);
    // The web view's port is taken (or not ours to bind): one line, not a stack.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") fail(`the web view cannot listen on ${config.http.host}:${String(config.http.port)} (${code})`, EXIT_FAILED);
    throw err;
  }
}

/** Resolves at the next line typed on the terminal. */
function enterPressed(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.resume();
    process.stdin.once("data", () => {
      process.stdin.pause();
      resolve();
    });
  });
}

/**
 * The contribution of `solver` or `demo --pddl DOMAIN PROBLEM`, read and imported before anything
 * connects: a refusal is its `FILE:LINE:COL: message` line alone (as compilers write it, so
 * an editor can jump there) and exit 2.
 */
async function pddlContributionOrExit(args: CliArgs): Promise<PddlContribution | undefined> {
  const { loadPddlContribution, pddlFilesOf } = await import("./agents/pddl-contribution/index.js");
  const files = pddlFilesOf(args.pddl, args.rest);
  if (files === undefined) return undefined;
  if ("error" in files) fail(`${files.error}\n\n${USAGE}`, EXIT_USAGE);
  const loaded = await loadPddlContribution(files);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.error}\n`);
    process.exit(EXIT_USAGE);
  }
  return loaded.contribution;
}

async function runSolver(config: Config, log: Logger, contribution: PddlContribution | undefined): Promise<void> {
  const { ReferenceSolver } = await import("./agents/reference-solver/index.js");
  const { createIsolatedPlanner } = await import("./planning/solver/isolated-planner.js");
  // Z3 runs in a child process: running out of memory there costs one answer, not the agent.
  const planner = createIsolatedPlanner();
  const settings = { maxPlanSteps: config.mfr.maxPlanSteps, planningTimeoutMs: config.mfr.planningTimeoutMs, ...(contribution ? { contribution } : {}) };
  const solver = new ReferenceSolver(config, settings, planner, log);
  stopOnSignals(log, async () => {
    try {
      await solver.stop();
    } finally {
      await planner.close();
    }
  });
  const contributes = contribution ? { contributes: `${contribution.domainName}/${contribution.problemName}`, notes: contribution.notes } : {};
  log.info({ nick: config.nick, room: config.room, maxPlanSteps: config.mfr.maxPlanSteps, planningTimeoutMs: config.mfr.planningTimeoutMs, ...contributes }, "reference solver starting");
  try {
    await solver.start();
  } catch (err) {
    if (err instanceof AuthenticationError) fail(err.message, EXIT_FAILED);
    throw err;
  }
}

async function main(): Promise<void> {
  let args: CliArgs;
  try {
    args = parseCli(process.argv.slice(2));
  } catch (err) {
    fail(`${(err as Error).message}\n\n${USAGE}`, EXIT_USAGE);
  }
  switch (args.command) {
    case "help":
      process.stdout.write(USAGE);
      return;
    case "version": {
      const { readFileSync } = await import("node:fs");
      const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
      // The version alone on the first line, for scripts; the build id (what the store records) after it.
      process.stdout.write(`${pkg.version}\nbuild ${runningBuildId()}\n`);
      return;
    }
    case "check-config": {
      const config = configOrExit(args.flags);
      process.stdout.write(`${JSON.stringify(describeConfig(config), null, 2)}\n`);
      return;
    }
    case "export": {
      const sessionId = args.rest[0];
      if (!sessionId) fail(`export needs a session id\n\n${USAGE}`, EXIT_USAGE);
      const { source, close } = await exportSourceOrExit(args.flags, sessionId);
      try {
        const result = (args.pddl ? exportSessionPddl : exportSession)(source, sessionId, args.out ?? process.cwd());
        // The status goes beside the notes on stderr: stdout stays the list of files written.
        process.stderr.write(`mfr-coordinator: ${result.status}\n`);
        for (const note of result.notes) process.stderr.write(`mfr-coordinator: note: ${note}\n`);
        process.stdout.write(`${result.files.join("\n")}\n`);
      } catch (err) {
        if (err instanceof ExportError) fail(err.message, EXIT_FAILED);
        throw err;
      } finally {
        close();
      }
      return;
    }
    case "import-pddl": {
      const [domainPath, problemPath, extra] = args.rest;
      if (domainPath === undefined || problemPath === undefined || extra !== undefined) fail(`import-pddl needs a domain and a problem file\n\n${USAGE}`, EXIT_USAGE);
      const { runImportPddl } = await import("./planning/pddl-import/command.js");
      process.exitCode = runImportPddl(domainPath, problemPath, args.out, { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) });
      return;
    }
    case "backup": {
      const destination = args.rest[0];
      if (!destination) fail(`backup needs a file to write\n\n${USAGE}`, EXIT_USAGE);
      const url = databaseUrlOrExit(args.flags);
      if (url !== undefined) {
        await backupDatabaseOrExit(url, destination);
        return;
      }
      // Read-only: no lock, so it runs beside the coordinator that holds the data directory.
      const store = openStoreOrExit(resolveDataDir(args.flags, process.env, process.cwd()), true);
      try {
        const result = await backupStore(store, destination);
        process.stdout.write(`${result.path}: ${result.sessions} sessions (${result.archived} archived), ${result.bytes} bytes\n`);
      } catch (err) {
        if (err instanceof BackupError) fail(err.message, EXIT_FAILED);
        throw err;
      } finally {
        store.close();
      }
      return;
    }
    case "verify": {
      // verify never connects: the rooms and limits of the profile matter, the password does not.
      const config = configOrExit(args.flags, { XMPP_PASSWORD: "(not needed to verify)", ...process.env });
      const { printRoomsVerification, printVerification } = await import("./programs/verify-report.js");
      const print = (line: string): void => void process.stdout.write(`${line}\n`);
      if (config.shared.database !== null) {
        // Every room unit of the shared database, each replayed with the rooms its coordinator
        // renders for (the profile's primary room with its log and phase rooms, or a further room).
        const [{ unitConfigOf }, { renderContextOf }] = await Promise.all([import("./fleet/room-units.js"), import("./host/outgoing.js")]);
        const reader = await openDatabaseOrExit(config.shared.database, "verify");
        process.exitCode = await readDatabaseOrExit(reader, () => printRoomsVerification(reader, (room) => renderContextOf(unitConfigOf(config, room)), print, { verbose: args.verbose }));
        return;
      }
      const store = openStoreOrExit(resolveDataDir(args.flags, process.env, process.cwd()), true);
      try {
        process.exitCode = printVerification(store, config, print, { verbose: args.verbose });
      } finally {
        store.close();
      }
      return;
    }
    case "fleet": {
      const url = databaseUrlOrExit(args.flags);
      if (url === undefined) fail("fleet lists the instances on a shared database: configure one (env MFR_DATABASE_URL; profile mfr:database)", EXIT_USAGE);
      const { fleetReport } = await import("./programs/fleet-report.js");
      const reader = await openDatabaseOrExit(url, "fleet");
      const listing = await readDatabaseOrExit(reader, () => reader.leases());
      process.stdout.write(`${fleetReport(listing).join("\n")}\n`);
      return;
    }
    case "demo": {
      const pddl = await pddlContributionOrExit(args);
      const { runDemo } = await import("./programs/demo/run-demo.js");
      const allowInstall = process.getuid?.() === 0 && process.env.MFR_DEMO_NO_INSTALL === undefined;
      // In a terminal the demo waits for Enter so the web view can be browsed; piped (tests, CI) it ends with the session.
      const keepOpen = process.stdin.isTTY ? () => enterPressed() : undefined;
      process.exitCode = await runDemo({ allowInstall, print: (line) => process.stdout.write(`${line}\n`), ...(keepOpen ? { keepOpen } : {}), ...(pddl ? { pddl } : {}) });
      return;
    }
    case "solver": {
      // The PDDL pair first: a refused construct is the operator's to fix before anything else.
      const contribution = await pddlContributionOrExit(args);
      const config = configOrExit(args.flags);
      const log = createLogger({ level: config.logLevel, pretty: args.pretty });
      await runSolver(config, log, contribution);
      return;
    }
    case "start": {
      const config = configOrExit(args.flags);
      const log = createLogger({ level: config.logLevel, pretty: args.pretty });
      await runStart(config, log);
      return;
    }
    default:
      fail(`unknown command "${args.command}"\n\n${USAGE}`, EXIT_USAGE);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`mfr-coordinator: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(EXIT_FAILED);
});
