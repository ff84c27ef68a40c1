/**
 * The core scenarios (test/support/core-scenarios.ts) against ejabberd 23.01 from Debian's
 * packages, started with the project's tested configuration (ejabberd/ejabberd.yml), and
 * what changes where an operator leaves the project's module out: ejabberd then archives
 * no message without a <body>, which is how the agents send theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { CORE_SCENARIOS, coreScenarios } from "../support/core-scenarios.js";
import { startTestEjabberd, useTestEjabberd, type LocalEjabberd } from "../support/ejabberd.js";
import { TestPeer } from "../support/peer.js";
import { peerOptions, registerUser, uniqueRoom } from "../support/prosody.js";
import { json, negotiation, toldPrivately } from "../support/room-kit.js";
import { MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent } from "../support/scripted-agent.js";

const { server, afterThis } = useTestEjabberd();

coreScenarios(server, afterThis);

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

  it("a body-less contribution said while the coordinator is away is archived nowhere, so it is not taken in (the limit the module lifts)", async () => {
    const room = uniqueRoom(without());
    const options = { server: without(), room, mfrConfig: "mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ;" };
    const coordinator = await CoordinatorProcess.start(options);
    afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    await coordinator.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("created the room and configured it"));
    const human = await TestPeer.connect(peerOptions(without(), await registerUser(without(), "alice")));
    afterThis(() => human.stop());
    await human.joinRoom(room, "alice");
    const modeler = await ScriptedAgent.join(without(), room, "modeler", { contribution: () => MODELER_TURTLE });
    afterThis(() => modeler.stop());
    await modeler.announce();
    const planner = await ScriptedAgent.join(without(), room, "planner", {});
    afterThis(() => planner.stop());
    await planner.announce();
    await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
    const sessionId = String(json(await human.waitForMessage(negotiation("ModelContributionRequest"))).sessionId);
    await modeler.peer.waitForMessage(toldPrivately(room, "Contribution received"));
    await coordinator.kill();
    await planner.contribute(sessionId, PLANNER_TURTLE);
    await new Promise((r) => setTimeout(r, 500));
    const back = await coordinator.restart(options);
    afterThis(() => back.kill());
    await back.joined(room);
    // The archive is read, and has nothing after the last message taken in: no gap is seen.
    await back.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("caught up on") && l.caughtUp === 0);
    await new Promise((r) => setTimeout(r, 500));
    expect(back.logs.some((l) => l.msg === "contribution accepted" && l.agent === "planner")).toBe(false);
    expect(planner.peer.messages.filter(toldPrivately(room, "Contribution received"))).toEqual([]);
  });
});

itReplaysEveryLoggedSessionAsSent();
