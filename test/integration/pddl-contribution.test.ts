/**
 * Agents that contribute a PDDL model, over a real Prosody with the coordinator from dist/:
 * the reference solver started with `--pddl DOMAIN PROBLEM` models and plans a session on its
 * own (this one needs the PDDL importer of src/planning/pddl-import), and the example agent's contribution
 * goes in parts when it is larger than its stanza limit, and the coordinator puts it together.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ExampleAgent } from "../../examples/agents/example-agent.js";
import { simulatePlan } from "../../src/formal/simulate.js";
import { PddlContributor } from "../../src/agents/pddl-contribution/index.js";
import { importPddl } from "../../src/planning/pddl-import/index.js";
import { REPO_ROOT } from "../support/cli.js";
import { CoordinatorProcess } from "../support/coordinator-process.js";
import { TestPeer } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { json, negotiation } from "../support/room-kit.js";
import { ScriptedAgent } from "../support/scripted-agent.js";
import { SolverProcess } from "../support/solver-process.js";

const { server, afterThis } = useTestProsody();

const PDDL = join(REPO_ROOT, "test", "fixtures", "pddl");
const DOMAIN = join(PDDL, "blocksworld-domain.pddl");
const PROBLEM = join(PDDL, "blocksworld-problem.pddl");
const BLOCKS = readFileSync(new URL("../fixtures/formal/blocksworld.ttl", import.meta.url), "utf8");
const TIMEOUTS = "mfr:contributionTimeout 6000 ; mfr:reasoningTimeout 20000 ; mfr:validationTimeout 10000 ;";
/** An agent that only listens: it contributes nothing and plans nothing of its own. */
const BYSTANDER = { solution: () => ({ success: false, message: "I only listen." }) };

interface SolutionOut {
  agent: string;
  success: boolean;
  plan?: string[];
  verification?: { verdict: string };
}

async function room(): Promise<{ room: string; human: TestPeer }> {
  const name = uniqueRoom(server());
  const coordinator = await CoordinatorProcess.start({ server: server(), room: name, mfrConfig: TIMEOUTS });
  afterThis(() => coordinator.kill());
  await coordinator.joined(name);
  const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
  afterThis(() => human.stop());
  await human.joinRoom(name, "alice");
  return { room: name, human };
}

async function bystander(name: string): Promise<void> {
  const agent = await ScriptedAgent.join(server(), name, "bystander", BYSTANDER);
  afterThis(() => agent.stop());
  await agent.announce();
}

async function solvedSession(human: TestPeer, name: string, problem: string): Promise<{ sessionId: string; solutions: SolutionOut[] }> {
  await human.sendGroupchat(name, { body: `mfr-start ${problem}` });
  const request = await human.waitForMessage(negotiation("ModelContributionRequest"));
  const sessionId = String(json(request).sessionId);
  const complete = json(await human.waitForMessage(negotiation("SessionComplete", sessionId), 40_000));
  expect(complete.status, JSON.stringify(complete)).toBe("solved");
  return { sessionId, solutions: complete.solutions as SolutionOut[] };
}

describe("a PDDL model contributed by an agent", () => {
  // Waits for the PDDL importer (src/planning/pddl-import): until it lands, the solver refuses the pair at start.
  it("the reference solver with --pddl contributes the blocksworld model and solves the session with a valid plan", async () => {
    const { room: name, human } = await room();
    const solver = await SolverProcess.start({ server: server(), room: name, args: ["--pddl", DOMAIN, PROBLEM] });
    afterThis(() => solver.kill());
    await bystander(name);
    const { solutions } = await solvedSession(human, name, "Stack A on B on C; C starts on A.");
    await solver.waitForLog((l) => l.msg === "contributing the PDDL model");
    const best = solutions[0];
    expect(best).toMatchObject({ agent: "Solver", success: true, verification: { verdict: "valid" } });
    // unstack c a, put-down c, pick-up b, stack b c, pick-up a, stack a b: no shorter plan exists.
    expect(best?.plan).toHaveLength(6);
    // The plan is valid on the imported model itself, not only on what the room merged.
    const imported = importPddl(readFileSync(DOMAIN, "utf8"), readFileSync(PROBLEM, "utf8"));
    if (!imported.ok) throw new Error(imported.refusal.message);
    expect(simulatePlan(imported.model, best?.plan ?? []).verdict).toBe("valid");
  });

  it("the example agent sends a contribution larger than its stanza limit in parts, and the session is solved on their union", async () => {
    const { room: name, human } = await room();
    const solver = await SolverProcess.start({ server: server(), room: name });
    afterThis(() => solver.kill());
    const account = await registerUser(server(), "modeler");
    // A limit far below the model's size, so the contribution must go in several parts.
    const contributor = new PddlContributor(BLOCKS, { nick: "modeler", maxStanzaBytes: 1_500 });
    const modeler = new ExampleAgent({ ...peerOptions(server(), account), room: name, nick: "modeler", script: { contribution: () => undefined, solution: () => undefined }, contributor, thinkMs: 20 });
    afterThis(() => modeler.stop());
    await modeler.start();
    await human.waitForMessage((m) => m.from === `${name}/modeler`);
    const { sessionId, solutions } = await solvedSession(human, name, "Put block A on block B, C on the table");
    const parts = human.messages.filter((m) => m.from === `${name}/modeler` && m.siblings.sessionId === sessionId && m.siblings.modelPart !== undefined);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.map((m) => m.siblings.modelPart)).toEqual(parts.map((_, i) => `${i + 1}/${parts.length}`));
    expect(solutions[0]).toMatchObject({ agent: "Solver", success: true, verification: { verdict: "valid" } });
    expect(solutions[0]?.plan).toHaveLength(4);
  });
});
