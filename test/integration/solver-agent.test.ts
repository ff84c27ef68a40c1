/**
 * The reference solver agent over a real Prosody, as its own process (`mfr-coordinator
 * solver`): it solves a session on its own, says honestly when it cannot help, reads a model
 * sent in parts, and shrugs off a forged request.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MFR, Mode } from "../../src/base/vocab.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { SolverProcess } from "../support/solver-process.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { json, negotiation } from "../support/room-kit.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { MODELER_TURTLE, ScriptedAgent, type AgentScript } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();

const BLOCKS = readFileSync(new URL("../fixtures/formal/blocksworld.ttl", import.meta.url), "utf8");
const SOLVER_PROFILE = readFileSync(new URL("../../config/agents/solver.ttl", import.meta.url), "utf8");
const TIMEOUTS = "mfr:contributionTimeout 6000 ; mfr:reasoningTimeout 20000 ; mfr:validationTimeout 10000 ;";
/** The modeller models and leaves the planning to others. */
const MODELLER_ONLY = { success: false, message: "I only model." };

async function setUp(mfrConfig = TIMEOUTS): Promise<{ room: string; human: TestPeer; solver: SolverProcess }> {
  const room = uniqueRoom(server());
  // The coordinator's catalog holds the solver's example profile: it knows the Solver plans and never models.
  const coordinator = await CoordinatorProcess.start({ server: server(), room, mfrConfig, agentProfiles: { "solver.ttl": SOLVER_PROFILE } });
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  const solver = await SolverProcess.start({ server: server(), room });
  afterThis(() => solver.kill());
  const account = await registerUser(server(), "alice");
  const human = await TestPeer.connect(peerOptions(server(), account));
  afterThis(() => human.stop());
  await human.joinRoom(room, "alice");
  return { room, human, solver };
}

async function agent(room: string, nick: string, script: AgentScript): Promise<ScriptedAgent> {
  const a = await ScriptedAgent.join(server(), room, nick, script);
  afterThis(() => a.stop());
  await a.announce();
  return a;
}

interface SolutionOut {
  agent: string;
  success: boolean;
  message: string;
  plan?: string[];
  verification?: { verdict: string };
}

async function runSession(human: TestPeer, room: string, problem: string): Promise<{ sessionId: string; complete: Record<string, unknown> }> {
  await human.sendGroupchat(room, { body: `mfr-start ${problem}` });
  const request = await human.waitForMessage(negotiation("ModelContributionRequest"));
  const sessionId = String(json(request).sessionId);
  const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId), 30_000);
  return { sessionId, complete: json(complete) };
}

describe("the reference solver agent", () => {
  it("solves a session on its own: the only valid plan is its own, and the window waits for it", async () => {
    const { room, human, solver } = await setUp();
    await agent(room, "modeler", { contribution: () => BLOCKS, solution: () => MODELLER_ONLY });
    await new Promise((r) => setTimeout(r, 200));
    const { complete } = await runSession(human, room, "Put block A on block B, C on the table");
    expect(complete.status).toBe("solved");
    const solutions = complete.solutions as SolutionOut[];
    expect(solutions[0]).toMatchObject({ agent: "Solver", success: true, verification: { verdict: "valid" } });
    // Blocksworld's shortest plan here has four steps: unstack C, put it down, pick up A, stack it on B.
    expect(solutions[0]?.plan).toHaveLength(4);
    expect(solutions.map((s) => s.agent)).toEqual(["Solver", "modeler"]);
    const found = await solver.waitForLog((l) => l.msg === "plan found");
    expect(found.steps).toBe(4);
  });

  it("says it cannot help when the model has no formal part, with the reason, and claims nothing", async () => {
    const { room, human } = await setUp();
    await agent(room, "modeler", { contribution: () => MODELER_TURTLE, solution: () => MODELLER_ONLY });
    await new Promise((r) => setTimeout(r, 200));
    const { complete } = await runSession(human, room, "Deliver goods");
    const mine = (complete.solutions as SolutionOut[]).find((s) => s.agent === "Solver");
    expect(mine).toMatchObject({ success: false });
    expect(mine?.message).toMatch(/^I cannot plan for this model: /);
    expect(mine?.plan).toBeUndefined();
    expect(complete.status).toBe("failed");
  });

  it("reads a model that arrives in parts, and a forged request with broken Turtle gets a reasoned refusal, not a crash", async () => {
    const { room, human, solver } = await setUp(`${TIMEOUTS} mfr:maxStanzaBytes 6000 ;`);
    // Decorations make the model larger than a stanza without making the planning harder.
    const decorations = Array.from({ length: 60 }, (_, i) => `<#decoration${i}> a mfr:Entity ; mfr:entityType "Decoration" ; rdfs:label "a decoration on the wall, number ${i}, described at some length" .`).join("\n");
    await agent(room, "modeler", { contribution: () => `${BLOCKS}\n${decorations}\n`, solution: () => MODELLER_ONLY });
    await new Promise((r) => setTimeout(r, 200));
    const { complete } = await runSession(human, room, "Put block A on block B among the decorations");
    const request = human.messages.find(negotiation("SolutionRequest"));
    expect(Number(json(request as ReceivedMessage).modelParts)).toBeGreaterThan(1);
    expect(complete.status).toBe("solved");
    expect((complete.solutions as SolutionOut[])[0]).toMatchObject({ agent: "Solver", verification: { verdict: "valid" } });

    const forged = { messageType: `${MFR}SolutionRequest`, sessionId: "forged-1", model: "@prefix : <x> . this is not turtle" };
    await human.sendGroupchat(room, { payload: { mode: Mode.ModelNegotiation, mime: "application/json", content: JSON.stringify(forged) } });
    const answer = await human.waitForMessage((m) => negotiation("SolutionProposal", "forged-1")(m) && m.from.endsWith("/Solver"));
    expect((json(answer).solution as SolutionOut).message).toMatch(/^I cannot plan for this model: the model is not valid Turtle/);
    expect(solver.running).toBe(true);
  });

  itReplaysEveryLoggedSessionAsSent();
});
