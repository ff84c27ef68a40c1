/**
 * Slow agents count (docs/sessions.md, "The phases"): a fast agent (answers at once) and a
 * slow one (thinks a few seconds), with the quiet period shorter than the slow one's
 * thinking, as real agents differ (a Prolog agent answers in a third of a second, a language
 * model writing Turtle in tens of seconds). The quiet period closes a window only when nobody
 * the coordinator expects is still missing, so:
 *   - a slow agent nobody knows yet is cut off in its first session (and told which window
 *     it missed), and counts from the second on, once its answer showed it is an agent;
 *   - a slow agent that advertises Lingue features in disco#info counts from the first.
 * The times are scaled down from the 50 ms / 12 s / 5 s of the case this answers; what matters
 * is that the slow agent thinks longer than the quiet period and less than the window.
 */
import { describe, expect, it } from "vitest";
import { LINGUE_FEATURES } from "../../src/base/vocab.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { TestPeer } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { json, negotiation, toldPrivately } from "../support/room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();

const SLOW_MS = 4000;
/** The fast agent's whole model: sound on its own, so the session needs nothing more. */
const FAST_TURTLE = MODELER_TURTLE + PLANNER_TURTLE;
/** The slow agent adds one entity. */
const SLOW_TURTLE = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#crane> a mfr:Entity ; mfr:entityType "Vehicle" ; rdfs:label "the crane" .
`;
const WINDOWS = "mfr:contributionTimeout 20000 ; mfr:reasoningTimeout 20000 ; mfr:quietPeriod 1500 ; mfr:enableDebate false ;";

async function room(slowFeatures: readonly string[] | undefined) {
  const jid = uniqueRoom(server());
  const coordinator = await CoordinatorProcess.start({ server: server(), room: jid, mfrConfig: WINDOWS });
  afterThis(() => coordinator.kill());
  await coordinator.joined(jid);
  const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
  afterThis(() => human.stop());
  await human.joinRoom(jid, "alice");
  // Neither announces itself: the fast one is known once it has answered, the slow one by its features or its answer.
  const fast = await ScriptedAgent.join(server(), jid, "cheater", { contribution: () => FAST_TURTLE, solution: () => GOOD_SOLUTION });
  afterThis(() => fast.stop());
  const slow = await ScriptedAgent.join(server(), jid, "modeler", { contribution: () => SLOW_TURTLE, thinkMs: SLOW_MS, ...(slowFeatures ? { discoFeatures: slowFeatures } : {}) });
  afterThis(() => slow.stop());
  await new Promise((r) => setTimeout(r, 500));
  return { jid, coordinator, human, fast, slow };
}

/** One session, to its end: which contributions the summary counts. */
async function session(jid: string, human: TestPeer, problem: string): Promise<{ sessionId: string; summary: string }> {
  await human.sendGroupchat(jid, { body: `mfr-start ${problem}` });
  const request = await human.waitForMessage((m) => negotiation("ModelContributionRequest")(m) && String(json(m).problemDescription) === problem);
  const sessionId = String(json(request).sessionId);
  const complete = await human.waitForMessage(negotiation("SessionComplete", sessionId), 40_000);
  return { sessionId, summary: String(json(complete).summary) };
}

describe("a fast and a slow agent", () => {
  it("unknown at first: cut off by the quiet period in the first session (and told which window it missed), counted from the second on", async () => {
    const { jid, coordinator, human, slow } = await room(undefined);
    const first = await session(jid, human, "Deliver goods from the depot (first)");
    expect(first.summary).toContain("cheater: 3 entities, 1 action, 1 constraint, 1 goal");
    expect(first.summary).not.toContain("modeler:");
    const late = await slow.peer.waitForMessage(toldPrivately(jid, /It came [\d.]+ s after the contribution window closed, after [\d.]+ s open\.$/), 15_000);
    expect(late.body).toMatch(/^(The model of|Session) /);

    const second = await session(jid, human, "Deliver goods from the depot (second)");
    expect(second.summary).toContain("cheater: 3 entities, 1 action, 1 constraint, 1 goal");
    expect(second.summary).toContain("modeler: 1 entity");
    const closed = await coordinator.waitForLog((l) => l.msg === "contribution window closed" && l.sessionId === second.sessionId);
    expect(closed).toMatchObject({ closedBy: "everyone answered", missing: [] });
  }, 120_000);

  it("a slow agent that advertises Lingue features in disco#info counts from the first session", async () => {
    const { jid, coordinator, human } = await room(LINGUE_FEATURES);
    const first = await session(jid, human, "Deliver goods from the depot");
    expect(first.summary).toContain("modeler: 1 entity");
    expect(first.summary).toContain("cheater: 3 entities, 1 action, 1 constraint, 1 goal");
    const closed = await coordinator.waitForLog((l) => l.msg === "contribution window closed" && l.sessionId === first.sessionId);
    expect(closed).toMatchObject({ closedBy: "everyone answered" });
  }, 120_000);
});

itReplaysEveryLoggedSessionAsSent(3);
