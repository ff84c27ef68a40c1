/**
 * `mfr-coordinator demo`: the whole product on this machine. A throw-away Prosody, the
 * coordinator, two example agents, the reference solver agent and a scripted person who starts
 * a session; the room transcript is printed as it happens and the run ends when the session is
 * complete. The story: a fix round repairs the model, the planner's first plan is caught by the
 * plan check and repaired in a repair round, and the solver's plan is found and checked valid.
 * With a PDDL pair (`demo --pddl DOMAIN PROBLEM`) the modeller contributes the pair's imported
 * model instead, the scripted planner stays away, and the solver plans.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExampleAgent, SILENT_SCRIPT } from "../../../examples/agents/example-agent.js";
import { MODELER_SCRIPT, PLANNER_SCRIPT, SAMPLE_PROBLEM } from "../../../examples/agents/sample-problem.js";
import { resolveShipped } from "../../config/load.js";
import { ConfigSchema, DEFAULTS, type Config } from "../../config/schema.js";
import { LaunchedCoordinator } from "../../launch/launched-coordinator.js";
import { ensureProsody, ProsodyNotInstalledError, startLocalProsody, type LocalProsody } from "../../localserver/index.js";
import { createLogger } from "../../base/log.js";
import { PddlContributor } from "../../agents/pddl-contribution/index.js";
import type { PddlContribution } from "../../agents/pddl-contribution/index.js";
import { MessageType } from "../../base/vocab.js";
import { ReferenceSolver } from "../../agents/reference-solver/index.js";
import { createIsolatedPlanner } from "../../planning/solver/isolated-planner.js";
import { SessionStore } from "../../store/index.js";
import { RoomTranscript } from "./room-transcript.js";

const ROOM = "mfr-demo@conference.localhost";
const SESSION_TIMEOUT_MS = 60_000;

export interface DemoOptions {
  /** May the demo run apt-get to install Prosody? */
  allowInstall: boolean;
  print: (line: string) => void;
  /**
   * When given (a terminal), the demo keeps everything up, the web view included, until it
   * resolves (Enter pressed); without it the demo ends with the session, as in the tests.
   */
  keepOpen?: () => Promise<void>;
  /** An imported PDDL pair: the modeller contributes it, and the session's problem names it. */
  pddl?: PddlContribution;
}

/** Runs the demo; resolves with the process exit code. */
export async function runDemo(options: DemoOptions): Promise<number> {
  const { print } = options;
  try {
    await ensureProsody({ allowInstall: options.allowInstall, log: (l) => print(`demo: ${l}`) });
  } catch (err) {
    if (err instanceof ProsodyNotInstalledError) {
      print(`demo: Prosody (the XMPP server the demo runs locally) is not installed. Install it with:\n\n    ${err.installCommand}\n\nthen run npm run demo again.`);
      return 1;
    }
    throw err;
  }

  const dir = mkdtempSync(join(tmpdir(), "mfr-demo-"));
  const server = await startLocalProsody();
  const stoppers: Array<() => Promise<unknown>> = [];
  try {
    print(`demo: a throw-away Prosody is listening on ${server.service}; room ${ROOM}`);
    const accounts = await registerAll(server, ["coordinator", "modeler", "planner", "solver", "alice"]);
    const logPath = join(dir, "coordinator.log");
    const config = demoConfig(server, accounts.coordinator as string, dir);
    const store = SessionStore.open(config.dataDir);
    stoppers.push(async () => store.close());
    const coordinator = new LaunchedCoordinator({ config, log: createLogger({ level: "debug", pretty: false, destination: logPath }), store });
    stoppers.push(() => coordinator.stop());
    await coordinator.start();
    await waitUntil(() => coordinator.coordinator.rooms.isJoined(ROOM), 10_000, "the coordinator did not join the room");
    print(`demo: the web view is at ${coordinator.webUrl ?? "(off)"}`);

    const started = Date.now();
    const alice = new RoomTranscript({ service: server.service, domain: server.domain, username: "alice", password: accounts.alice as string }, ROOM, "alice", print, started);
    stoppers.push(() => alice.leave());
    print("\n--- room transcript (as alice sees it) ---");
    await alice.join();

    const { pddl } = options;
    // With a PDDL pair the scripted planner, whose plans are for the sample problem, stays away.
    const cast = pddl ? ([["modeler", SILENT_SCRIPT, 100]] as const) : ([["modeler", MODELER_SCRIPT, 100], ["planner", PLANNER_SCRIPT, 400]] as const);
    for (const [nick, script, thinkMs] of cast) {
      const contributor = pddl && new PddlContributor(pddl.turtle, { nick, maxStanzaBytes: config.limits.maxStanzaBytes });
      const agent = new ExampleAgent({ service: server.service, domain: server.domain, username: nick, password: accounts[nick] as string, room: ROOM, nick, script, thinkMs, ...(contributor ? { contributor } : {}) });
      stoppers.push(() => agent.stop());
      await agent.start();
    }
    await alice.waitFor((l) => l.nick === (cast.at(-1)?.[0] ?? "modeler"), 5000);

    // The reference solver: a peer like the others, with its own account, nick and log.
    const planner = createIsolatedPlanner();
    stoppers.push(() => planner.close());
    const solverConfig: Config = { ...config, nick: "Solver", xmpp: { ...config.xmpp, username: "solver", password: accounts.solver as string, resource: "Solver" } };
    const solver = new ReferenceSolver(solverConfig, { maxPlanSteps: 20, planningTimeoutMs: 10_000 }, planner, createLogger({ level: "info", pretty: false, destination: join(dir, "solver.log") }));
    stoppers.push(() => solver.stop());
    await solver.start();
    await waitUntil(() => solver.isJoined(), 10_000, "the solver did not join the room");

    await alice.say(`mfr-start ${pddl ? `Solve the PDDL problem ${pddl.problemName} of the domain ${pddl.domainName}.` : SAMPLE_PROBLEM}`);
    const complete = await alice.waitFor((l) => l.payload?.messageType === MessageType.SessionComplete, SESSION_TIMEOUT_MS);
    const sessionId = String(complete.payload?.json?.sessionId ?? "");
    const status = String(complete.payload?.json?.status ?? "");
    // What a person asks next: the session's detail and the list, answered in the room.
    await alice.say(`mfr-status ${sessionId}`);
    await alice.waitFor((l) => l.nick === "Coordinator" && l.at > complete.at && l.text.includes(sessionId) && !l.payload, 10_000);
    const asked = alice.lines.length;
    await alice.say("mfr-list");
    await alice.waitFor((l) => l.nick === "Coordinator" && alice.lines.indexOf(l) >= asked && !l.payload, 10_000);
    // The room's last session line is the SessionComplete's body, the short summary; the full one travels in its payload.
    print("--- end of transcript ---\n");
    print(`Final summary (${status}):\n${String(complete.payload?.json?.summary ?? "")}\n`);
    print(`demo: the coordinator's log is in ${logPath}; the solver's in ${join(dir, "solver.log")}`);
    print(`demo: export this session with: node dist/src/cli.js export ${sessionId} --data-dir ${config.dataDir}`);
    if (options.keepOpen) {
      print(`demo: the session's page: ${new URL(`/sessions/${sessionId}`, coordinator.webUrl ?? "http://127.0.0.1/").href}`);
      print("demo: press Enter to stop the web view and the demo");
      await options.keepOpen();
    }
    return status === "solved" ? 0 : 1;
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    await server.stop();
  }
}

async function registerAll(server: LocalProsody, names: string[]): Promise<Record<string, string>> {
  const accounts: Record<string, string> = {};
  for (const name of names) {
    accounts[name] = `demo-${name}-${Math.random().toString(36).slice(2, 10)}`;
    await server.register(name, accounts[name] as string);
  }
  return accounts;
}

function demoConfig(server: LocalProsody, password: string, dir: string): Config {
  return ConfigSchema.parse({
    profilePath: "(demo)",
    secretsPath: null,
    nick: "Coordinator",
    xmpp: { service: server.service, domain: server.domain, username: "coordinator", password, resource: "Coordinator" },
    room: ROOM,
    logRoom: null,
    mfr: {
      shapesPath: resolveShipped(process.cwd(), DEFAULTS.shapesPath),
      contributionTimeoutMs: 15_000,
      validationTimeoutMs: DEFAULTS.validationTimeoutMs,
      reasoningTimeoutMs: 15_000,
      debateTimeoutMs: DEFAULTS.debateTimeoutMs,
      quietPeriodMs: DEFAULTS.quietPeriodMs,
      enableDebate: false,
      maxFixRounds: DEFAULTS.maxFixRounds,
      maxRepairRounds: DEFAULTS.maxRepairRounds,
      chairNick: DEFAULTS.chairNick,
      maxPlanSteps: DEFAULTS.maxPlanSteps,
      planningTimeoutMs: DEFAULTS.planningTimeoutMs,
    },
    limits: {
      maxStanzaBytes: DEFAULTS.maxStanzaBytes,
      maxInboundBytes: DEFAULTS.maxInboundBytes,
      maxTriplesPerContribution: DEFAULTS.maxTriplesPerContribution,
      maxLiveSessions: DEFAULTS.maxLiveSessions,
      maxLiveSessionsPerPerson: DEFAULTS.maxLiveSessionsPerPerson,
      messagesPerMinute: DEFAULTS.messagesPerMinute,
    },
    commandAllowList: [],
    protocolAllowList: [],
    dataDir: join(dir, "data"),
    agentsDir: resolveShipped(process.cwd(), "config/agents"),
    retention: { maxAgeDays: DEFAULTS.retentionMaxAgeDays, maxCount: DEFAULTS.retentionMaxCount },
    logLevel: "debug",
    // The web view on a free loopback port: open, since only this machine can reach it.
    http: { port: 0, host: "127.0.0.1", token: null },
  });
}

async function waitUntil(condition: () => boolean, timeoutMs: number, message: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((r) => setTimeout(r, 25));
  }
}
