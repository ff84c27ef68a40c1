/**
 * The core scenarios every supported XMPP server must carry, written once and run against
 * each: by test/integration/restart.test.ts on Prosody and test/integration/ejabberd.test.ts
 * on ejabberd. A session with a fix round; the coordinator stopped (SIGTERM) and started
 * again mid-session; killed (SIGKILL) and started again in a fix round; a contribution said
 * while it was down, taken in once it is back; killed between sending and recording; and
 * more said while it was away than the room's history holds, taken in from the archive.
 * Each checks the room's transcript as an occupant saw it: nothing the coordinator said went
 * out twice (by XEP-0359 origin-id).
 *
 * The coordinator keeps its sessions in its data directory (SQLite), or on PostgreSQL in the
 * vitest project `postgres` (MFR_TEST_STORE, test/support/test-store.ts), unless the
 * scenarios are given another store: test/fleet/core-scenarios-pg.test.ts runs them on
 * PostgreSQL, a fresh database per scene.
 */
import { xml } from "@xmpp/client";
import { describe, expect, it } from "vitest";
import { CoordinatorProcess, type CoordinatorProcessOptions, type LogLine } from "./coordinator-process.js";
import { TestPeer, type ReceivedMessage } from "./peer.js";
import { peerOptions, registerUser, uniqueRoom, type LocalProsody } from "./prosody.js";
import { COORDINATOR_NICK, json, negotiation, toldPrivately } from "./room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, PLANNER_TURTLE_BROKEN, ScriptedAgent, type AgentScript } from "./scripted-agent.js";
import { commandWording } from "../../src/commands/wording.js";

const NS_SID = "urn:xmpp:sid:0";
const WINDOWS = "mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ;";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The subject a room the coordinator creates gets. */
const ROOM_SUBJECT = commandWording.roomSubject(COORDINATOR_NICK);

/** The origin-ids of what the coordinator said live in `room` (groupchat), in order. */
function coordinatorOriginIds(messages: readonly ReceivedMessage[], room: string): string[] {
  return messages
    .filter((m) => m.from === `${room}/${COORDINATOR_NICK}` && m.type === "groupchat" && !m.delayed)
    .map((m) => String(m.stanza.getChild("origin-id", NS_SID)?.attrs.id ?? ""))
    .filter(Boolean);
}

/** Origin-ids an occupant received more than once from the coordinator: what went out twice. */
export function sentTwice(messages: readonly ReceivedMessage[], room: string): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of coordinatorOriginIds(messages, room)) (seen.has(id) ? twice : seen).add(id);
  return [...twice];
}

/** Where a scene's coordinator keeps its sessions, the same at every start of it. */
export interface SceneStore {
  /** Extra environment for the coordinator (e.g. MFR_DATABASE_URL). */
  readonly env?: Record<string, string>;
  /** Forgets what was recorded as sent for a session, while the coordinator is down; resolves with how many records went. */
  forgetSentOf(coordinator: CoordinatorProcess, sessionId: string): Promise<number>;
}

/**
 * The coordinator's own store, the default: its data directory (SQLite), or with
 * MFR_TEST_STORE=postgres the database test/support/test-store.ts gives it.
 */
export const DATA_DIRECTORY: SceneStore = { forgetSentOf: (coordinator, sessionId) => coordinator.forgetSentOf(sessionId) };

/**
 * A room the coordinator creates and configures, a person in it, and scripted agents that
 * have announced themselves. `restart` starts the coordinator again on the same account and
 * data directory (and store), after `kill` or `terminate` on the current one.
 */
export async function scene(
  server: LocalProsody,
  afterThis: (step: () => Promise<unknown>) => void,
  scripts: Record<string, AgentScript>,
  mfrConfig = WINDOWS,
  /** The server as the coordinator reaches it (through a proxy that can cut it off). */
  coordinatorVia: LocalProsody = server,
  store: SceneStore = DATA_DIRECTORY,
) {
  const room = uniqueRoom(server);
  const options: CoordinatorProcessOptions = { server: coordinatorVia, room, mfrConfig, ...(store.env ? { env: store.env } : {}) };
  let coordinator = await CoordinatorProcess.start(options);
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  // The room is the coordinator's: configured before anyone else joins.
  await coordinator.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("created the room and configured it"));
  const human = await TestPeer.connect(peerOptions(server, await registerUser(server, "alice")));
  afterThis(() => human.stop());
  await human.joinRoom(room, "alice");
  const agents: Record<string, ScriptedAgent> = {};
  for (const [nick, script] of Object.entries(scripts)) {
    const a = await ScriptedAgent.join(server, room, nick, script);
    afterThis(() => a.stop());
    await a.announce();
    agents[nick] = a;
  }
  await sleep(200);
  const restart = async () => {
    coordinator = await coordinator.restart(options);
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    return coordinator;
  };
  return { room, human, agents, restart, coordinator: () => coordinator, store };
}

/** `mfr-start` from the person; resolves with the session id once the contribution request is out. */
export async function start(human: TestPeer, room: string): Promise<string> {
  await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
  return String(json(await human.waitForMessage(negotiation("ModelContributionRequest"))).sessionId);
}

/** The coordinator's log lines about one session with a given message, each checked to be at info. */
function sessionLog(coordinator: CoordinatorProcess, sessionId: string, msg: string): LogLine[] {
  const lines = coordinator.logs.filter((l) => l.msg === msg && l.sessionId === sessionId);
  for (const line of lines) expect(line.level, `${msg} is at info`).toBe(30);
  return lines;
}

const caughtUp = (n: number) => (l: { msg?: unknown; caughtUp?: unknown }) => typeof l.msg === "string" && l.msg.startsWith("caught up on") && l.caughtUp === n;

type AfterThis = (step: () => Promise<unknown>) => void;

/** How the scenarios are run: by default, each scene's coordinator on its data directory. */
export interface ScenarioOptions {
  /** A store of its own for each scene (called once per scene). */
  store?: () => Promise<SceneStore>;
}

/** A core scenario: what it shows, and the test itself against a running server. */
export interface CoreScenario {
  title: string;
  run: (server: LocalProsody, afterThis: AfterThis, options?: ScenarioOptions) => Promise<void>;
}

/** A scenario's scene: the default windows, on the scenario's store. */
async function sceneOf(server: LocalProsody, afterThis: AfterThis, scripts: Record<string, AgentScript>, options: ScenarioOptions = {}) {
  return scene(server, afterThis, scripts, WINDOWS, server, options.store ? await options.store() : DATA_DIRECTORY);
}

export const CORE_SCENARIOS = {
  fixRound: {
    title: "a session with a fix round: the responsible agent is asked to fix, fixes, and the session is solved",
    run: async (server, afterThis, options?) => {
      const { room, human, agents, coordinator } = await sceneOf(server, afterThis, {
        modeler: { contribution: (round) => (round === 1 ? MODELER_TURTLE : undefined), solution: () => GOOD_SOLUTION },
        planner: { contribution: (round) => (round === 1 ? PLANNER_TURTLE_BROKEN : PLANNER_TURTLE), solution: () => GOOD_SOLUTION },
      }, options);
      const sessionId = await start(human, room);
      const first = await human.waitForMessage(negotiation("ModelValidationResult", sessionId), 10_000);
      expect(json(first).conforms).toBe(false);
      const results = json(first).results as Array<{ severity: string; agent?: string; message: string }>;
      expect(results.some((r) => r.severity === "Violation" && r.agent === "planner")).toBe(true);
      // The room line names the violation in plain words, whole, and who is to fix it: marked as status, since it names an agent.
      expect(first.body).toBe(`[MFR] Session ${sessionId}: the model has 1 violation: the goal #delivered has no label or description — planner to fix.`);
      const fix = await human.waitForMessage((m) => negotiation("ModelContributionRequest", sessionId)(m) && json(m).round === 2, 10_000);
      // The request opens the round in a line of its own, naming no agent; it asks agents to act, so it is not marked.
      expect(fix.body).toBe(`Session ${sessionId}: fix round 1 of 2: 1 agent asked to fix the model, open for 8\u00a0s.`);
      expect(json(fix).requestedAgents).toEqual(["planner"]);
      expect(Object.keys(json(fix).issues as object)).toEqual(["planner"]);
      const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId), 15_000);
      expect(json(complete).status).toBe("solved");
      expect(agents.planner?.requests.map((r) => r.round)).toEqual([1, 2]);
      expect(sentTwice(human.messages, room)).toEqual([]);

      // The operator's view: each validation outcome, the fix round, the windows and the end, at info with the session id.
      const c = coordinator();
      await c.waitForLog((l) => l.msg === "session complete" && l.sessionId === sessionId);
      expect(sessionLog(c, sessionId, "validation result").map((l) => [l.round, l.conforms])).toEqual([[1, false], [2, true]]);
      expect(sessionLog(c, sessionId, "validation result")[0]?.violations).toBeGreaterThan(0);
      expect(sessionLog(c, sessionId, "fix round")).toEqual([expect.objectContaining({ fixRound: 1, round: 2, agents: ["planner"] })]);
      expect(sessionLog(c, sessionId, "contribution window closed").map((l) => l.round)).toEqual([1, 2]);
      expect(sessionLog(c, sessionId, "solution window closed")).toHaveLength(1);
      expect(sessionLog(c, sessionId, "session complete")).toEqual([expect.objectContaining({ status: "solved" })]);
    },
  },
  sigtermRestart: {
    title: "SIGTERM mid-session and start again: what arrived before is kept, the session ends solved, nothing is sent twice",
    run: async (server, afterThis, options?) => {
      const { room, human, agents, restart, coordinator } = await sceneOf(server, afterThis, {
        modeler: { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION },
        planner: { solution: () => GOOD_SOLUTION },
      }, options);
      const sessionId = await start(human, room);
      await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
      const { code } = await coordinator().terminate();
      expect(code).toBe(0);
      await restart();

      await agents.planner?.contribute(sessionId, PLANNER_TURTLE);
      const request = await human.waitForMessage(negotiation("SolutionRequest"), 10_000);
      expect(String(json(request).model)).toContain("Truck 1"); // the modeler's, received before the stop
      expect(String(json(request).model)).toContain("goods delivered"); // the planner's, after the start
      expect(json(await human.waitForMessage(negotiation("SessionComplete"), 10_000))).toMatchObject({ sessionId, status: "solved" });
      expect(agents.modeler?.requests).toHaveLength(1);
      expect(human.messages.filter(negotiation("ModelContributionRequest"))).toHaveLength(1);
      expect(human.messages.filter(negotiation("SessionComplete"))).toHaveLength(1);
      expect(sentTwice(human.messages, room)).toEqual([]);
    },
  },
  killInFixRound: {
    title: "kill -9 during a fix round and start again: the fix received before is kept, the round is not asked again, nothing is sent twice",
    run: async (server, afterThis, options?) => {
      const modelerBroken = MODELER_TURTLE.replace('mfr:entityType "Vehicle" ; ', "");
      const { room, human, agents, restart, coordinator } = await sceneOf(server, afterThis, {
        // Round 1: both break a rule. Round 2: the modeler fixes at once; the planner is silent until after the kill.
        modeler: { contribution: (round) => (round === 1 ? modelerBroken : MODELER_TURTLE), solution: () => GOOD_SOLUTION },
        planner: { contribution: (round) => (round === 1 ? PLANNER_TURTLE.replace('mfr:constraintType "resource" ; ', "") : undefined), solution: () => GOOD_SOLUTION },
      }, options);
      const sessionId = await start(human, room);
      const fix = await human.waitForMessage((m) => negotiation("ModelContributionRequest")(m) && json(m).round === 2, 10_000);
      expect(Object.keys(json(fix).issues as object).sort()).toEqual(["modeler", "planner"]);
      await coordinator().waitForLog((l) => l.msg === "contribution accepted" && l.agent === "modeler" && l.round === 2);
      await coordinator().kill();
      await restart();

      await agents.planner?.contribute(sessionId, PLANNER_TURTLE);
      const request = await human.waitForMessage(negotiation("SolutionRequest"), 10_000);
      expect(String(json(request).model)).toContain('"Vehicle"'); // the modeler's fix, received before the kill
      expect(json(await human.waitForMessage(negotiation("SessionComplete"), 10_000))).toMatchObject({ sessionId, status: "solved" });
      expect(agents.modeler?.requests.map((r) => r.round)).toEqual([1, 2]);
      expect(agents.planner?.requests.map((r) => r.round)).toEqual([1, 2]);
      expect(human.messages.filter(negotiation("ModelContributionRequest"))).toHaveLength(2);
      expect(human.messages.filter(negotiation("ModelValidationResult"))).toHaveLength(2);
      expect(human.messages.filter(negotiation("SolutionRequest"))).toHaveLength(1);
      expect(sentTwice(human.messages, room)).toEqual([]);
    },
  },
  catchUp: {
    title: "kill -9 in the contribution window: a contribution said while it was down is in the model, acknowledged once",
    run: async (server, afterThis, options?) => {
      const { room, human, agents, restart, coordinator } = await sceneOf(server, afterThis, {
        modeler: { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION },
        planner: { solution: () => GOOD_SOLUTION },
      }, options);
      const sessionId = await start(human, room);
      await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
      await coordinator().kill();
      // Nobody is listening: the room keeps it.
      await agents.planner?.contribute(sessionId, PLANNER_TURTLE);
      await sleep(500);
      const back = await restart();
      await back.waitForLog(caughtUp(1));

      const request = await human.waitForMessage(negotiation("SolutionRequest"), 10_000);
      expect(String(json(request).model)).toContain("goods delivered"); // the planner's, said while it was down
      expect(String(json(request).model)).toContain("Truck 1"); // the modeler's, logged before the kill
      const complete = await human.waitForMessage(negotiation("SessionComplete"), 10_000);
      expect(json(complete)).toMatchObject({ sessionId, status: "solved" });
      expect(String(json(complete).summary)).toMatch(/planner: 1 constraint, 1 goal/);
      // Acknowledged once, and nothing asked again.
      const told = agents.planner?.peer.messages.filter(toldPrivately(room, "Contribution received")) ?? [];
      const why = JSON.stringify({ told: told.map((m) => m.stanza.toString()), log: back.logs.filter((l) => /contribution|caught up|already taken|joined|crash/.test(String(l.msg))) });
      expect(told, why).toHaveLength(1);
      // The modeler's acknowledgement went out just before the kill. A private message is in no
      // room's history, so when the kill came before its sent record it goes out once more, with
      // the same origin-id, for the agent to drop (docs/operating.md, "Durability"): one answer.
      const modelerTold = agents.modeler?.peer.messages.filter(toldPrivately(room, "Contribution received")) ?? [];
      const modelerAnswers = new Set(modelerTold.map((m) => String(m.stanza.getChild("origin-id", NS_SID)?.attrs.id ?? "none")));
      expect([...modelerAnswers]).toHaveLength(1);
      expect([...modelerAnswers][0]).toMatch(new RegExp(`^mfr:${sessionId}:\\d+:\\d+$`));
      expect(human.messages.filter(negotiation("ModelContributionRequest"))).toHaveLength(1);
      expect(human.messages.filter(negotiation("SessionComplete"))).toHaveLength(1);
      expect(sentTwice(human.messages, room)).toEqual([]);
    },
  },
  restoredTail: {
    title: "kill -9 between sending and recording: what the room carries is not sent again, a body-less message included",
    run: async (server, afterThis, options?) => {
      // One agent contributes a sound model: a ModelValidationResult without a body, then the SolutionRequest.
      const { room, human, restart, coordinator, store } = await sceneOf(server, afterThis, { modeler: { contribution: () => MODELER_TURTLE + PLANNER_TURTLE } }, options);
      const sessionId = await start(human, room);
      await human.waitForMessage(negotiation("SolutionRequest"), 10_000);
      const result = human.messages.find(negotiation("ModelValidationResult"));
      expect(result?.body).toBeUndefined();
      const c = coordinator();
      await sleep(300); // its sent records are written just after the room has the stanzas
      await c.kill();
      // The stanzas reached the room, but the kill came before they were recorded as sent.
      expect(await store.forgetSentOf(c, sessionId)).toBeGreaterThanOrEqual(3);
      const back = await restart();
      await back.waitForLog((l) => l.msg === "not sent again: the room's history shows these went out before the crash", 10_000);
      await sleep(500);
      expect(back.logs.some((l) => l.msg === "sending what a crash kept from going out" && l.sessionId === sessionId)).toBe(true);
      // (On a server that keeps no agent's body-less message, the open solution window is also
      // asked again after the absence, as a repeat: that is a new message, not one sent twice.)
      for (const type of ["ModelContributionRequest", "ModelValidationResult", "SolutionRequest"]) expect(human.messages.filter((m) => negotiation(type)(m) && json(m).repeat !== true), type).toHaveLength(1);
      expect(sentTwice(human.messages, room)).toEqual([]);
    },
  },
  archivePastHistory: {
    title: "from the room's archive, more than its history length: 230 lines said while the coordinator was away are all taken in",
    run: async (server, afterThis, options?) => {
      const { room, human, restart, coordinator } = await sceneOf(server, afterThis, {}, options);
      await human.sendGroupchat(room, { body: "a line before the kill" });
      await sleep(300);
      await coordinator().kill();
      for (let i = 0; i < 230; i++) await human.sendGroupchat(room, { body: `line ${i} while nobody listens` });
      await sleep(300);
      const back = await restart();
      // The join's history stops at 200 (the room's history length); the archive does not.
      const line = await back.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("caught up on"), 20_000);
      expect(line).toMatchObject({ caughtUp: 230, from: "archive" });
      expect(back.logs.some((l) => l.msg === "may have missed what the room said while we were away: the server did not keep it")).toBe(false);
    },
  },
  roomSubject: {
    title: "the room it creates gets a subject, which after a restart ends the join's history and is taken for no input; rooms others created keep theirs",
    run: async (server, afterThis, options?) => {
      const { room, human, restart, coordinator } = await sceneOf(server, afterThis, {}, options);
      expect(await coordinator().waitForLog((l) => l.msg === "gave the room we created its subject")).toMatchObject({ room, subject: ROOM_SUBJECT });
      // Whoever joins now is given it at the join, from the coordinator's nick (not "subject cleared").
      const bob = await TestPeer.connect(peerOptions(server, await registerUser(server, "bob")));
      afterThis(() => bob.stop());
      await bob.joinRoom(room, "bob");
      const given = await bob.waitForMessage((m) => m.subject !== undefined);
      expect(given).toMatchObject({ from: `${room}/${COORDINATOR_NICK}`, subject: ROOM_SUBJECT });
      expect(given.body).toBeUndefined();

      // After a restart the room sends the subject from the coordinator's own nick, after what was
      // said meanwhile: it ends the join's history at once (no quiet wait), is not counted among
      // what the room said, and is not set again (the room was not created anew).
      const subjectsSeen = human.messages.filter((m) => m.subject !== undefined).length;
      await coordinator().kill();
      await human.sendGroupchat(room, { body: "a line while it is away" });
      await sleep(300);
      const back = await restart();
      await back.waitForLog(caughtUp(1), 10_000);
      await human.sendGroupchat(room, { body: "help" });
      await human.waitForMessage((m) => m.from === `${room}/${COORDINATOR_NICK}` && (m.body ?? "").includes("runs Model-First Reasoning sessions"), 10_000);
      expect(back.logs.filter((l) => l.msg === "the room sent no subject after its history; taking what came as all of it")).toEqual([]);
      expect(back.logs.filter((l) => l.msg === "gave the room we created its subject")).toEqual([]);
      expect(human.messages.filter((m) => m.subject !== undefined)).toHaveLength(subjectsSeen);

      // Rooms someone else created are left as they are, with a subject of their own or none.
      const owner = await TestPeer.connect(peerOptions(server, await registerUser(server, "owner")));
      afterThis(() => owner.stop());
      const theirs = uniqueRoom(server);
      const plain = uniqueRoom(server);
      await owner.joinRoom(theirs, "owner");
      await owner.joinRoom(plain, "owner");
      await owner.sendRaw(xml("message", { to: theirs, type: "groupchat" }, xml("subject", {}, "The owner's own subject")));
      await owner.waitForMessage((m) => m.from === `${theirs}/owner` && m.subject === "The owner's own subject");
      // On its own store (its data directory, or the one the vitest project gives it), not the scene's.
      const other = await CoordinatorProcess.start({ server, room: theirs, logRoom: plain, mfrConfig: WINDOWS });
      afterThis(() => other.kill());
      await other.joined(theirs);
      await other.joined(plain);
      const carol = await TestPeer.connect(peerOptions(server, await registerUser(server, "carol")));
      afterThis(() => carol.stop());
      await carol.joinRoom(theirs, "carol");
      expect(await carol.waitForMessage((m) => m.subject !== undefined)).toMatchObject({ from: `${theirs}/owner`, subject: "The owner's own subject" });
      await carol.joinRoom(plain, "carol");
      expect((await carol.waitForMessage((m) => m.subject !== undefined && m.from.startsWith(plain))).subject).toBe("");
      expect(other.logs.filter((l) => l.msg === "gave the room we created its subject")).toEqual([]);
    },
  },
} satisfies Record<string, CoreScenario>;

/** How `coreScenarios` registers them: under which title, and on which store. */
export interface CoreScenariosOptions extends ScenarioOptions {
  /** The describe block's title; "core scenarios" by default. */
  title?: string;
}

/** Registers every core scenario against the server `server()` returns (inside tests). */
export function coreScenarios(server: () => LocalProsody, afterThis: AfterThis, options: CoreScenariosOptions = {}): void {
  describe(options.title ?? "core scenarios", () => {
    for (const scenario of Object.values(CORE_SCENARIOS) as CoreScenario[]) {
      it(scenario.title, () => scenario.run(server(), afterThis, options));
    }
  });
}
