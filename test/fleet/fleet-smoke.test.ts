/**
 * Two instances on one database over a real Prosody and a real PostgreSQL: one owns the
 * room and runs a session; kill -9 it in the contribution window; the other takes over,
 * catches up on the contribution sent while nobody owned the room, and completes the
 * session once, with nothing sent twice.
 */
import { describe, expect, it } from "vitest";
import { MFR } from "../../src/base/vocab.js";
import { CoordinatorProcess, type CoordinatorProcessOptions } from "../support/coordinator-process.js";
import { sentTwice } from "../support/core-scenarios.js";
import { TestPeer, type ReceivedMessage } from "../support/peer.js";
import { useTestPostgres } from "../support/postgres.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, ScriptedAgent } from "../support/scripted-agent.js";
import { toldPrivately } from "../support/room-kit.js";

const { server, afterThis } = useTestProsody();
const { server: postgres } = useTestPostgres();

const negotiation = (type: string) => (m: ReceivedMessage) => m.payload?.messageType === `${MFR}${type}`;
const json = (m: ReceivedMessage) => m.payload?.json as Record<string, unknown>;
const tookOver = (l: { msg?: unknown }) => l.msg === "took over room";

describe("two instances on one database", () => {
  it("a kill -9 of the owner in the contribution window: the standby takes over and the session completes once", async () => {
    const room = uniqueRoom(server());
    const database = await postgres().createDatabase();
    const env = (id: string) => ({ MFR_DATABASE_URL: database, MFR_INSTANCE_ID: id, MFR_LEASE_MS: "3000", MFR_LEASE_RENEW_MS: "1000", MFR_LEASE_MARGIN_MS: "500" });
    const options: CoordinatorProcessOptions = { server: server(), room, mfrConfig: "mfr:contributionTimeout 12000 ; mfr:reasoningTimeout 12000 ;", env: env("first") };
    const first = await CoordinatorProcess.start(options);
    afterThis(() => first.kill());
    await first.waitForLog(tookOver, 20_000);
    const second = await first.restartBeside({ ...options, env: env("second") });
    afterThis(() => second.kill());
    await second.waitForLog((l) => l.msg === "standing by", 20_000);

    const human = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "alice")));
    afterThis(() => human.stop());
    await human.joinRoom(room, "alice");
    const modeler = await ScriptedAgent.join(server(), room, "modeler", { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION });
    afterThis(() => modeler.stop());
    const planner = await ScriptedAgent.join(server(), room, "planner", { solution: () => GOOD_SOLUTION });
    afterThis(() => planner.stop());
    await modeler.announce();
    await planner.announce();
    await new Promise((r) => setTimeout(r, 300));

    await human.sendGroupchat(room, { body: "mfr-start Deliver goods from the depot" });
    const sessionId = String(json(await human.waitForMessage(negotiation("ModelContributionRequest"), 15_000)).sessionId);
    await modeler.peer.waitForMessage(toldPrivately(room, "Contribution received"), 15_000);
    await first.kill();
    // While nobody owns the room.
    await planner.contribute(sessionId, PLANNER_TURTLE);
    await second.waitForLog(tookOver, 20_000);

    const complete = await human.waitForMessage(negotiation("SessionComplete"), 30_000);
    expect(json(complete)).toMatchObject({ sessionId, status: "solved" });
    // Both contributions count: the one taken in before the kill (from the database) and the one sent while nobody owned the room (from its history).
    expect(String(json(complete).summary)).toContain("modeler: 3 entities, 1 action");
    expect(String(json(complete).summary)).toContain("planner: 1 constraint, 1 goal");
    expect(human.messages.filter(negotiation("SessionComplete"))).toHaveLength(1);
    expect(sentTwice(human.messages, room)).toEqual([]);
  }, 120_000);
});
