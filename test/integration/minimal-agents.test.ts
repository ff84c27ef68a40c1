/**
 * The two minimal agents of docs/agents.md (examples/agents/minimal-agent.ts, run from dist/,
 * and examples/agents/minimal_agent.py, run by Debian's Python with slixmpp) in a real
 * session each, against the real CLI over a real Prosody: the agent contributes a sound
 * formal model, proposes a one-step plan, the coordinator checks it valid and the session is
 * solved. (Both in one session would define the same action twice, once per contribution,
 * and the coordinator could not simulate it: see docs/agents.md.) Without slixmpp the test fails with the install command; it never skips.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MFR, Mode } from "../../src/protocol/vocab.js";
import { REPO_ROOT } from "../support/cli.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody, type TestAccount } from "../support/prosody.js";

/** Debian's Python: python3-slixmpp is installed for it, not for another python3 on PATH. */
const PYTHON = "/usr/bin/python3";
const TS_AGENT = join(REPO_ROOT, "dist", "examples", "agents", "minimal-agent.js");
const PY_AGENT = join(REPO_ROOT, "examples", "agents", "minimal_agent.py");

const { server, afterThis } = useTestProsody();

function requireSlixmpp(): void {
  const probe = existsSync(PYTHON) ? spawnSync(PYTHON, ["-c", "import slixmpp"], { encoding: "utf8" }) : undefined;
  if (probe?.status !== 0) {
    throw new Error(`slixmpp is missing for ${PYTHON}: apt-get install -y python3-slixmpp (${probe?.stderr.trim() ?? `${PYTHON} not found`})`);
  }
}

interface AgentProcess {
  child: ChildProcess;
  output: () => string;
}

/** Starts an agent program and resolves once it says it joined the room. */
async function startAgent(command: string, args: string[], account: TestAccount, room: string, nick: string): Promise<AgentProcess> {
  const s = server();
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      XMPP_SERVICE: s.service,
      XMPP_DOMAIN: s.domain,
      XMPP_USERNAME: account.username,
      XMPP_PASSWORD: account.password,
      XMPP_PLAIN: "1",
      MFR_ROOM: room,
      AGENT_NICK: nick,
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
  const deadline = Date.now() + 20_000;
  while (!output.includes(`${nick} joined`)) {
    if (child.exitCode !== null) throw new Error(`${nick} exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`${nick} did not join within 20 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => output };
}

const negotiation = (type: string) => (m: ReceivedMessage) => m.payload?.mode === Mode.ModelNegotiation && m.payload.messageType === `${MFR}${type}`;

interface SolutionOut {
  agent: string;
  success: boolean;
  plan?: string[];
  verification?: { verdict: string };
}

/** One session in a room of its own with one minimal agent: the SessionComplete's payload. */
async function sessionWith(command: string, args: string[], nick: string): Promise<{ status: string; solutions: SolutionOut[]; summary: string; output: string }> {
  const room = uniqueRoom(server());
  const coordinator = await CoordinatorProcess.start({ server: server(), room, mfrConfig: "mfr:contributionTimeout 15000 ; mfr:reasoningTimeout 15000 ; mfr:validationTimeout 20000 ;" });
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  const agent = await startAgent(command, args, await registerUser(server(), nick), room, nick);

  const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
  afterThis(() => human.stop());
  await human.joinRoom(room, "alice");
  await new Promise((r) => setTimeout(r, 300)); // the agent's announcement reaches the coordinator first

  await human.sendGroupchat(room, { body: "mfr-start Move the box from shelf A to shelf B" });
  const validation = await human.waitForMessage(negotiation("ModelValidationResult"), 30_000);
  expect((validation.payload?.json as { conforms: boolean }).conforms).toBe(true);
  const complete = await human.waitForMessage(negotiation("SessionComplete"), 40_000);
  return { ...(complete.payload?.json as { status: string; solutions: SolutionOut[]; summary: string }), output: agent.output() };
}

describe("the minimal agents of docs/agents.md", () => {
  it("the TypeScript agent and the Python agent each model the problem, propose a plan the coordinator checks valid, and their sessions are solved", async () => {
    requireSlixmpp();
    expect(existsSync(TS_AGENT), `${TS_AGENT} is built by npm run build`).toBe(true);
    const [ts, py] = await Promise.all([sessionWith(process.execPath, [TS_AGENT], "Boxer"), sessionWith(PYTHON, [PY_AGENT], "Shelver")]);
    for (const [nick, body] of [["Boxer", ts], ["Shelver", py]] as const) {
      expect(body.status, `${body.summary}\n${nick}: ${body.output}`).toBe("solved");
      expect(body.solutions).toHaveLength(1);
      expect(body.solutions[0]).toMatchObject({ agent: nick, success: true, plan: ["move(box, shelfA, shelfB)"], verification: { verdict: "valid" } });
      expect(body.summary).toContain(`${nick}: 3 entities, 1 state variable, 1 action, 1 constraint, 1 goal`);
    }
  }, 120_000);

  itReplaysEveryLoggedSessionAsSent(2);
});
