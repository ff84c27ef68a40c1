/**
 * A model sent in parts is bulk: the coordinator hands the server one part at a time, so a
 * reply to a person's command is not queued behind megabytes of model in the socket. Over a
 * real room: `help` asked as the first part of a large SolutionRequest arrives is answered
 * before the last part arrives (order, not time), and the session's own messages keep their
 * order (the parts in order, then the SolutionRequest).
 */
import { describe, expect, it } from "vitest";
import { Mode } from "../../src/base/vocab.js";
import { CONTRIBUTION_PREFIXES, largeContributionStatements, splitIntoParts } from "../support/large-contribution.js";
import type { ReceivedMessage } from "../support/peer.js";
import { uniqueRoom, useTestProsody } from "../support/prosody.js";
import { COORDINATOR_NICK, helpAnswer, negotiation, roomKit, startSession, toldPrivately } from "../support/room-kit.js";
import { MODELER_TURTLE, PLANNER_TURTLE } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();
const kit = roomKit(server, afterThis);

/** Enough triples for a model of about ten parts at the shipped stanza limit. */
const TRIPLES = 20_000;

describe("bulk sends over a real room", () => {
  it("help asked while a model goes out in parts is answered before its last part", { timeout: 120_000 }, async () => {
    const room = uniqueRoom(server());
    const coordinator = await kit.coordinator(room, "mfr:contributionTimeout 60000 ; mfr:reasoningTimeout 20000 ; mfr:validationTimeout 60000 ;");
    const alice = await kit.person(room, "alice");
    const modeler = await kit.agent(room, "modeler", {}, { coordinator });
    const planner = await kit.agent(room, "planner", {}, { coordinator });
    const sessionId = await startSession(alice, room, "Deliver goods from the depot to the warehouse");

    const big = largeContributionStatements(TRIPLES);
    await modeler.contributeInParts(sessionId, splitIntoParts(CONTRIBUTION_PREFIXES, [MODELER_TURTLE.replace(/^@prefix.*\n/gm, ""), ...big.statements], 200_000));
    await modeler.peer.waitForMessage(toldPrivately(room, `Contribution received for ${sessionId}`), 60_000);
    await planner.contribute(sessionId, PLANNER_TURTLE);

    const modelPart = (m: ReceivedMessage) => m.from === `${room}/${COORDINATOR_NICK}` && m.payload?.mode === Mode.ModelFirstRDF && m.siblings.sessionId === sessionId;
    const first = await alice.waitForMessage(modelPart, 90_000);
    const n = Number(first.siblings.modelPart?.split("/")[1]);
    expect(n).toBeGreaterThan(3);
    await alice.sendGroupchat(room, { body: "help" });
    await alice.waitForMessage(helpAnswer(room), 30_000);
    const request = await alice.waitForMessage(negotiation("SolutionRequest", sessionId), 60_000);

    const inOrder = alice.messages;
    const parts = inOrder.filter(modelPart);
    expect(parts.map((m) => m.siblings.modelPart)).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}/${n}`));
    const helpAt = inOrder.findIndex(helpAnswer(room));
    const lastPartAt = inOrder.indexOf(parts.at(-1) as ReceivedMessage);
    expect(helpAt).toBeLessThan(lastPartAt);
    expect(inOrder.indexOf(request)).toBeGreaterThan(lastPartAt);
  });
});
