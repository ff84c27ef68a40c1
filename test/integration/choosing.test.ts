import { describe, expect, it } from "vitest";
import { LINGUE_FEATURES, MFR, Mode } from "../../src/protocol/vocab.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent, type AgentScript } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();

const PREFIXES = `@prefix agent: <https://tensegrity.it/vocab/agent#> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix schema: <https://schema.org/> .
@prefix mfr: <http://purl.org/stuff/mfr/> .
`;
const PROFILES: Record<string, string> = {
  "prolog.ttl": `${PREFIXES}<#prolog> foaf:nick "Prolog" ; dcterms:description "Logic programming: plans actions under constraints" ;
  agent:hasCapability [ schema:name "planning" ], [ schema:name "constraint solving" ] .`,
  "mistral.ttl": `${PREFIXES}<#mistral> foaf:nick "Mistral" ; dcterms:description "Language model: finds entities and goals in text" ;
  agent:hasCapability [ schema:name "entity extraction" ] .`,
  "data.ttl": `${PREFIXES}<#data> foaf:nick "Data" ; dcterms:description "Knowledge lookup in Wikidata" ;
  agent:hasCapability [ schema:name "sparql query" ] .`,
  "executor.ttl": `${PREFIXES}<#executor> foaf:nick "Executor" ; dcterms:description "Executes plans in the world: delivery dispatch" ;
  agent:hasCapability [ schema:name "plan execution" ], [ schema:name "delivery" ] ; agent:requiresApproval true .`,
  "chair.ttl": `${PREFIXES}<#chair> foaf:nick "Chair" ; agent:role "chair" ; dcterms:description "Chairs debates" .`,
};

const TIMEOUTS = "mfr:contributionTimeout 5000 ; mfr:reasoningTimeout 5000 ; mfr:debateTimeout 5000 ;";

async function setUp(): Promise<{ room: string; human: TestPeer; coordinator: CoordinatorProcess }> {
  const room = uniqueRoom(server());
  const coordinator = await CoordinatorProcess.start({ server: server(), room, mfrConfig: TIMEOUTS, agentProfiles: PROFILES });
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
  afterThis(() => human.stop());
  await human.joinRoom(room, "alice");
  return { room, human, coordinator };
}

async function agent(room: string, nick: string, script: AgentScript): Promise<ScriptedAgent> {
  const a = await ScriptedAgent.join(server(), room, nick, script);
  afterThis(() => a.stop());
  return a;
}

const fromCoordinator = (room: string, pattern: RegExp) => (m: ReceivedMessage) => m.from === `${room}/Coordinator` && pattern.test(m.body ?? "");
const request = (m: ReceivedMessage) => m.payload?.mode === Mode.ModelNegotiation && m.payload.messageType === `${MFR}ModelContributionRequest`;
const completeMsg = (m: ReceivedMessage) => m.payload?.messageType === `${MFR}SessionComplete`;
const json = (m: ReceivedMessage) => m.payload?.json as Record<string, unknown>;

describe("choosing agents over a real room", () => {
  it("a scripted Chair's debate decides who is asked; unknown names are ignored and said so", async () => {
    const { room, human } = await setUp();
    const prolog = await agent(room, "Prolog", { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION });
    await agent(room, "Mistral", { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    const data = await agent(room, "Data", {});
    // The Chair: plain text, as existing Chair agents speak.
    const chair = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "chair")));
    afterThis(() => chair.stop());
    await chair.joinRoom(room, "Chair");
    await new Promise((r) => setTimeout(r, 300)); // presence and disco reach the coordinator

    await human.sendGroupchat(room, { body: "debate Plan the delivery of crates under the truck's capacity constraints" });
    const invitation = await chair.waitForMessage((m) => (m.body ?? "").startsWith("Debate session: "));
    const lines = (invitation.body ?? "").split("\n");
    const sessionId = (lines[0] ?? "").slice("Debate session: ".length);
    expect(lines.slice(1)).toEqual([
      "Issue: Which tools and agents should we use to solve this problem?",
      "Problem: Plan the delivery of crates under the truck's capacity constraints",
      "Available agents: Data, Mistral, Prolog.",
      "Respond with Position/Support/Objection.",
    ]);
    await chair.sendGroupchat(room, { body: "Debate started. Please state your positions." });
    await human.sendGroupchat(room, { body: "Position: Prolog should plan, Mistral should model" });
    await chair.sendGroupchat(room, { body: "Consensus reached: Use prolog, mistral and gpt9 for this problem." });

    const ignored = await human.waitForMessage(fromCoordinator(room, /ignoring "gpt9"/));
    expect(ignored.body).toContain(sessionId);
    const req = await human.waitForMessage(request);
    expect(json(req).requestedAgents).toEqual(["Prolog", "Mistral"]);
    const complete = await human.waitForMessage(completeMsg, 10_000);
    expect(json(complete).status).toBe("solved");
    expect(String(json(complete).summary)).toContain("Agents: Prolog and Mistral (debate led by Chair).");
    expect(prolog.requests).toHaveLength(1);
    expect(data.requests[0]?.requestedAgents).toEqual(["Prolog", "Mistral"]);
  });

  it("without a Chair: selection from the catalog, explained one line per agent", async () => {
    const { room, human } = await setUp();
    await agent(room, "Prolog", { contribution: () => MODELER_TURTLE + PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await agent(room, "Data", {});
    await new Promise((r) => setTimeout(r, 300));
    await human.sendGroupchat(room, { body: "Q: plan the actions under capacity constraints" });
    const note = await human.waitForMessage(fromCoordinator(room, /No Chair/));
    expect(note.body).toContain("choosing agents from the catalog");
    const chosen = await human.waitForMessage(fromCoordinator(room, /agents chosen/));
    expect(chosen.body).toMatch(/\n {2}Prolog: matches .*plan/);
    expect(chosen.body).not.toContain("Data:");
    expect(json(await human.waitForMessage(request)).requestedAgents).toEqual(["Prolog"]);
    expect(json(await human.waitForMessage(completeMsg, 10_000)).status).toBe("solved");
  });

  it("needs clarification when nothing fits; the person who asked answers `use 1,2`", async () => {
    const { room, human, coordinator } = await setUp();
    await agent(room, "Prolog", { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION });
    await agent(room, "Mistral", { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    const bob = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "bob")));
    afterThis(() => bob.stop());
    await bob.joinRoom(room, "bob");
    await new Promise((r) => setTimeout(r, 300));

    await human.sendGroupchat(room, { body: "Q: zyxx qwerty blorp" });
    const question = await human.waitForMessage(fromCoordinator(room, /needs clarification/));
    expect(question.body).toMatch(/\n {2}1\. Mistral: /);
    expect(question.body).toMatch(/\n {2}2\. Prolog: /);
    await bob.sendGroupchat(room, { body: "use all" });
    await bob.waitForMessage(fromCoordinator(room, /No session is waiting for you/));
    await human.sendGroupchat(room, { body: "use 1,2" });
    expect(json(await human.waitForMessage(request)).requestedAgents).toEqual(["Mistral", "Prolog"]);
    expect(json(await human.waitForMessage(completeMsg, 10_000)).status).toBe("solved");
    expect(coordinator.child.exitCode).toBeNull();
  });

  it("an agent that acts in the world is asked only after `approve`", async () => {
    const { room, human } = await setUp();
    await agent(room, "Prolog", { contribution: () => MODELER_TURTLE + PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    const executor = await agent(room, "Executor", {});
    await new Promise((r) => setTimeout(r, 300));
    await human.sendGroupchat(room, { body: "agents" });
    const listing = await human.waitForMessage(fromCoordinator(room, /Executor/));
    expect(listing.body).toMatch(/Executor \(present\).*needs approval/);

    await human.sendGroupchat(room, { body: "Q: plan and execute the delivery under capacity constraints" });
    const ask = await human.waitForMessage(fromCoordinator(room, /acts in the world/));
    const sessionId = /"approve (\S+)"/.exec(ask.body ?? "")?.[1] ?? "";
    await new Promise((r) => setTimeout(r, 300));
    expect(executor.requests).toHaveLength(0);
    await human.sendGroupchat(room, { body: `approve ${sessionId}` });
    const req = await human.waitForMessage(request);
    expect(json(req).requestedAgents).toContain("Executor");
    expect(json(req).sessionId).toBe(sessionId);
  });

  it("an occupant advertising Lingue features is known as an agent without saying anything, and is expected", async () => {
    const { room, human } = await setUp();
    const quiet = await TestPeer.connect({ ...peerOptions(server(), await registerUser(server(), "quiet")), features: [...LINGUE_FEATURES] });
    afterThis(() => quiet.stop());
    await quiet.joinRoom(room, "Quiet");
    await new Promise((r) => setTimeout(r, 300));
    await human.sendGroupchat(room, { body: "agents" });
    const listing = await human.waitForMessage(fromCoordinator(room, /Quiet/));
    expect(listing.body).toMatch(/Quiet \(present\)/);

    await human.sendGroupchat(room, { body: "mfr-start A problem for whoever is here" });
    await quiet.waitForMessage(request);
    const sessionId = String(json(quiet.messages.find(request) as ReceivedMessage).sessionId);
    // It was expected: its contribution alone closes the window at once (the window is 5 s).
    const started = Date.now();
    await quiet.sendGroupchat(room, { payload: { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: MODELER_TURTLE + PLANNER_TURTLE }, siblings: { sessionId } });
    await human.waitForMessage((m) => m.payload?.messageType === `${MFR}ModelValidationResult`);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  itReplaysEveryLoggedSessionAsSent();
});
