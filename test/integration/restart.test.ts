import { writeFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MFR } from "../../src/base/vocab.js";
import { runCli } from "../support/cli.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent, type CoordinatorProcessOptions } from "../support/coordinator-process.js";
import { coreScenarios } from "../support/core-scenarios.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { toldPrivately } from "../support/room-kit.js";
import { onPostgres } from "../support/test-store.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent, type AgentScript } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();

// The scenarios every supported server must carry; test/integration/ejabberd.test.ts runs them on ejabberd.
coreScenarios(server, afterThis);

const negotiation = (type: string) => (m: ReceivedMessage) => m.payload?.messageType === `${MFR}${type}`;
const json = (m: ReceivedMessage) => m.payload?.json as Record<string, unknown>;
const byCoordinator = (room: string, pattern: RegExp) => (m: ReceivedMessage) => m.from === `${room}/Coordinator` && pattern.test(m.body ?? "");

async function scene(mfrConfig: string, scripts: Record<string, AgentScript>) {
  const room = uniqueRoom(server());
  const options: CoordinatorProcessOptions = { server: server(), room, mfrConfig };
  let coordinator = await CoordinatorProcess.start(options);
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
  afterThis(() => human.stop());
  await human.joinRoom(room, "alice");
  const agents: Record<string, ScriptedAgent> = {};
  for (const [nick, script] of Object.entries(scripts)) {
    const a = await ScriptedAgent.join(server(), room, nick, script);
    afterThis(() => a.stop());
    await a.announce();
    agents[nick] = a;
  }
  await new Promise((r) => setTimeout(r, 200));
  /** kill -9, then start again on the same account and data directory. */
  const crashAndRestart = async (downMs = 0) => {
    await coordinator.kill();
    if (downMs) await new Promise((r) => setTimeout(r, downMs));
    coordinator = await coordinator.restart(options);
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    return coordinator;
  };
  return { room, human, agents, crashAndRestart, coordinator: () => coordinator };
}

async function start(human: TestPeer, room: string): Promise<string> {
  await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
  return String(json(await human.waitForMessage(negotiation("ModelContributionRequest"))).sessionId);
}

describe("sessions survive a kill -9 of the coordinator", () => {
  it("in the middle of the contribution window: what arrived before is kept, nothing is asked again", async () => {
    const { room, human, agents, crashAndRestart } = await scene("mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ;", {
      modeler: { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION },
      planner: { solution: () => GOOD_SOLUTION },
    });
    const sessionId = await start(human, room);
    await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    await crashAndRestart();

    await agents.planner?.contribute(sessionId, PLANNER_TURTLE);
    const request = await human.waitForMessage(negotiation("SolutionRequest"), 10_000);
    expect(String(json(request).model)).toContain("Truck 1"); // the modeler's, received before the kill
    const complete = await human.waitForMessage(negotiation("SessionComplete"), 10_000);
    expect(json(complete)).toMatchObject({ sessionId, status: "solved" });
    expect(String(json(complete).summary)).toMatch(/modeler: 3 entities, 1 action[\s\S]*planner: 1 constraint, 1 goal/);
    expect(agents.modeler?.requests).toHaveLength(1);
    expect(human.messages.filter(negotiation("SessionComplete"))).toHaveLength(1);
  });

  it("in the middle of the reasoning window: the proposal received before is kept", async () => {
    const { room, human, agents, crashAndRestart, coordinator } = await scene("mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ;", {
      modeler: { contribution: () => MODELER_TURTLE, solution: () => ({ ...GOOD_SOLUTION, message: "from the modeler" }) },
      planner: { contribution: () => PLANNER_TURTLE },
    });
    const sessionId = await start(human, room);
    await human.waitForMessage(negotiation("SolutionRequest"), 10_000);
    await coordinator().waitForLog((l) => l.msg === "proposal received" && l.agent === "modeler");
    await crashAndRestart();

    await agents.planner?.propose(sessionId, { success: false, message: "from the planner" });
    const complete = await human.waitForMessage(negotiation("SessionComplete"), 10_000);
    expect(json(complete).status).toBe("solved");
    const solutions = json(complete).solutions as Array<{ agent: string; message: string }>;
    expect(solutions.map((s) => s.agent)).toEqual(["modeler", "planner"]);
    expect(solutions[0]?.message).toBe("from the modeler");
    expect(agents.modeler?.solutionRequests).toHaveLength(1);
    // Nothing sent twice: the replayed session did not fall back to an earlier round.
    expect(human.messages.filter(negotiation("ModelContributionRequest"))).toHaveLength(1);
    expect(human.messages.filter(negotiation("SolutionRequest"))).toHaveLength(1);
    expect(human.messages.filter(negotiation("SessionComplete"))).toHaveLength(1);
  });

  it("a deadline that passed while the coordinator was down fires at once after the restart", async () => {
    const { room, human, agents, crashAndRestart } = await scene("mfr:contributionTimeout 1500 ; mfr:reasoningTimeout 8000 ;", {
      modeler: { contribution: () => MODELER_TURTLE + PLANNER_TURTLE, solution: () => GOOD_SOLUTION },
      silent: {},
    });
    const sessionId = await start(human, room);
    await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    await crashAndRestart(2500);
    const report = await human.waitForMessage(byCoordinator(room, new RegExp(`^\\[MFR\\] Session ${sessionId}: the contribution window closed`)), 5000);
    expect(report.body).toContain("nothing from silent");
    const complete = await human.waitForMessage(negotiation("SessionComplete"), 10_000);
    expect(json(complete).status).toBe("solved");
    expect(agents.modeler?.requests).toHaveLength(1);
  });

  it("export writes the session as TriG and JSON, while the coordinator runs", async () => {
    const { room, human, coordinator } = await scene("mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ;", {
      modeler: { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION },
      planner: { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION },
    });
    const sessionId = await start(human, room);
    await human.waitForMessage(negotiation("SessionComplete"), 10_000);
    const out = mkdtempSync(join(tmpdir(), "mfr-export-"));
    const store = coordinator().storeForCli();
    const run = await runCli(["export", sessionId, ...store.args, "--out", out], store.env);
    // One line states how the session ended; nothing else is said.
    expect(run.stderr).toMatch(new RegExp(`^mfr-coordinator: session ${sessionId}: solved at \\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z\n$`));
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n").map((f) => f.slice(out.length + 1))).toEqual([`${sessionId}.trig`, `${sessionId}.validation.json`, `${sessionId}.proposals.json`, `${sessionId}.events.json`]);
    const trig = readFileSync(join(out, `${sessionId}.trig`), "utf8");
    expect(trig).toContain(`<http://purl.org/stuff/mfr/session/${sessionId}/contribution/modeler> {`);
    const history = JSON.parse(readFileSync(join(out, `${sessionId}.events.json`), "utf8")) as { sessionId: string; events: Array<{ input: { kind: string } }> };
    expect(history.sessionId).toBe(sessionId);
    expect(history.events.map((e) => e.input.kind)).toEqual(expect.arrayContaining(["start", "contribution", "analysis", "proposal"]));
  });
});

describe("a bad database stops the start with one clear line", () => {
  const profileEnv = (dataDir: string) => ({ XMPP_PASSWORD: "x", MFR_DATA_DIR: dataDir });

  it("corrupted: refused, and the file is left as it was", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mfr-corrupt-"));
    const garbage = Buffer.from("this is not a database ".repeat(200));
    writeFileSync(join(dir, "mfr-coordinator.sqlite"), garbage);
    const run = await runCli(["start"], profileEnv(dir));
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/not a valid SQLite database or is damaged/);
    expect(readFileSync(join(dir, "mfr-coordinator.sqlite")).equals(garbage)).toBe(true);
  });

  it("unwritable: a data directory that cannot be created", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mfr-unwritable-"));
    writeFileSync(join(dir, "a-file"), "x");
    const run = await runCli(["start"], profileEnv(join(dir, "a-file", "data")));
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/a-file/);
  });

  // SQLite only: the lock is the data directory's. Instances on one PostgreSQL database are
  // meant to run side by side, the leases deciding who speaks (test/fleet/).
  it.skipIf(onPostgres)("locked: a second coordinator on the same data directory is refused", async () => {
    const room = uniqueRoom(server());
    const first = await CoordinatorProcess.start({ server: server(), room });
    afterThis(() => first.kill());
    await first.joined(room);
    const run = await runCli(["start"], profileEnv(join(first.dir, "data")));
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/in use|locked|another/i);
  });

  itReplaysEveryLoggedSessionAsSent();
});
