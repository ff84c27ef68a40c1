/**
 * No gap: what the room says while the coordinator is away (killed with -9 and started
 * again, its connection dropped) is taken in once it is back, once, counted at the instant
 * the room stamped it; what the server could not keep is said. Over a real Prosody whose
 * rooms the coordinator creates (persistent, with history, archived where offered).
 */
import { describe, expect, it } from "vitest";
import { itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { peerOptions, registerUser, startTestProsody, useTestProsody, type LocalProsody } from "../support/prosody.js";
import { json, negotiation, toldPrivately } from "../support/room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent, type AgentScript } from "../support/scripted-agent.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { scene as sceneOn } from "../support/core-scenarios.js";

const { server, afterThis } = useTestProsody();
const NS_SID = "urn:xmpp:sid:0";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const byCoordinator = (room: string, pattern: RegExp) => (m: ReceivedMessage) => m.from === `${room}/Coordinator` && pattern.test(m.body ?? "");

/** `coordinatorVia`: the server as the coordinator reaches it (through a proxy that can cut it off). */
function scene(mfrConfig: string, scripts: Record<string, AgentScript>, on: LocalProsody = server(), coordinatorVia: LocalProsody = on) {
  return sceneOn(on, afterThis, scripts, mfrConfig, coordinatorVia);
}

async function start(human: TestPeer, room: string): Promise<string> {
  await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
  return String(json(await human.waitForMessage(negotiation("ModelContributionRequest"))).sessionId);
}

const caughtUp = (n: number) => (l: { msg?: unknown; caughtUp?: unknown }) => typeof l.msg === "string" && l.msg.startsWith("caught up on") && l.caughtUp === n;

describe("what the room says while the coordinator is away is taken in once it is back", () => {
  it("kill -9 in a fix round: the fix said while it was down is taken, and the round is not asked again", async () => {
    const broken = MODELER_TURTLE.replace('mfr:entityType "Vehicle" ; ', "");
    const { room, human, agents, restart, coordinator } = await scene("mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ;", {
      // Round 1 breaks a rule; the fix (round 2) is sent by hand while the coordinator is down.
      modeler: { contribution: (round) => (round === 1 ? broken : undefined), solution: () => GOOD_SOLUTION },
      planner: { contribution: (round) => (round === 1 ? PLANNER_TURTLE : undefined), solution: () => GOOD_SOLUTION },
    });
    const sessionId = await start(human, room);
    await human.waitForMessage((m) => negotiation("ModelContributionRequest")(m) && json(m).round === 2, 10_000);
    await coordinator().kill();
    await agents.modeler?.contribute(sessionId, MODELER_TURTLE);
    await sleep(300);
    const back = await restart();
    const caught = await back.waitForLog(caughtUp(1));
    // The test server archives its rooms (prosody/local.cfg.lua): the archive is read on from the
    // last message taken in, by its archive id, so what came before is not read again, however
    // recent. A read by time re-read a margin's worth (mfr-start and both contributions: 3); by
    // position at most a message taken in at the same instant as the last (the two agents'
    // contributions can arrive within one millisecond, and which the archive has first is its own).
    expect(caught).toMatchObject({ from: "archive", after: expect.any(String) });
    expect(caught.alreadyTaken).toBeLessThanOrEqual(1);
    const request = await human.waitForMessage(negotiation("SolutionRequest"), 10_000);
    expect(String(json(request).model)).toContain('"Vehicle"');
    expect(json(await human.waitForMessage(negotiation("SessionComplete"), 10_000))).toMatchObject({ sessionId, status: "solved" });
    expect(human.messages.filter(negotiation("ModelContributionRequest"))).toHaveLength(2);
    expect(agents.modeler?.peer.messages.filter(toldPrivately(room, "Contribution replaced"))).toHaveLength(1);
  });

  it("a second restart takes in nothing again: every message is counted once", async () => {
    // Nobody proposes: all the room says after the kill is the planner's contribution.
    const { room, human, agents, restart, coordinator } = await scene("mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 3000 ;", {
      modeler: { contribution: () => MODELER_TURTLE },
      planner: {},
    });
    const sessionId = await start(human, room);
    await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    await coordinator().kill();
    await agents.planner?.contribute(sessionId, PLANNER_TURTLE);
    await sleep(300);
    const once = await restart();
    await once.waitForLog(caughtUp(1));
    await agents.planner?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    await once.kill();
    const twice = await restart();
    // Everything the room gives back now was taken in before.
    await twice.waitForLog(caughtUp(0));
    expect(twice.logs.some((l) => l.msg === "contribution accepted")).toBe(false);
    await human.waitForMessage(negotiation("SessionComplete"), 15_000);
    // Acknowledged once. The acknowledgement went out just before the second kill: a private
    // message is in no room's history, so when the kill came before its sent record it goes
    // out once more with the same origin-id, for the agent to drop (docs/operating.md,
    // "Durability"; on PostgreSQL the record takes a round trip): one answer.
    const told = agents.planner?.peer.messages.filter(toldPrivately(room, "Contribution received")) ?? [];
    expect(new Set(told.map((m) => String(m.stanza.getChild("origin-id", NS_SID)?.attrs.id ?? "none"))).size).toBe(1);
    expect(human.messages.filter(negotiation("ModelContributionRequest"))).toHaveLength(1);
  });

  it("a proposal stamped before the solution window closed counts; one stamped after is refused as late", async () => {
    const { room, human, agents, restart, coordinator } = await scene("mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 3000 ; mfr:quietPeriod 60000 ;", {
      modeler: { contribution: () => MODELER_TURTLE },
      planner: { contribution: () => PLANNER_TURTLE },
    });
    const sessionId = await start(human, room);
    await human.waitForMessage(negotiation("SolutionRequest"), 10_000);
    await coordinator().kill();
    await agents.modeler?.propose(sessionId, { ...GOOD_SOLUTION, message: "in time" });
    // The window (3 s from the request) closes while nobody is listening. Prosody stamps whole
    // seconds, so the late one comes more than a second after the window's end.
    await sleep(4500);
    await agents.planner?.propose(sessionId, { ...GOOD_SOLUTION, message: "too late" });
    await sleep(300);
    const back = await restart();
    await back.waitForLog(caughtUp(2));

    const complete = await human.waitForMessage(negotiation("SessionComplete"), 10_000);
    const solutions = json(complete).solutions as Array<{ agent: string; message: string }>;
    expect(solutions.map((s) => s.message)).toEqual(["in time"]);
    expect(json(complete).status).toBe("solved");
    await agents.planner?.peer.waitForMessage(toldPrivately(room, /too late|already complete|has ended|is complete/i), 5000);
  });

  it("the same message given twice (history overlapping what was heard) is taken once, and a live duplicate is skipped", async () => {
    const { room, human, agents, coordinator } = await scene("mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ;", {
      modeler: {},
    });
    const sessionId = await start(human, room);
    // The same stanza (same id, same text) twice: a server that delivers it again.
    const payload = { payload: { mode: "http://purl.org/stuff/lingue/ModelFirstRDF" as const, mime: "text/turtle", content: MODELER_TURTLE }, siblings: { sessionId }, id: "dup-1" };
    await agents.modeler?.peer.sendGroupchat(room, payload);
    await agents.modeler?.peer.sendGroupchat(room, payload);
    await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    await coordinator().waitForLog((l) => l.msg === "message already taken in; skipped");
    await sleep(300);
    expect(agents.modeler?.peer.messages.filter(toldPrivately(room, /Contribution (received|replaced)/))).toHaveLength(1);
  });
});

describe("a network drop and a server restart", () => {
  it("answers said while the coordinator's connection was cut are taken in after it reconnects", async () => {
    const proxy = await TcpProxy.start({ host: server().host, port: server().port });
    afterThis(() => proxy.stop());
    const { room, human, agents, coordinator } = await scene("mfr:contributionTimeout 10000 ; mfr:reasoningTimeout 8000 ;", {
      modeler: { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION },
      planner: { solution: () => GOOD_SOLUTION },
    }, server(), proxy.serverBehind(server()));
    const sessionId = await start(human, room);
    await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    // The network goes: the server sees the coordinator leave the room; new connections fail for 3 s.
    proxy.cut(3000);
    await human.waitForPresence((p) => p.attrs.from === `${room}/Coordinator` && p.attrs.type === "unavailable", 5000);
    await agents.planner?.contribute(sessionId, PLANNER_TURTLE);
    await coordinator().waitForLog(caughtUp(1), 20_000);
    const request = await human.waitForMessage(negotiation("SolutionRequest"), 15_000);
    expect(String(json(request).model)).toContain("goods delivered");
    const complete = await human.waitForMessage(negotiation("SessionComplete"), 10_000);
    expect(json(complete)).toMatchObject({ sessionId, status: "solved" });
    expect(agents.planner?.peer.messages.filter(toldPrivately(room, "Contribution received"))).toHaveLength(1);
    expect(human.messages.filter(negotiation("ModelContributionRequest"))).toHaveLength(1);
  });

  it("a server restart with the persistent, archived room the coordinator made: no gap, and the session goes on", async () => {
    const own = await startTestProsody();
    afterThis(() => own.stop());
    const { room, human, agents, coordinator } = await scene("mfr:contributionTimeout 30000 ; mfr:reasoningTimeout 8000 ;", { modeler: {}, planner: {} }, own);
    const sessionId = await start(human, room);
    await agents.modeler?.contribute(sessionId, MODELER_TURTLE);
    await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    const before = coordinator().logs.length;
    await own.kill();
    await own.restart();
    await coordinator().waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("caught up on"), 30_000, before);
    expect(coordinator().logs.slice(before).some((l) => l.msg === "may have missed what the room said while we were away: the server did not keep it")).toBe(false);
    // The agents come back and the session carries on from where it was.
    const planner = await ScriptedAgent.join(own, room, "planner2", {});
    afterThis(() => planner.stop());
    await planner.contribute(sessionId, PLANNER_TURTLE);
    await planner.peer.waitForMessage(toldPrivately(room, "Contribution received"), 10_000);
  });
});

describe("a gap that cannot be closed is said", () => {
  it("a server restart that loses the room (no archive, not kept): the coordinator says it may have missed messages", async () => {
    const own = await startTestProsody({ roomArchive: false });
    afterThis(() => own.stop());
    const { room, human, agents, coordinator } = await scene("mfr:contributionTimeout 20000 ; mfr:reasoningTimeout 8000 ;", { modeler: {} }, own);
    const sessionId = await start(human, room);
    await agents.modeler?.contribute(sessionId, MODELER_TURTLE);
    await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    // The server dies with its in-memory history; the room comes back persistent but empty.
    await own.kill();
    await own.restart();
    const heard = await coordinator().waitForLog((l) => l.msg === "may have missed what the room said while we were away: the server did not keep it", 20_000);
    expect(heard.room).toBe(room);
    await human.stop().catch(() => undefined);
    const again = await TestPeer.connect(peerOptions(own, await registerUser(own, "bob")));
    afterThis(() => again.stop());
    await again.joinRoom(room, "bob");
    const notice = await again.waitForMessage(byCoordinator(room, new RegExp(`^\\[MFR\\] ${sessionId}: I may have missed messages in this room between`)), 10_000).catch(() => undefined);
    // Bob joined after the notice; the coordinator's log line is the durable evidence, the room line is checked when seen.
    if (notice) expect(notice.body).toContain("please send again");
  });

  itReplaysEveryLoggedSessionAsSent();
});
