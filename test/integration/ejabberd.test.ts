/**
 * The core scenarios (test/support/core-scenarios.ts) against ejabberd 23.01 from Debian's
 * packages, started with the project's tested configuration (ejabberd/ejabberd.yml), and
 * what changes where an operator leaves the project's module out: ejabberd then archives
 * no message without a <body>, which is how the agents send theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { ABSENCE_SCENARIOS } from "../support/absence-scenarios.js";
import { CORE_SCENARIOS, coreScenarios, scene, start } from "../support/core-scenarios.js";
import { startTestEjabberd, useTestEjabberd, type LocalEjabberd } from "../support/ejabberd.js";
import { TestPeer } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom } from "../support/prosody.js";
import { toldPrivately } from "../support/room-kit.js";
import { MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent } from "../support/scripted-agent.js";

const { server, afterThis } = useTestEjabberd();

coreScenarios(server, afterThis);

describe("what ejabberd 23.01 gives the coordinator", () => {
  it("the room it creates is configured persistent, archived, real JIDs visible; identities rest on real JIDs (no XEP-0421 occupant ids in 23.01)", async () => {
    const room = uniqueRoom(server());
    const coordinator = await CoordinatorProcess.start({ server: server(), room });
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    // ejabberd's owner form has no history length: mod_muc's history_size (200) sets it.
    const configured = await coordinator.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("created the room and configured it"));
    expect(configured).toMatchObject({ settings: ["real JIDs visible", "persistent", "archived"], notOffered: [] });
    expect(await coordinator.waitForLog((l) => String(l.msg).startsWith("room identities"))).toMatchObject({ occupantIds: false, realJids: true, basis: "real JIDs" });
  });

  it("a room someone else created first still shows the coordinator real JIDs (default_room_options: anonymous: false)", async () => {
    const room = uniqueRoom(server());
    const owner = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "owner")));
    afterThis(() => owner.stop());
    await owner.joinRoom(room, "owner");
    const coordinator = await CoordinatorProcess.start({ server: server(), room });
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    expect(coordinator.logs.find((l) => l.msg === "joined the room")).toMatchObject({ created: false });
    expect(await coordinator.waitForLog((l) => String(l.msg).startsWith("room identities"))).toMatchObject({ realJids: true, basis: "real JIDs" });
  });

  it("1:1: the direct line binds its resource as asked (`Coordinator (chat)`), and a person not subscribed gets its presence before the answer and its unavailable presence at the stop", async () => {
    const room = uniqueRoom(server());
    const coordinator = await CoordinatorProcess.start({ server: server(), room });
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    await coordinator.waitForLog((l) => l.msg === "direct line open: 1:1 chat comes and goes here");
    const line = `${coordinator.jid}/${coordinator.directResource}`;
    const alice = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
    afterThis(() => alice.stop());
    await alice.sendChat(coordinator.jid, "help");
    const answer = await alice.waitForMessage((m) => m.type === "chat" && (m.body ?? "").includes("runs Model-First Reasoning sessions"));
    expect(answer.from).toBe(line);
    const present = alice.presences.find((p) => p.attrs.from === line && p.attrs.type === undefined);
    expect(present && alice.arrivals.indexOf(present)).toBeLessThan(alice.arrivals.indexOf(answer.stanza));
    expect((await coordinator.terminate()).code).toBe(0);
    await alice.waitForPresence((p) => p.attrs.from === line && p.attrs.type === "unavailable");
  });

  it("a server restart (kill -9) keeps the persistent, archived room: no gap, and the session goes on", async () => {
    const own = await startTestEjabberd();
    afterThis(() => own.stop());
    const { room, human, agents, coordinator } = await scene(own, afterThis, { modeler: {}, planner: {} }, "mfr:contributionTimeout 30000 ; mfr:reasoningTimeout 8000 ; mfr:quietPeriod 60000 ;");
    const sessionId = await start(human, room);
    await agents.modeler?.contribute(sessionId, MODELER_TURTLE);
    await agents.modeler?.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    // Mnesia writes behind: what was written in the last second or two before a kill -9 of
    // ejabberd can be gone after its restart (ejabberd/README-section.md), accounts included.
    await new Promise((r) => setTimeout(r, 2500));
    const before = coordinator().logs.length;
    await own.kill();
    await own.restart();
    // ejabberd's restart, then the coordinator's next attempt: its backoff doubles to 30 s, so on a loaded machine this takes up to a minute.
    const back = await coordinator().waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("caught up on"), 75_000, before);
    expect(back).toMatchObject({ room });
    const since = coordinator().logs.slice(before);
    expect(since.some((l) => l.msg === "may have missed what the room said while we were away: the server did not keep it")).toBe(false);
    // Not re-created: the room came back from ejabberd's spool, still the coordinator's.
    expect(since.find((l) => l.msg === "joined the room")).toMatchObject({ created: false });
    const planner = await ScriptedAgent.join(own, room, "planner2", {});
    afterThis(() => planner.stop());
    await planner.contribute(sessionId, PLANNER_TURTLE);
    await planner.peer.waitForMessage(toldPrivately(room, "Contribution received"), 10_000);
  }, 120_000);
});

describe("without mod_muc_keep_protocol", () => {
  let bare: LocalEjabberd | undefined;
  const without = (): LocalEjabberd => {
    if (!bare) throw new Error("the ejabberd without the module is not running");
    return bare;
  };
  beforeAll(async () => {
    bare = await startTestEjabberd({ keepProtocol: false });
  }, 30_000);
  afterAll(async () => {
    await bare?.stop();
  });

  it("the coordinator's own body-less messages are still archived (it asks with a store hint): a kill between sending and recording sends nothing twice", () =>
    CORE_SCENARIOS.restoredTail.run(without(), afterThis));

  // ejabberd archives no body-less message of an agent: what one says while the
  // coordinator is away is asked again once it is back (test/support/absence-scenarios.ts).
  it(ABSENCE_SCENARIOS.contributionWindow.title, () => ABSENCE_SCENARIOS.contributionWindow.run(without(), afterThis, "not kept"), 120_000);
  it(ABSENCE_SCENARIOS.fixRound.title, () => ABSENCE_SCENARIOS.fixRound.run(without(), afterThis, "not kept"), 120_000);
  it(ABSENCE_SCENARIOS.solutionWindow.title, () => ABSENCE_SCENARIOS.solutionWindow.run(without(), afterThis, "not kept"), 120_000);
});

describe("with mod_muc_keep_protocol, across an absence", () => {
  it(ABSENCE_SCENARIOS.contributionWindow.title, () => ABSENCE_SCENARIOS.contributionWindow.run(server(), afterThis, "kept"), 120_000);
});

itReplaysEveryLoggedSessionAsSent();
