/**
 * Input past a limit is refused where it arrives, with a reply saying why, and changes
 * nothing already collected: a message over mfr:maxInboundBytes (but under Prosody's own
 * stanza limit, so the sender is not cut off), JSON nested 10,000 deep, a problem too large
 * to announce, one Turtle statement too large for any model part, and contributions with
 * no statements. In every case the coordinator stays connected and the session completes
 * with what was collected before.
 */
import { describe, expect, it } from "vitest";
import { MFR, Mode } from "../../src/base/vocab.js";
import { itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { uniqueRoom, useTestProsody } from "../support/prosody.js";
import { expectStillServing, json, negotiation, roomKit, said, startSession, toldPrivately, readable } from "../support/room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, type ScriptedAgent } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();
const kit = roomKit(server, afterThis);

const TIMEOUTS = "mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ; mfr:validationTimeout 10000 ;";
/** The modeler's contribution as it would be if a refused message had been taken. */
const MODELER_TURTLE_REPLACED = MODELER_TURTLE.replace('"Truck 1"', '"Truck 2"');
const PLANNER_FAILS = { success: false, message: "The planner found no plan." };

/**
 * A room with the coordinator, alice, and two announced agents; alice starts a session and
 * the modeler's contribution is in before anything out of bounds arrives.
 */
async function sessionWithModelerIn(mfrConfig = TIMEOUTS) {
  const room = uniqueRoom(server());
  const coordinator = await kit.coordinator(room, mfrConfig);
  const alice = await kit.person(room, "alice");
  const modeler = await kit.agent(room, "modeler", {}, { coordinator });
  const planner = await kit.agent(room, "planner", {}, { coordinator });
  const sessionId = await startSession(alice, room, "Deliver goods from the depot to the warehouse");
  await modeler.contribute(sessionId, MODELER_TURTLE);
  await modeler.peer.waitForMessage(toldPrivately(room, `Contribution received for ${sessionId}`));
  return { room, coordinator, alice, modeler, planner, sessionId };
}

/** The planner completes the model; the merged model still holds the modeler's first contribution. */
async function plannerCompletesModel(s: { alice: ScriptedAgent["peer"]; planner: ScriptedAgent; sessionId: string }): Promise<string> {
  await s.planner.contribute(s.sessionId, PLANNER_TURTLE);
  const model = String(json(await s.alice.waitForMessage(negotiation("SolutionRequest", s.sessionId), 10_000)).model);
  expect(model).toContain("Truck 1");
  expect(model).not.toContain("Truck 2");
  return model;
}

/** Both propose; the session completes solved with the modeler's solution first. */
async function bothProposeAndComplete(s: { alice: ScriptedAgent["peer"]; modeler: ScriptedAgent; planner: ScriptedAgent; sessionId: string }) {
  await s.modeler.propose(s.sessionId, GOOD_SOLUTION);
  await s.planner.propose(s.sessionId, PLANNER_FAILS);
  const complete = json(await s.alice.waitForMessage(negotiation("SessionComplete", s.sessionId), 10_000));
  expect(complete.status).toBe("solved");
  expect(String(complete.summary)).toContain("modeler: 3 entities, 1 action");
  return complete;
}

/** The agent's own stream is up and unharmed. */
function expectConnected(agent: ScriptedAgent): void {
  expect(agent.peer.online).toBe(true);
  expect(agent.peer.errors).toEqual([]);
}

describe("bounds at the edge, over a real room", () => {
  it("a message over mfr:maxInboundBytes (224 KiB) is refused unread; its sender stays connected and its earlier contribution stands", async () => {
    const s = await sessionWithModelerIn();
    // Over our 224 KiB, under Prosody's 256 KiB: the server delivers it, so the refusal is ours.
    const padding = `# ${"x".repeat(230 * 1024)}\n`;
    await s.modeler.contribute(s.sessionId, `${MODELER_TURTLE_REPLACED}${padding}`);
    const refusal = await s.modeler.peer.waitForMessage(toldPrivately(s.room, "Your message of "));
    expect(refusal.body).toMatch(/^Your message of 2\d\d\.\d\sKiB is over my limit of 224\.0\sKiB and was not read\.$/);
    await s.coordinator.waitForLog((l) => l.msg === "message over the inbound size limit" && l.limit === 224 * 1024);
    expectConnected(s.modeler);

    await plannerCompletesModel(s);
    // The sender is still in the room and heard: its proposal counts.
    const complete = await bothProposeAndComplete(s);
    expect((complete.solutions as Array<{ agent: string }>)[0]?.agent).toBe("modeler");
    await expectStillServing(s.coordinator, s.alice, s.room);
  });

  it("a proposal with an extra field nested 10,000 deep gets a reply naming the limit, and the earlier proposal stands", async () => {
    const s = await sessionWithModelerIn();
    await plannerCompletesModel(s);
    await s.modeler.propose(s.sessionId, GOOD_SOLUTION);
    await s.coordinator.waitForLog((l) => l.msg === "proposal received" && l.agent === "modeler");

    const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    const content = `{"messageType":"${MFR}SolutionProposal","sessionId":"${s.sessionId}","solution":{"success":true,"message":"The deep one.","extra":${deep}}}`;
    await s.modeler.peer.sendGroupchat(s.room, { payload: { mode: Mode.ModelNegotiation, mime: "application/json", content } });
    const reply = await s.modeler.peer.waitForMessage(toldPrivately(s.room, "I could not read your ModelNegotiation message: "));
    expect(reply.body).toMatch(/^I could not read your ModelNegotiation message: solution\.extra\.a\.a\.a\.a… is nested deeper than 32 levels\. Nothing was changed\.$/);
    expect(s.coordinator.logs.filter((l) => l.msg === "proposal received" && l.agent === "modeler")).toHaveLength(1);
    expectConnected(s.modeler);

    await s.planner.propose(s.sessionId, PLANNER_FAILS);
    const complete = json(await s.alice.waitForMessage(negotiation("SessionComplete", s.sessionId), 10_000));
    expect(complete.status).toBe("solved");
    const solutions = complete.solutions as Array<Record<string, unknown>>;
    expect(solutions.map((x) => [x.agent, x.message])).toEqual([
      ["modeler", GOOD_SOLUTION.message],
      ["planner", PLANNER_FAILS.message],
    ]);
    expect(solutions[0]).not.toHaveProperty("extra");
    await expectStillServing(s.coordinator, s.alice, s.room);
  });

  it("a problem too large to announce (mfr-start with ~100 KB of text) is refused and no session starts", async () => {
    const room = uniqueRoom(server());
    const coordinator = await kit.coordinator(room, TIMEOUTS);
    const alice = await kit.person(room, "alice");
    const problem = `Deliver ${"a very detailed crate ".repeat(5_000)}`;
    expect(problem.length).toBeGreaterThan(100_000);
    await alice.sendGroupchat(room, { body: `mfr-start ${problem}` });
    const reply = await alice.waitForMessage(said(room, "That problem is "));
    // The default stanza limit is 200 KiB; a problem may take a quarter of it.
    expect(readable(reply.body)).toMatch(/^That problem is 1\d\d\.\d\sKiB as I would send it; a problem may take at most 50\.0\sKiB, .* No session was started/);
    await alice.sendGroupchat(room, { body: "mfr-list" });
    await alice.waitForMessage(said(room, "[MFR] No sessions yet."));
    expect(alice.messages.filter(negotiation("ModelContributionRequest"))).toEqual([]);
    expect(coordinator.logs.filter((l) => l.msg === "session started")).toEqual([]);
    await expectStillServing(coordinator, alice, room);
  });

  it("a contribution with one literal too large for any model part is refused, and the agent's earlier contribution stands", async () => {
    const s = await sessionWithModelerIn(`${TIMEOUTS} mfr:maxStanzaBytes 20000 ;`);
    const huge = "w".repeat(30_000);
    await s.modeler.contribute(s.sessionId, `${MODELER_TURTLE_REPLACED}<#truck> <http://www.w3.org/2000/01/rdf-schema#comment> "${huge}" .\n`);
    const reply = await s.modeler.peer.waitForMessage(toldPrivately(s.room, `Your contribution to ${s.sessionId} was refused: one statement `));
    expect(reply.body).toMatch(/one statement \(subject <[^>]*truck>, predicate <http:\/\/www\.w3\.org\/2000\/01\/rdf-schema#comment>\) is 29\.\d\sKiB as it would be sent, more than the [\d.]+\sKiB one part of a model can carry/);
    expect(reply.body).toContain("Your earlier contribution still stands;");
    expectConnected(s.modeler);

    const model = await plannerCompletesModel(s);
    expect(model).not.toContain("w".repeat(100));
    await bothProposeAndComplete(s);
    await expectStillServing(s.coordinator, s.alice, s.room);
  });

  it("an empty or comment-only contribution is refused and never replaces an earlier one", async () => {
    const s = await sessionWithModelerIn();
    const refused = `Your contribution to ${s.sessionId} was refused: it holds no statements (empty, or only comments/prefixes). Your earlier contribution still stands; send a corrected one.`;
    await s.modeler.contribute(s.sessionId, "");
    await s.modeler.peer.waitForMessage(toldPrivately(s.room, refused));
    await s.modeler.contribute(s.sessionId, "# the truck is now a boat\n@prefix mfr: <http://purl.org/stuff/mfr/> .\n");
    await s.modeler.peer.waitForMessage(toldPrivately(s.room, refused));
    expectConnected(s.modeler);

    await s.alice.sendGroupchat(s.room, { body: `mfr-status ${s.sessionId}` });
    const status = await s.alice.waitForMessage(said(s.room, `[MFR] Session ${s.sessionId}: collecting`));
    expect(status.body).toContain("modeler (3 entities, 1 action)");
    await plannerCompletesModel(s);
    await bothProposeAndComplete(s);
    await expectStillServing(s.coordinator, s.alice, s.room);
  });

  itReplaysEveryLoggedSessionAsSent();
});
