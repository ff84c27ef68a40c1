/**
 * The two minimal agents of docs/agents.md (examples/agents/minimal-agent.ts, run from dist/,
 * and examples/agents/minimal_agent.py, run by Debian's Python with slixmpp):
 *
 * - each in a real session against the real CLI, over Prosody and over ejabberd: it
 *   contributes a sound formal model, proposes a one-step plan, the coordinator checks it
 *   valid and the session is solved;
 * - each started wrong (AGENT_START_WRONG=1), over both servers: its first contribution
 *   breaks a Violation rule and its first plan is invalid, so the session is solved only if
 *   it answers the fix round and the repair round;
 * - each facing a peer in the coordinator's place that sends protocol messages without a
 *   <body>: it answers them (it dispatches on the Lingue payload), stays quiet in a later
 *   round that does not name it, and answers each (session, kind, round) and origin-id once.
 *
 * The Python agent is given the server as `localhost:<port>`, a host name on a port other than
 * 5222, which slixmpp 1.8 connects to only when told the port twice (see the agent).
 * (Both agents in one session would define the same action twice, once per contribution,
 * and the coordinator could not simulate it: see docs/agents.md.) Without slixmpp the test
 * fails with the install command; it never skips.
 */
import { xml } from "@xmpp/client";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LINGUE, MFR, Mode } from "../../src/base/vocab.js";
import { REPO_ROOT } from "../support/cli.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { useTestEjabberd } from "../support/ejabberd.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody, type LocalProsody } from "../support/prosody.js";
import type { TestServerHandle } from "../support/test-server.js";

/** Debian's Python: python3-slixmpp is installed for it, not for another python3 on PATH. */
const PYTHON = "/usr/bin/python3";
const TS_AGENT = join(REPO_ROOT, "dist", "examples", "agents", "minimal-agent.js");
const PY_AGENT = join(REPO_ROOT, "examples", "agents", "minimal_agent.py");

const MINIMAL_PLAN = ["move(box, shelfA, shelfB)"];
const WRONG_PLAN = ["move(box, shelfB, shelfA)"];
/** The goal of the sound model, and the one of the wrong first contribution, which says nothing. */
const SOUND_GOAL = '<#moved> a mfr:Goal ; rdfs:label "the box is on shelf B" ; mfr:expression "(on box shelfB)" .';
const BARE_GOAL = "<#moved> a mfr:Goal .";
const GOAL_RULE = "Every Goal needs an rdfs:label, rdfs:comment or mfr:expression";
/** The start of the repair round's finding on the wrong plan. */
const STEP_1_FAILED = "Step 1 (move(box, shelfB, shelfA)) is not applicable";

interface Agent {
  /** The program and its arguments. */
  command: string;
  args: string[];
  nick: string;
  /** The service as the agent is given it: the Python agent gets a host name. */
  service: (server: LocalProsody) => string;
}

const AGENTS: Agent[] = [
  { command: process.execPath, args: [TS_AGENT], nick: "Boxer", service: (s) => s.service },
  { command: PYTHON, args: [PY_AGENT], nick: "Shelver", service: (s) => `xmpp://localhost:${s.port}` },
];

function requireAgents(): void {
  const probe = existsSync(PYTHON) ? spawnSync(PYTHON, ["-c", "import slixmpp"], { encoding: "utf8" }) : undefined;
  if (probe?.status !== 0) {
    throw new Error(`slixmpp is missing for ${PYTHON}: apt-get install -y python3-slixmpp (${probe?.stderr.trim() ?? `${PYTHON} not found`})`);
  }
  expect(existsSync(TS_AGENT), `${TS_AGENT} is built by npm run build`).toBe(true);
}

interface AgentProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the agent's output contains `text` (its stdout can trail its stanzas). */
  printed: (text: string) => Promise<void>;
}

type Handle = TestServerHandle<LocalProsody>;

/** Starts an agent program and resolves once it says it joined the room. */
async function startAgent({ server, afterThis }: Handle, agent: Agent, room: string, startWrong: boolean): Promise<AgentProcess> {
  const s = server();
  const account = await registerUser(s, agent.nick);
  const child = spawn(agent.command, agent.args, {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      XMPP_SERVICE: agent.service(s),
      XMPP_DOMAIN: s.domain,
      XMPP_USERNAME: account.username,
      XMPP_PASSWORD: account.password,
      XMPP_PLAIN: "1",
      MFR_ROOM: room,
      AGENT_NICK: agent.nick,
      ...(startWrong ? { AGENT_START_WRONG: "1" } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  afterThis(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
  const printed = async (text: string, timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!output.includes(text)) {
      if (child.exitCode !== null) throw new Error(`${agent.nick} exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`${agent.nick} did not print "${text}" within ${timeoutMs} ms:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await printed(`${agent.nick} joined`, 20_000);
  return { child, output: () => output, printed };
}

const negotiation = (type: string) => (m: ReceivedMessage) => m.payload?.mode === Mode.ModelNegotiation && m.payload.messageType === `${MFR}${type}`;
const json = (m: ReceivedMessage): Record<string, unknown> => m.payload?.json as Record<string, unknown>;
const fromAgent = (room: string, nick: string, mode: string) => (m: ReceivedMessage) => m.from === `${room}/${nick}` && m.type === "groupchat" && m.payload?.mode === mode;
const contributionOf = (room: string, nick: string) => fromAgent(room, nick, Mode.ModelFirstRDF);
const proposalOf = (room: string, nick: string) => (m: ReceivedMessage) => fromAgent(room, nick, Mode.ModelNegotiation)(m) && m.payload?.messageType === `${MFR}SolutionProposal`;
const planOf = (m: ReceivedMessage): unknown => (json(m).solution as { plan?: unknown }).plan;

interface SolutionOut {
  agent: string;
  success: boolean;
  plan?: string[];
  verification?: { verdict: string };
}

interface Session {
  room: string;
  human: TestPeer;
  agent: AgentProcess;
  /** The SessionComplete's payload. */
  complete: { status: string; solutions: SolutionOut[]; summary: string };
}

/** One session in a room of its own with one minimal agent, run to its SessionComplete. */
async function sessionWith(handle: Handle, agent: Agent, startWrong: boolean): Promise<Session> {
  const { server, afterThis } = handle;
  const room = uniqueRoom(server());
  // Short windows: each closes as soon as the one agent asked has answered, else at these.
  const mfrConfig = "mfr:contributionTimeout 15000 ; mfr:reasoningTimeout 15000 ; mfr:validationTimeout 20000 ; mfr:quietPeriod 3000 ;";
  const coordinator = await CoordinatorProcess.start({ server: server(), room, mfrConfig });
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  const running = await startAgent(handle, agent, room, startWrong);
  const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
  afterThis(() => human.stop());
  await human.joinRoom(room, "alice");
  await human.sendGroupchat(room, { body: "mfr-start Move the box from shelf A to shelf B" });
  const complete = await human.waitForMessage(negotiation("SessionComplete"), 60_000);
  return { room, human, agent: running, complete: json(complete) as Session["complete"] };
}

/** What an agent's session must end with: its one plan, the valid one, ranked first; the session solved. */
function expectSolvedBy(session: Session, nick: string): void {
  const { complete } = session;
  expect(complete.status, `${complete.summary}\n${nick}: ${session.agent.output()}`).toBe("solved");
  expect(complete.solutions).toHaveLength(1);
  expect(complete.solutions[0]).toMatchObject({ agent: nick, success: true, plan: MINIMAL_PLAN, verification: { verdict: "valid" } });
  expect(complete.summary).toContain(`${nick}: 3 entities, 1 state variable, 1 action, 1 constraint, 1 goal`);
}

function sessionsOver(name: string, use: () => Handle): void {
  describe(`over ${name}`, () => {
    const handle = use();

    it("each agent models the problem, proposes a plan the coordinator checks valid, and its session is solved without a fix or a repair round", async () => {
      requireAgents();
      const sessions = await Promise.all(AGENTS.map((a) => sessionWith(handle, a, false)));
      for (const [i, session] of sessions.entries()) {
        const nick = AGENTS[i]?.nick ?? "";
        expectSolvedBy(session, nick);
        const { human, room } = session;
        expect(human.messages.filter(negotiation("ModelValidationResult")).map((m) => json(m).conforms)).toEqual([true]);
        expect(human.messages.filter(negotiation("ModelContributionRequest")).map((m) => json(m).round)).toEqual([1]);
        expect(human.messages.filter(negotiation("SolutionRequest")).map((m) => json(m).round)).toEqual([undefined]);
        expect(human.messages.filter(contributionOf(room, nick))).toHaveLength(1);
        expect(human.messages.filter(proposalOf(room, nick))).toHaveLength(1);
      }
    }, 120_000);

    it("each agent started wrong answers the fix round with the sound model and the repair round with the valid plan, and its session is solved", async () => {
      requireAgents();
      const sessions = await Promise.all(AGENTS.map((a) => sessionWith(handle, a, true)));
      for (const [i, session] of sessions.entries()) {
        const nick = AGENTS[i]?.nick ?? "";
        const { human, room } = session;
        const output = session.agent.output();
        // The fix round: the first model broke the goal rule, the agent alone was asked to fix it.
        const validations = human.messages.filter(negotiation("ModelValidationResult")).map(json);
        expect(validations.map((v) => v.conforms), output).toEqual([false, true]);
        expect(validations[0]?.results).toEqual([expect.objectContaining({ severity: "Violation", agent: nick, message: expect.stringContaining(GOAL_RULE) })]);
        const requests = human.messages.filter(negotiation("ModelContributionRequest")).map(json);
        expect(requests.map((r) => r.round)).toEqual([1, 2]);
        expect(requests[1]).toMatchObject({ requestedAgents: [nick], issues: { [nick]: [expect.stringContaining(GOAL_RULE)] } });
        const contributions = human.messages.filter(contributionOf(room, nick)).map((m) => m.payload?.content ?? "");
        expect(contributions).toHaveLength(2);
        expect(contributions[0]).toContain(BARE_GOAL);
        expect(contributions[1]).toContain(SOUND_GOAL);
        await session.agent.printed(`${nick} asked in ModelContributionRequest round 2: ${GOAL_RULE}`);
        // The repair round: the first plan failed the check, the agent alone was asked to repair it.
        const solutionRequests = human.messages.filter(negotiation("SolutionRequest")).map(json);
        expect(solutionRequests.map((r) => r.round)).toEqual([undefined, 2]);
        expect(solutionRequests[1]).toMatchObject({ requestedAgents: [nick], issues: { [nick]: expect.arrayContaining([expect.stringContaining(STEP_1_FAILED)]) } });
        expect(human.messages.filter(proposalOf(room, nick)).map(planOf)).toEqual([WRONG_PLAN, MINIMAL_PLAN]);
        await session.agent.printed(`${nick} asked in SolutionRequest round 2: ${STEP_1_FAILED}`);
        // The repaired proposal replaced the invalid one, checked valid; the model is the fixed one.
        expectSolvedBy(session, nick);
      }
    }, 120_000);
  });
}

sessionsOver("Prosody", () => useTestProsody());
sessionsOver("ejabberd 23.01", () => useTestEjabberd());

describe("a peer in the coordinator's place, sending every request without a <body>", () => {
  const handle = useTestProsody();

  /** A ModelNegotiation message as the coordinator sends it, minus the body; `originId` as XEP-0359. */
  async function request(host: TestPeer, room: string, content: Record<string, unknown>, originId: string): Promise<void> {
    const messageType = String(content.messageType);
    await host.sendRaw(
      xml(
        "message",
        { to: room, type: "groupchat", id: originId },
        xml("payload", { xmlns: LINGUE, mime: "application/json", mode: Mode.ModelNegotiation, messageType }, JSON.stringify(content)),
        xml("sessionId", { xmlns: LINGUE }, String(content.sessionId)),
        xml("origin-id", { xmlns: "urn:xmpp:sid:0", id: originId }),
      ),
    );
  }

  async function exchange(agent: Agent): Promise<void> {
    const { server, afterThis } = handle;
    const { nick } = agent;
    const room = uniqueRoom(server());
    const host = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "host")));
    afterThis(() => host.stop());
    await host.joinRoom(room, "Host");
    const running = await startAgent(handle, agent, room, true);
    const contributions = (): ReceivedMessage[] => host.messages.filter(contributionOf(room, nick));
    const proposals = (): ReceivedMessage[] => host.messages.filter(proposalOf(room, nick));
    const contributionRequest = (sessionId: string, round: number, more: Record<string, unknown> = {}) => ({
      messageType: `${MFR}ModelContributionRequest`,
      sessionId,
      problemDescription: "Move the box from shelf A to shelf B",
      requestedContributions: [`${MFR}EntityDiscovery`],
      round,
      ...more,
    });
    const solutionRequest = (sessionId: string, more: Record<string, unknown> = {}) => ({ messageType: `${MFR}SolutionRequest`, sessionId, model: "", ...more });
    const wait = (predicate: (m: ReceivedMessage) => boolean) => host.waitForMessage(predicate, 10_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${nick}: ${running.output()}`);
    });

    // Round 1, no body: answered with the (wrong) first model, the session id as a sibling.
    await request(host, room, contributionRequest("s-1", 1), "mfr:s-1:1:0");
    const first = await wait(contributionOf(room, nick));
    expect(first.siblings.sessionId).toBe("s-1");
    expect(first.payload?.content).toContain(BARE_GOAL);
    // The same origin-id again (whatever it says), the same round again under a new id, and a
    // fix round for someone else: all unanswered. Then a fix round that names the agent.
    await request(host, room, contributionRequest("s-2", 1), "mfr:s-1:1:0");
    await request(host, room, contributionRequest("s-1", 1), "mfr:s-1:1:1");
    await request(host, room, contributionRequest("s-1", 2, { requestedAgents: ["Someone"], issues: { Someone: ["fix yours"] } }), "mfr:s-1:2:0");
    await request(host, room, contributionRequest("s-1", 2, { requestedAgents: [nick], issues: { [nick]: ["the goal says nothing"] } }), "mfr:s-1:3:0");
    const fixed = await wait((m) => contributionOf(room, nick)(m) && m !== first);
    expect(fixed.siblings.sessionId).toBe("s-1");
    expect(fixed.payload?.content).toContain(SOUND_GOAL);
    expect(contributions()).toHaveLength(2);
    await running.printed(`${nick} asked in ModelContributionRequest round 2: the goal says nothing`);
    expect(running.output()).not.toContain("fix yours");

    // The solution request, then a repair round for someone else, then one that names the agent.
    await request(host, room, solutionRequest("s-1"), "mfr:s-1:4:0");
    const plan = await wait(proposalOf(room, nick));
    expect(json(plan)).toMatchObject({ messageType: `${MFR}SolutionProposal`, sessionId: "s-1", solution: { success: true, plan: WRONG_PLAN } });
    expect(plan.payload?.attrs.messageType).toBe(`${MFR}SolutionProposal`);
    expect(plan.siblings.sessionId).toBe("s-1");
    await request(host, room, solutionRequest("s-1", { round: 2, requestedAgents: ["Someone"], issues: { Someone: ["repair yours"] } }), "mfr:s-1:5:0");
    await request(host, room, solutionRequest("s-1", { round: 2, requestedAgents: [nick], issues: { [nick]: ["step 1 failed: (on box shelfB) is false"] } }), "mfr:s-1:6:0");
    const repaired = await wait((m) => proposalOf(room, nick)(m) && m !== plan);
    expect(planOf(repaired)).toEqual(MINIMAL_PLAN);
    expect(proposals()).toHaveLength(2);
    expect(contributions()).toHaveLength(2);
    await running.printed(`${nick} asked in SolutionRequest round 2: step 1 failed`);
    expect(running.output()).not.toContain("repair yours");
    // No stanza the agent sent had to carry a body for this: only the payload was read.
    expect(host.messages.filter((m) => m.from === `${room}/Host`).every((m) => m.body === undefined)).toBe(true);
  }

  it("each agent answers body-less requests by their payload, the later rounds that name it only, each (session, kind, round) and origin-id once", async () => {
    requireAgents();
    await Promise.all(AGENTS.map((a) => exchange(a)));
  }, 60_000);
});

itReplaysEveryLoggedSessionAsSent(8);
