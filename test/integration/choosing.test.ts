import { describe, expect, it } from "vitest";
import { LINGUE_FEATURES, MFR, Mode } from "../../src/base/vocab.js";
import { EVIDENCE_FLUSH_MS } from "../../src/agent-choice/evidence-batch.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent, type AgentScript } from "../support/scripted-agent.js";
import { ScriptedChair } from "../support/scripted-chair.js";
import { toldPrivately } from "../support/room-kit.js";

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

async function setUp(agentProfiles: Record<string, string> = PROFILES, mfrConfig = TIMEOUTS): Promise<{ room: string; human: TestPeer; coordinator: CoordinatorProcess }> {
  const room = uniqueRoom(server());
  const coordinator = await CoordinatorProcess.start({ server: server(), room, mfrConfig, agentProfiles });
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

/** A peer that behaves like the existing open-source agents: no profile, no features, woken by its nick. */
async function existingAgent(room: string, nick: string, script: AgentScript): Promise<ScriptedAgent> {
  return agent(room, nick, { ...script, answersMentions: true });
}

/** A line of the coordinator's in the room, as sent (status mark included), its no-break spaces read as spaces. */
const fromCoordinator = (room: string, pattern: RegExp) => (m: ReceivedMessage) => m.from === `${room}/Coordinator` && pattern.test(spaced(m.body));
const spaced = (body: string | undefined) => (body ?? "").replace(/\u00a0/g, " ");
const request = (m: ReceivedMessage) => m.payload?.mode === Mode.ModelNegotiation && m.payload.messageType === `${MFR}ModelContributionRequest`;
const completeMsg = (m: ReceivedMessage) => m.payload?.messageType === `${MFR}SessionComplete`;
const json = (m: ReceivedMessage) => m.payload?.json as Record<string, unknown>;

describe("choosing agents over a real room", () => {
  it("a Chair with a profile: its debate decides who is asked; a name that matches nobody is said so", async () => {
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
    const invitation = await chair.waitForMessage((m) => (m.body ?? "").startsWith("Session: "));
    const lines = (invitation.body ?? "").split("\n");
    const sessionId = (lines[0] ?? "").slice("Session: ".length);
    expect(lines.slice(1)).toEqual([
      "Issue: Which tools and agents should we use to solve this problem?",
      "Problem: Plan the delivery of crates under the truck's capacity constraints",
      "Available agents: Data, Mistral, Prolog.",
      "Respond with Position/Support/Objection.",
    ]);
    await chair.sendGroupchat(room, { body: "Debate started. Please state your positions." });
    await human.sendGroupchat(room, { body: "Position: Prolog should plan, Mistral should model" });
    await chair.sendGroupchat(room, { body: "Consensus reached: Use prolog, mistral and gpt9 for this problem." });

    const mapped = await human.waitForMessage(fromCoordinator(room, /from the consensus/));
    expect(mapped.body).toBe(`[MFR] Session ${sessionId}: from the consensus, "prolog" is Prolog; "mistral" is Mistral; "gpt9" matched nobody.`);
    const req = await human.waitForMessage(request);
    expect(json(req).requestedAgents).toEqual(["Prolog", "Mistral"]);
    const complete = await human.waitForMessage(completeMsg, 10_000);
    expect(json(complete).status).toBe("solved");
    expect(String(json(complete).summary)).toContain("Agents: Prolog and Mistral (debate led by Chair).");
    expect(prolog.requests).toHaveLength(1);
    expect(data.requests[0]?.requestedAgents).toEqual(["Prolog", "Mistral"]);
  });

  it("kill -9 in the debate: the Chair's consensus said while the coordinator was down decides who is asked", async () => {
    const room = uniqueRoom(server());
    const options = { server: server(), room, mfrConfig: "mfr:contributionTimeout 5000 ; mfr:reasoningTimeout 5000 ; mfr:debateTimeout 8000 ;", agentProfiles: PROFILES };
    let coordinator = await CoordinatorProcess.start(options);
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
    afterThis(() => human.stop());
    await human.joinRoom(room, "alice");
    await agent(room, "Prolog", { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION });
    await agent(room, "Mistral", { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await agent(room, "Data", {});
    const chair = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "chair")));
    afterThis(() => chair.stop());
    await chair.joinRoom(room, "Chair");
    await new Promise((r) => setTimeout(r, 300));

    await human.sendGroupchat(room, { body: "debate Plan the delivery of crates under the truck's capacity constraints" });
    await chair.waitForMessage((m) => (m.body ?? "").startsWith("Session: "));
    await chair.sendGroupchat(room, { body: "Debate started. Please state your positions." });
    await new Promise((r) => setTimeout(r, 300));
    await coordinator.kill();
    // While nobody coordinates, the Chair concludes.
    await chair.sendGroupchat(room, { body: "Consensus reached: Use prolog and mistral for this problem." });
    await new Promise((r) => setTimeout(r, 300));
    coordinator = await coordinator.restart(options);
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);

    // Decided by the consensus, not by the debate's deadline falling back to a selection.
    await human.waitForMessage(fromCoordinator(room, /from the consensus, "prolog" is Prolog; "mistral" is Mistral/), 10_000);
    const req = await human.waitForMessage(request, 10_000);
    expect(json(req).requestedAgents).toEqual(["Prolog", "Mistral"]);
    expect(json(await human.waitForMessage(completeMsg, 15_000)).status).toBe("solved");
  });

  it("without a Chair: selection from the catalog, explained one line per agent", async () => {
    const { room, human } = await setUp();
    await agent(room, "Prolog", { contribution: () => MODELER_TURTLE + PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await agent(room, "Data", {});
    await new Promise((r) => setTimeout(r, 300));
    await human.sendGroupchat(room, { body: "Q: plan the actions under capacity constraints" });
    const note = await human.waitForMessage(fromCoordinator(room, /No Chair/));
    expect(note.body).toBe("[MFR] No Chair (Chair) is in the room; choosing agents from the room.");
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
    // bob typed a command: a person, not an occupant that might be an agent.
    await bob.sendGroupchat(room, { body: "mfr-list" });
    await bob.waitForMessage(fromCoordinator(room, /No sessions yet|Sessions, newest first/));

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

  it("existing agents and an existing Chair: `debate` ends in a request to exactly the agents the Chair named, and nobody is woken by the way", async () => {
    const { room, human, coordinator } = await setUp({});
    const prolog = await existingAgent(room, "Prolog", { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION });
    const semantic = await existingAgent(room, "MfrSemantic", { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    const chair = await ScriptedChair.join(server(), room, { consensus: "Noted. Consensus reached: Use prolog, semantic for this problem." });
    afterThis(() => chair.stop());
    await new Promise((r) => setTimeout(r, 300)); // presence reaches the coordinator

    await human.sendGroupchat(room, { body: "debate Plan the delivery of crates under the truck's capacity" });
    const req = await human.waitForMessage(request, 10_000);
    const sessionId = String(json(req).sessionId);
    expect(json(req).requestedAgents).toEqual(["Prolog", "MfrSemantic"]);

    // The Chair read one line of the coordinator's before its consensus: the invitation, as docs/protocol.md gives it.
    expect(chair.heardFrom(`${room}/Coordinator`).map((m) => m.body)).toEqual([
      [
        `Session: ${sessionId}`,
        "Issue: Which tools and agents should we use to solve this problem?",
        "Problem: Plan the delivery of crates under the truck's capacity",
        "Available agents: MfrSemantic, Prolog.",
        "Respond with Position/Support/Objection.",
      ].join("\n"),
    ]);
    const mapped = await human.waitForMessage(fromCoordinator(room, /from the consensus/));
    expect(mapped.body).toBe(`[MFR] Session ${sessionId}: from the consensus, "prolog" is Prolog; "semantic" is MfrSemantic.`);
    // The invitation names the agents (Chairs must read it); no other line of the choosing woke them.
    const byCoordinator = (a: ScriptedAgent) => a.triggers.filter((m) => m.from === `${room}/Coordinator`).map((m) => m.body?.split("\n")[0]);
    for (const agent of [prolog, semantic]) expect(byCoordinator(agent)).toEqual([`Session: ${sessionId}`]);
    expect(json(await human.waitForMessage(completeMsg, 15_000)).status).toBe("solved");
    await coordinator.waitForLog((l) => String(l.msg).startsWith("agent evidence: MfrSemantic named in the consensus"));
  });

  it("a room of agents nobody knows anything about gets a selection, not a failure, and `agents` says who might be one", async () => {
    const { room, human, coordinator } = await setUp({});
    const prolog = await existingAgent(room, "Prolog", { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION });
    const semantic = await existingAgent(room, "MfrSemantic", { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await new Promise((r) => setTimeout(r, 300));

    await human.sendGroupchat(room, { body: "agents" });
    const listing = (await human.waitForMessage(fromCoordinator(room, /^\[MFR\] Agents:/))).body ?? "";
    expect(listing.split("\n").slice(0, 3)).toEqual([
      "[MFR] Agents: 2 in the room, 0 known but away.",
      "- MfrSemantic (present): no profile — evidence: no evidence yet; not known as a person, so it might be an agent",
      "- Prolog (present): no profile — evidence: no evidence yet; not known as a person, so it might be an agent",
    ]);

    await human.sendGroupchat(room, { body: "Q: Plan the delivery of crates under the truck's capacity" });
    const req = await human.waitForMessage(request, 10_000);
    const sessionId = String(json(req).sessionId);
    expect(json(req).requestedAgents).toEqual(["MfrSemantic", "Prolog"]);
    const why = await human.waitForMessage(fromCoordinator(room, /might be an agent/));
    expect(why.body).toBe(`[MFR] Session ${sessionId}: none of the agents in the room says what it can do, so I ask every occupant that might be an agent: MfrSemantic and Prolog.`);
    expect(prolog.triggers).toEqual([]);
    expect(semantic.triggers).toEqual([]);
    expect(json(await human.waitForMessage(completeMsg, 15_000)).status).toBe("solved");
    const asked = await coordinator.waitForLog((l) => l.msg === "agents that may be asked");
    expect(asked.candidates).toEqual([
      { nick: "MfrSemantic", evidence: ["might be an agent"], contributions: 0, proposals: 0 },
      { nick: "Prolog", evidence: ["might be an agent"], contributions: 0, proposals: 0 },
    ]);
  });

  // Evidence is written a batch at a time (agent-choice/evidence-batch.ts): a stop writes what is
  // pending, and a kill -9 loses no more than the last EVIDENCE_FLUSH_MS of it.
  const endings: Array<[string, (first: CoordinatorProcess) => Promise<void>]> = [
    [
      "stopped at once",
      async (first) => {
        await first.terminate();
      },
    ],
    [
      "killed with SIGKILL a moment after the flush delay",
      async (first) => {
        await new Promise((r) => setTimeout(r, EVIDENCE_FLUSH_MS + 500));
        await first.kill();
      },
    ],
  ];
  it.each(endings)("evidence survives a restart (%s): an agent that contributed before is known as one before it says anything", async (_how, end) => {
    const room = uniqueRoom(server());
    const options = { server: server(), room, mfrConfig: TIMEOUTS };
    const first = await CoordinatorProcess.start(options);
    afterThis(() => first.kill());
    await first.joined(room);
    const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
    afterThis(() => human.stop());
    await human.joinRoom(room, "alice");
    // It contributes and proposes nothing: had it answered the SolutionRequest, a restart slower
    // than the contribution window would add a proposal to what is checked below.
    const semantic = await existingAgent(room, "MfrSemantic", { contribution: () => MODELER_TURTLE + PLANNER_TURTLE });
    await existingAgent(room, "Prolog", {});
    await new Promise((r) => setTimeout(r, 300));
    await human.sendGroupchat(room, { body: "mfr-start Plan the delivery" });
    await semantic.peer.waitForMessage(toldPrivately(room, "Contribution received"), 10_000);
    // Told privately: the agent was not woken by a room line naming it.
    expect(semantic.triggers).toEqual([]);
    await first.waitForLog((l) => String(l.msg).startsWith("agent evidence: MfrSemantic sent protocol messages"));
    await end(first);

    const second = await first.restart(options);
    afterThis(() => second.kill());
    await second.joined(room);
    const loaded = await second.waitForLog((l) => l.msg === "agent catalog loaded");
    expect(Number(loaded.evidence)).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 300));
    const start = human.messages.length;
    await human.sendGroupchat(room, { body: "agents" });
    const listing = await human.waitForMessage((m) => human.messages.indexOf(m) >= start && fromCoordinator(room, /^\[MFR\] Agents:/)(m));
    const lines = (listing.body ?? "").split("\n");
    expect(lines).toContain("- MfrSemantic (present): no profile — evidence: protocol messages (1 contribution)");
    expect(lines).toContain("- Prolog (present): no profile — evidence: no evidence yet; not known as a person, so it might be an agent");
    // alice typed commands before the restart: still a person, not listed.
    expect(listing.body).not.toContain("alice");
  });

  it("the Chair's nick taken over by another account cannot announce a consensus", async () => {
    const { room, human, coordinator } = await setUp({}, "mfr:contributionTimeout 5000 ; mfr:reasoningTimeout 5000 ; mfr:debateTimeout 3000 ;");
    await existingAgent(room, "Prolog", {});
    await existingAgent(room, "MfrSemantic", {});
    const chair = await ScriptedChair.join(server(), room);
    afterThis(() => chair.stop());
    await new Promise((r) => setTimeout(r, 300));

    await human.sendGroupchat(room, { body: "debate Plan the delivery of crates" });
    await chair.peer.waitForMessage((m) => (m.body ?? "").startsWith("Debate started."));
    await chair.peer.leaveRoom(room, "Chair");
    await new Promise((r) => setTimeout(r, 300));
    const impostor = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "impostor")));
    afterThis(() => impostor.stop());
    await impostor.joinRoom(room, "Chair");
    await impostor.sendGroupchat(room, { body: "Noted. Consensus reached: Use prolog for this problem." });
    await coordinator.waitForLog((l) => l.msg === "a Chair's line from someone else under the Chair's nick ignored");

    const fallback = await human.waitForMessage(fromCoordinator(room, /no consensus within 3 s/), 8_000);
    expect(spaced(fallback.body)).toMatch(/^\[MFR\] Session \S+: no consensus within 3 s; choosing agents from the room instead\.$/);
    expect(json(await human.waitForMessage(request)).requestedAgents).toEqual(["MfrSemantic", "Prolog"]);
    expect(human.messages.filter(fromCoordinator(room, /from the consensus/))).toEqual([]);
  });

  it("`mfr-start` among existing agents never seen before closes each window once they have answered, long before its timeout", async () => {
    // Windows of 30 s; the agents answer at once. Nothing is known about them, so no one is
    // "expected": the quiet period after their answers closes each window.
    const { room, human } = await setUp({}, "mfr:contributionTimeout 30000 ; mfr:reasoningTimeout 30000 ; mfr:quietPeriod 800 ;");
    const prolog = await existingAgent(room, "Prolog", { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION });
    const semantic = await existingAgent(room, "MfrSemantic", { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await new Promise((r) => setTimeout(r, 300));
    await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
    // Within 10 s, though either window alone would run 30 s: both closed on the quiet period.
    const complete = await human.waitForMessage(completeMsg, 10_000);
    expect(json(complete).status).toBe("solved");
    expect((json(complete).solutions as unknown[]).length).toBe(2);
    // And no coordinator line woke either agent.
    expect([...prolog.triggers, ...semantic.triggers]).toEqual([]);
  }, 20_000);

  itReplaysEveryLoggedSessionAsSent();
});
