import { readFileSync } from "node:fs";
import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import { MFR, Mode } from "../../src/base/vocab.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent, type LogLine } from "../support/coordinator-process.js";
import { readable, toldPrivately } from "../support/room-kit.js";
import { coordinatorWithLogRoom } from "../support/scenes.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent, type AgentScript } from "../support/scripted-agent.js";

/** What the room adds to a message it passes on: from, occupant-id, and its archive's stanza-id. */
const ROOM_ADDS_BYTES = 400;

const { server, afterThis } = useTestProsody();

const TIMEOUTS = "mfr:contributionTimeout 4000 ; mfr:reasoningTimeout 4000 ; mfr:validationTimeout 10000 ;";

async function setUp(mfrConfig = TIMEOUTS): Promise<{ room: string; human: TestPeer; coordinator: CoordinatorProcess }> {
  const room = uniqueRoom(server());
  const coordinator = await CoordinatorProcess.start({ server: server(), room, mfrConfig });
  afterThis(() => coordinator.kill());
  await coordinator.joined(room);
  const account = await registerUser(server(), "alice");
  const human = await TestPeer.connect(peerOptions(server(), account));
  afterThis(() => human.stop());
  await human.joinRoom(room, "alice");
  return { room, human, coordinator };
}

/** The coordinator's JSON log lines about one session with a given message, each checked to be at info. */
function sessionLog(coordinator: CoordinatorProcess, sessionId: string, msg: string): LogLine[] {
  const lines = coordinator.logs.filter((l) => l.msg === msg && l.sessionId === sessionId);
  for (const line of lines) expect(line.level, `${msg} is at info`).toBe(30);
  return lines;
}

/** Log lines arrive a moment after the stanzas they accompany: wait until `msg` is there. */
async function loggedFor(coordinator: CoordinatorProcess, sessionId: string, msg: string): Promise<void> {
  await coordinator.waitForLog((l) => l.msg === msg && l.sessionId === sessionId);
}

async function agent(room: string, nick: string, script: AgentScript): Promise<ScriptedAgent> {
  const a = await ScriptedAgent.join(server(), room, nick, script);
  afterThis(() => a.stop());
  await a.announce();
  return a;
}

const negotiation = (type: string, sessionId?: string) => (m: ReceivedMessage) =>
  m.payload?.mode === Mode.ModelNegotiation && m.payload.messageType === `${MFR}${type}` && (sessionId === undefined || (m.payload.json as { sessionId?: string }).sessionId === sessionId);

function json(m: ReceivedMessage): Record<string, unknown> {
  return m.payload?.json as Record<string, unknown>;
}

async function startSession(human: TestPeer, room: string, problem: string): Promise<string> {
  await human.sendGroupchat(room, { body: `mfr-start ${problem}` });
  const request = await human.waitForMessage(negotiation("ModelContributionRequest"));
  return String(json(request).sessionId);
}

describe("MFR sessions over a real room", () => {
  it("happy path: contributions merge early, the sound model goes to solvers, the best solution wins", async () => {
    const { room, human } = await setUp();
    await agent(room, "modeler", { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION });
    await agent(room, "planner", { contribution: () => PLANNER_TURTLE, solution: () => ({ success: false, message: "no plan found" }) });
    await new Promise((r) => setTimeout(r, 200)); // the announcements reach the coordinator first

    const started = Date.now();
    const sessionId = await startSession(human, room, "Deliver goods from the depot to the warehouse with one truck");
    const validation = await human.waitForMessage(negotiation("ModelValidationResult", sessionId));
    expect(json(validation).conforms).toBe(true);
    const request = await human.waitForMessage(negotiation("SolutionRequest", sessionId));
    expect(String(json(request).model)).toContain("Truck 1");
    const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId));
    // Both contributed before the 4 s window closed, and both proposed: no waiting for timeouts.
    expect(Date.now() - started).toBeLessThan(4000);
    const body = json(complete);
    expect(body.status).toBe("solved");
    const solutions = body.solutions as Array<{ agent: string; success: boolean }>;
    expect(solutions.map((s) => s.agent)).toEqual(["modeler", "planner"]);
    expect(solutions[0]?.success).toBe(true);
    // The room gets one short line, the SessionComplete's own body; the full summary travels in its payload.
    expect(complete.body ?? "").toMatch(new RegExp(`^\\[MFR\\] Session ${sessionId} solved`));
    expect(complete.body).toContain("best solution from modeler");
    expect((complete.body ?? "").length).toBeLessThan(300);
    expect(String(body.summary)).toContain("modeler: 3 entities, 1 action");
    expect(String(body.summary)).toContain("drive(truck, depot, warehouse)");
    expect(String(body.summary).split("\n").length).toBeLessThanOrEqual(40);
  });

  it("malformed Turtle gets a reply with line and column, and the session goes on", async () => {
    const { room, human } = await setUp();
    const modeler = await agent(room, "modeler", { solution: () => GOOD_SOLUTION });
    await new Promise((r) => setTimeout(r, 200));
    const sessionId = await startSession(human, room, "Deliver goods");
    await modeler.contribute(sessionId, '@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#a> a mfr:Entity ;\n  mfr:entityType "Vehicle ;\n');
    const complaint = await modeler.peer.waitForMessage(toldPrivately(room, `Your contribution to ${sessionId} is not valid Turtle`));
    // The location is said once, in one readable line.
    expect(complaint.body).toMatch(/line \d+/);
    expect((complaint.body ?? "").match(/line \d+/g)).toHaveLength(1);
    expect(complaint.body).not.toContain("\n");
    await modeler.contribute(sessionId, MODELER_TURTLE);
    const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId), 10_000);
    expect(json(complete).status).toBe("solved");
  });

  it("no contributions: SessionComplete failed, and one line in the room says why", async () => {
    const { room, human, coordinator } = await setUp("mfr:contributionTimeout 800 ;");
    const sessionId = await startSession(human, room, "Nobody will answer");
    const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId));
    expect(json(complete).status).toBe("failed");
    expect(String(json(complete).reason)).toContain("No usable model contribution");
    expect(complete.body ?? "").toMatch(new RegExp(`^\\[MFR\\] Session ${sessionId} failed after `));
    expect(complete.body).toContain("No usable model contribution");
    await loggedFor(coordinator, sessionId, "session complete");
    expect(sessionLog(coordinator, sessionId, "deadline reached")).toEqual([expect.objectContaining({ deadline: "contributions", phase: "collecting" })]);
    expect(sessionLog(coordinator, sessionId, "contribution window closed")).toEqual([expect.objectContaining({ closedBy: "timeout", contributions: 0 })]);
  });

  it("no solutions: failed, with who was asked and why each failed", async () => {
    const { room, human } = await setUp("mfr:contributionTimeout 4000 ; mfr:reasoningTimeout 1000 ;");
    await agent(room, "modeler", { contribution: () => MODELER_TURTLE + PLANNER_TURTLE, solution: () => ({ success: false, message: "stuck", executionError: "no route" }) });
    await agent(room, "silent", { contribution: () => PLANNER_TURTLE });
    await new Promise((r) => setTimeout(r, 200));
    const sessionId = await startSession(human, room, "Deliver goods");
    const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId), 10_000);
    expect(json(complete).status).toBe("failed");
    const reason = String(json(complete).reason);
    expect(reason).toMatch(/Asked: (modeler and silent|silent and modeler)\./);
    expect(reason).toContain("modeler failed: no route");
    expect(reason).toContain("No answer from silent");
  });

  it("two concurrent sessions stay apart", async () => {
    const { room, human } = await setUp();
    const modeler = await agent(room, "modeler", { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION });
    const planner = await agent(room, "planner", { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await new Promise((r) => setTimeout(r, 200));
    await human.sendGroupchat(room, { body: "mfr-start First problem" });
    await human.sendGroupchat(room, { body: "mfr-start Second problem" });
    const a = await human.waitForMessage(negotiation("SessionComplete"), 10_000);
    const b = await human.waitForMessage(negotiation("SessionComplete"), 10_000);
    const ids = [json(a).sessionId, json(b).sessionId];
    expect(new Set(ids).size).toBe(2);
    expect([json(a).status, json(b).status]).toEqual(["solved", "solved"]);
    expect(new Set(modeler.requests.map((r) => r.sessionId))).toEqual(new Set(ids));
    expect(planner.solutionRequests).toHaveLength(2);
    // Each SolutionRequest carries only its own session's problem.
    await human.sendGroupchat(room, { body: "mfr-list" });
    const list = await human.waitForMessage((m) => (m.body ?? "").startsWith("[MFR] Sessions, newest first"));
    for (const id of ids) expect(list.body).toContain(String(id));
  });

  it("cancel: SessionComplete cancelled, once; status and later proposals are handled", async () => {
    const { room, human } = await setUp("mfr:contributionTimeout 60000 ;");
    const late = await agent(room, "late", {});
    const sessionId = await startSession(human, room, "To be cancelled");
    await human.sendGroupchat(room, { body: `mfr-status ${sessionId}` });
    const status = await human.waitForMessage((m) => (m.body ?? "").startsWith(`[MFR] Session ${sessionId}: collecting`));
    expect(readable(status.body)).toMatch(/Waiting for: contributions from late; the window closes when they have answered, at the latest in (1 min|\d+ s)\./);
    await human.sendGroupchat(room, { body: `mfr-cancel ${sessionId}` });
    const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId));
    expect(json(complete).status).toBe("cancelled");
    await late.propose(sessionId, GOOD_SOLUTION);
    const polite = await late.peer.waitForMessage(toldPrivately(room, `Session ${sessionId} is already complete`));
    expect(polite.body).toContain("too late");
    await new Promise((r) => setTimeout(r, 300));
    expect(human.messages.filter(negotiation("SessionComplete", sessionId))).toHaveLength(1);
  });

  it("unknown sessions and unreadable JSON get a clear reply; nothing already collected is lost", async () => {
    const { room, human } = await setUp("mfr:contributionTimeout 2000 ;");
    const modeler = await agent(room, "modeler", { contribution: () => MODELER_TURTLE });
    await new Promise((r) => setTimeout(r, 200));
    const sessionId = await startSession(human, room, "Robustness");
    await modeler.peer.waitForMessage(toldPrivately(room, `Contribution received for ${sessionId}`));
    await modeler.contribute("no-such-session", MODELER_TURTLE);
    await modeler.peer.waitForMessage(toldPrivately(room, 'There is no session "no-such-session"'));
    await modeler.peer.sendGroupchat(room, { payload: { mode: Mode.ModelNegotiation, mime: "application/json", content: "{ broken" } });
    await modeler.peer.waitForMessage(toldPrivately(room, "I could not read your ModelNegotiation message"));
    await human.sendGroupchat(room, { body: `mfr-status ${sessionId}` });
    const status = await human.waitForMessage((m) => (m.body ?? "").startsWith(`[MFR] Session ${sessionId}:`));
    expect(status.body).toContain("modeler (3 entities, 1 action)");
  });

  it("a model too large for one stanza reaches the solvers in parts that reassemble into the whole model", async () => {
    const { room, human } = await setUp(`${TIMEOUTS} mfr:maxStanzaBytes 16384 ;`);
    const extra = Array.from({ length: 150 }, (_, i) => `<#box${i}> a mfr:Entity ; mfr:entityType "Box" ; schema:name "Box number ${i} of the big delivery" ; mfr:hasEffect [ a mfr:Effect ; mfr:expression "moved(box${i})" ] .`).join("\n");
    const modeler = await agent(room, "modeler", { contribution: () => `${MODELER_TURTLE}\n${extra}`, solution: () => GOOD_SOLUTION });
    await agent(room, "planner", { contribution: () => PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await new Promise((r) => setTimeout(r, 200));
    const sessionId = await startSession(human, room, "A big model");
    const request = await modeler.peer.waitForMessage(negotiation("SolutionRequest", sessionId), 10_000);
    const { modelParts, modelTriples } = json(request) as { modelParts: number; modelTriples: number };
    expect(modelParts).toBeGreaterThan(1);
    const fromCoordinator = modeler.peer.messages.filter((m) => m.from === `${room}/Coordinator`);
    expect(fromCoordinator.length).toBeGreaterThan(modelParts);
    // The room adds a little to what the coordinator sent within its limit: from, its occupant
    // id, and the stanza-id of its archive (XEP-0359, about 110 bytes).
    for (const m of fromCoordinator) expect(Buffer.byteLength(m.stanza.toString())).toBeLessThanOrEqual(16384 + ROOM_ADDS_BYTES);
    const parts = modeler.peer.messages.filter((m) => m.payload?.mode === Mode.ModelFirstRDF && m.siblings.sessionId === sessionId && m.siblings.modelPart);
    expect(parts.map((p) => p.siblings.modelPart)).toEqual(Array.from({ length: modelParts }, (_, i) => `${i + 1}/${modelParts}`));
    const triples = new Set(parts.flatMap((p) => new Parser().parse(p.payload?.content ?? "").map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`)));
    expect(triples.size).toBe(modelTriples);
    expect([...triples].some((t) => t.includes("Box number 149"))).toBe(true);
    const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId), 10_000);
    expect(json(complete).status).toBe("solved");
  });

  it("full detail goes to the log room when one is configured; the primary room gets the short summary", async () => {
    const { room, logRoom, human } = await coordinatorWithLogRoom(server(), afterThis, TIMEOUTS);
    await agent(room, "modeler", { contribution: () => MODELER_TURTLE + PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await new Promise((r) => setTimeout(r, 200));
    const sessionId = await startSession(human, room, "Deliver goods");
    const detail = await human.waitForMessage((m) => m.from === `${logRoom}/Coordinator` && (m.body ?? "").includes("Detail:"), 10_000);
    expect(detail.body).toContain(`Session ${sessionId} solved`);
    expect(detail.body).toMatch(/- validation round 1: /);
    expect(detail.body).toMatch(/- proposal from modeler \(claims success\)/);
    const summary = human.messages.find((m) => m.from === `${room}/Coordinator` && (m.body ?? "").startsWith(`[MFR] Session ${sessionId} solved`));
    expect(summary?.body).not.toContain("Detail:");
  });

  it("a clean session is a short room: at most 6 coordinator lines, each under 300 characters, the summary last, none waking an agent", async () => {
    const { room, human } = await setUp();
    const modeler = await agent(room, "modeler", { contribution: () => MODELER_TURTLE + PLANNER_TURTLE, solution: () => GOOD_SOLUTION });
    await new Promise((r) => setTimeout(r, 200));
    const from = human.messages.length;
    const sessionId = await startSession(human, room, "Deliver goods from the depot to the warehouse with one truck");
    // The session's last line is the SessionComplete's body: no message of its own follows.
    const summary = await human.waitForMessage(negotiation("SessionComplete", sessionId), 10_000);
    expect(summary.body ?? "").toMatch(new RegExp(`^\\[MFR\\] Session ${sessionId} solved`));
    await new Promise((r) => setTimeout(r, 300));
    // What a person sees in the room: the coordinator's groupchat messages that have a body.
    const lines = human.messages.slice(from).filter((m) => m.from === `${room}/Coordinator` && m.type === "groupchat" && m.body !== undefined);
    if (process.env.MFR_PRINT_FIGURES) console.log(`clean session: ${lines.length} lines in the room\n${lines.map((m) => `  ${m.body ?? ""}`).join("\n")}`);
    expect(lines.length).toBeLessThanOrEqual(6);
    for (const m of lines) {
      expect((m.body ?? "").length).toBeLessThan(300);
      expect(m.body).not.toContain("\n");
      // A line that names the agent is marked as status, which existing agents skip.
      if (/modeler/i.test(m.body ?? "")) expect(m.body).toMatch(/^\[MFR\] /);
    }
    expect(lines.at(-1)).toBe(summary);
    // The agent heard about its own contribution privately, not as "modeler: …" in the room.
    expect(modeler.peer.messages.filter(toldPrivately(room, `Contribution received for ${sessionId}`))).toHaveLength(1);
    expect(human.messages.filter((m) => /^modeler[:,]/i.test(m.body ?? ""))).toEqual([]);
  });

  it("verified solutions: a claimed success with a broken plan loses to a valid plan, which solves the session", async () => {
    const { room, human } = await setUp();
    const blocks = readFileSync(new URL("../fixtures/formal/blocksworld.ttl", import.meta.url), "utf8");
    const cheat = { success: true, message: "Done, trust me.", plan: ["unstack(C, A)", "pick-up(a)", "stack(a, b)"], satisfiesGoals: Array.from({ length: 50 }, () => ({ goal: "tower", satisfied: true })) };
    await agent(room, "cheater", { contribution: () => blocks, solution: () => cheat });
    // Both contribute, so the solution window waits for both proposals.
    const table = '@prefix mfr: <http://purl.org/stuff/mfr/> .\n@prefix schema: <http://schema.org/> .\n<#table> a mfr:Entity ; mfr:entityType "Table" ; schema:name "Table" .\n';
    await agent(room, "solver", { contribution: () => table, solution: () => ({ success: true, message: "Four moves.", plan: ["unstack(C, A)", "(put-down c)", "pick-up(a)", "stack(a, b)"] }) });
    await new Promise((r) => setTimeout(r, 200));
    const sessionId = await startSession(human, room, "Put a on b");
    const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId), 10_000);
    const body = json(complete);
    expect(body.status).toBe("solved");
    const solutions = body.solutions as Array<{ agent: string; verification?: { verdict: string; step?: number; failed?: string } }>;
    expect(solutions.map((s) => [s.agent, s.verification?.verdict])).toEqual([
      ["solver", "valid"],
      ["cheater", "invalid"],
    ]);
    expect(solutions[1]?.verification).toMatchObject({ step: 2, failed: "(handempty)" });
    expect(complete.body).toContain("best solution from solver, a plan of 4 steps (checked valid)");
  });

  it("a repair round: the proposer of an invalid plan gets the finding in a new SolutionRequest and repairs it", async () => {
    const { room, human, coordinator } = await setUp();
    const blocks = readFileSync(new URL("../fixtures/formal/blocksworld.ttl", import.meta.url), "utf8");
    let answers = 0;
    const plans = [["unstack(C, A)", "pick-up(a)", "stack(a, b)"], ["unstack(C, A)", "(put-down c)", "pick-up(a)", "stack(a, b)"]];
    // Existing peers answer every SolutionRequest: the first answer is wrong, the second right.
    const planner = await agent(room, "planner", { contribution: () => blocks, solution: () => ({ success: true, message: "Here.", plan: plans[Math.min(answers++, 1)] }) });
    await new Promise((r) => setTimeout(r, 200));
    const sessionId = await startSession(human, room, "Put a on b");
    const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId), 10_000);
    const requests = human.messages.filter(negotiation("SolutionRequest", sessionId)).map(json);
    expect(requests.map((r) => r.round ?? 1)).toEqual([1, 2]);
    expect(requests[1]).toMatchObject({ requestedAgents: ["planner"] });
    expect(String((requests[1]?.issues as Record<string, string[]>).planner?.[0])).toMatch(/^Step 2/);
    expect(planner.solutionRequests).toHaveLength(2);
    expect(json(complete).status).toBe("solved");
    expect((json(complete).solutions as Array<{ verification?: { verdict: string } }>)[0]?.verification?.verdict).toBe("valid");
    await loggedFor(coordinator, sessionId, "session complete");
    expect(sessionLog(coordinator, sessionId, "repair round")).toEqual([expect.objectContaining({ repairRound: 1, round: 2, agents: ["planner"] })]);
    expect(sessionLog(coordinator, sessionId, "solution window closed").map((l) => l.round)).toEqual([1, 2]);
  });

  itReplaysEveryLoggedSessionAsSent();
});
