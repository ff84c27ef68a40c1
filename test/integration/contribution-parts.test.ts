/**
 * Contributions in parts over a real room (docs/protocol.md, "ModelFirstRDF contributions"): each
 * part a ModelFirstRDF message with `modelPart` = "k/n" and a complete Turtle document; the
 * contribution is the union of parts 1..n from one sender, counted once all have arrived
 * while the model is open, and a new part 1/n starts it over. Parts 2..n may come in any
 * order; another occupant's parts never join a series; a broken part is named; parts still
 * missing when the model closes mean the contribution is not used, and the agent is told.
 *
 * The end-to-end case sends ~50k triples; MFR_PARTS_TRIPLES=100000 makes it larger, and it
 * prints the time to the validation result and the coordinator's peak RSS (docs/agents.md,
 * "Contributions in parts"); MFR_PARTS_TRACE=1 also prints when each step was logged.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../../src/config/schema.js";
import { Mode } from "../../src/base/vocab.js";
import { itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { CONTRIBUTION_PREFIXES, largeContributionStatements, splitIntoParts } from "../support/large-contribution.js";
import { uniqueRoom, useTestProsody } from "../support/prosody.js";
import { json, negotiation, roomKit, startSession, toldPrivately } from "../support/room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, type ScriptedAgent } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();
const kit = roomKit(server, afterThis);

const TIMEOUTS = "mfr:contributionTimeout 8000 ; mfr:reasoningTimeout 8000 ; mfr:validationTimeout 10000 ;";
const PREFIXES = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n@prefix schema: <http://schema.org/> .\n";
/** MODELER_TURTLE as three complete documents: two entities; one entity; the action (with blank nodes). */
const MODELER_PARTS = [
  `${PREFIXES}<#truck> a mfr:Entity ; mfr:entityType "Vehicle" ; schema:name "Truck 1" .\n<#depot> a mfr:Entity ; mfr:entityType "Location" ; schema:name "Depot"@en .\n`,
  `${PREFIXES}<#warehouse> a mfr:Entity ; mfr:entityType "Location" ; schema:name "Warehouse" .\n`,
  `${PREFIXES}<#drive> a mfr:Action ; mfr:actionName "drive" ; mfr:hasParameter <#truck> ;
  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "at(truck, depot)" ] ;
  mfr:hasEffect [ a mfr:Effect ; mfr:expression "at(truck, warehouse)" ] .\n`,
];
/** The same model with another truck name, for what must not end up in the model. */
const TRUCK_2_PARTS = MODELER_PARTS.map((p) => p.replace('"Truck 1"', '"Truck 2"'));
const PLANNER_FAILS = { success: false, message: "The planner found no plan." };

/** A room with the coordinator, alice, and two announced agents (and more when named); alice starts a session. */
async function session(mfrConfig = TIMEOUTS, moreAgents: string[] = []) {
  const room = uniqueRoom(server());
  const coordinator = await kit.coordinator(room, mfrConfig);
  const alice = await kit.person(room, "alice");
  const modeler = await kit.agent(room, "modeler", {}, { coordinator });
  const planner = await kit.agent(room, "planner", {}, { coordinator });
  const others: ScriptedAgent[] = [];
  for (const nick of moreAgents) others.push(await kit.agent(room, nick, {}, { coordinator }));
  const sessionId = await startSession(alice, room, "Deliver goods from the depot to the warehouse");
  return { room, coordinator, alice, modeler, planner, others, sessionId };
}

/** Both propose; the session completes solved. */
async function bothProposeAndComplete(s: { alice: ScriptedAgent["peer"]; modeler: ScriptedAgent; planner: ScriptedAgent; sessionId: string }, timeoutMs = 10_000) {
  await s.modeler.propose(s.sessionId, GOOD_SOLUTION);
  await s.planner.propose(s.sessionId, PLANNER_FAILS);
  const complete = json(await s.alice.waitForMessage(negotiation("SessionComplete", s.sessionId), timeoutMs));
  expect(complete.status).toBe("solved");
  return complete;
}

const received = (room: string, sessionId: string) => toldPrivately(room, `Contribution received for ${sessionId}`);

describe("contributions in parts, over a real room", () => {
  it("a contribution in 3 parts, parts 2 and 3 swapped, is merged and validated as one contribution of its agent", async () => {
    const s = await session();
    await s.modeler.contributeInParts(s.sessionId, MODELER_PARTS, [1, 3, 2]);
    const ack = await s.modeler.peer.waitForMessage(received(s.room, s.sessionId));
    expect(ack.body).toBe(`Contribution received for ${s.sessionId} (3 parts): 18 triples (3 entities, 1 action).`);

    await s.planner.contribute(s.sessionId, PLANNER_TURTLE);
    const result = json(await s.alice.waitForMessage(negotiation("ModelValidationResult", s.sessionId), 10_000));
    expect(result.conforms).toBe(true);
    const model = String(json(await s.alice.waitForMessage(negotiation("SolutionRequest", s.sessionId), 10_000)).model);
    for (const text of ["Truck 1", "Warehouse", "at(truck, depot)", "at(truck, warehouse)"]) expect(model).toContain(text);

    const complete = await bothProposeAndComplete(s);
    expect(String(complete.summary)).toContain("modeler: 3 entities, 1 action");
    // The log reaches the test through a pipe, possibly after the room's messages: wait for the line.
    await s.coordinator.waitForLog((l) => l.msg === "contribution accepted" && l.agent === "modeler");
    const accepted = s.coordinator.logs.filter((l) => l.msg === "contribution accepted" && l.agent === "modeler");
    expect(accepted).toEqual([expect.objectContaining({ parts: 3, triples: 18 })]);
    // One answer for the whole contribution, none per part.
    expect(s.modeler.peer.messages.filter(toldPrivately(s.room, /./))).toHaveLength(1);
  });

  it("another occupant's part 2/3 completes nobody's contribution; a new part 1/n starts over; parts for no session get one answer", async () => {
    const s = await session();
    const mallory = await kit.person(s.room, "mallory");
    await s.modeler.contributePart(s.sessionId, TRUCK_2_PARTS[0] ?? "", "1/3");
    await s.modeler.contributePart(s.sessionId, TRUCK_2_PARTS[2] ?? "", "3/3");
    await s.coordinator.waitForLog((l) => l.msg === "contribution part received" && l.part === "3/3");

    // Part 2/3 from someone else, for the same session: refused, and it joins nothing.
    await mallory.sendGroupchat(s.room, { payload: { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: TRUCK_2_PARTS[1] ?? "" }, siblings: { sessionId: s.sessionId, modelPart: "2/3" } });
    const refusal = await mallory.waitForMessage(toldPrivately(s.room, `Part 2/3 of your contribution to ${s.sessionId} was not used: no part 1/3 came before it`));
    expect(refusal.body).toContain("send the contribution again from part 1.");

    // Parts for a session that does not exist: one answer, at part 1, not one per part.
    for (const k of [1, 2, 3]) {
      await mallory.sendGroupchat(s.room, { payload: { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: MODELER_PARTS[k - 1] ?? "" }, siblings: { sessionId: "no-such-session-1", modelPart: `${k}/3` } });
    }
    await mallory.waitForMessage(toldPrivately(s.room, 'There is no session "no-such-session-1".'));

    // The modeler starts over in two parts: the first series is dropped, the new one counts.
    await s.modeler.contributeInParts(s.sessionId, [MODELER_PARTS[0] ?? "", `${MODELER_PARTS[1] ?? ""}${(MODELER_PARTS[2] ?? "").replace(PREFIXES, "")}`]);
    const ack = await s.modeler.peer.waitForMessage(received(s.room, s.sessionId));
    expect(ack.body).toMatch(new RegExp(`^Contribution received for ${s.sessionId} \\(2 parts\\): 18 triples`));
    await s.coordinator.waitForLog((l) => l.msg === "contribution in parts started over by a new part 1" && l.dropped === "2 of 3");

    await s.planner.contribute(s.sessionId, PLANNER_TURTLE);
    const model = String(json(await s.alice.waitForMessage(negotiation("SolutionRequest", s.sessionId), 10_000)).model);
    expect(model).toContain("Truck 1");
    expect(model).not.toContain("Truck 2");
    await bothProposeAndComplete(s);
    expect(mallory.messages.filter(toldPrivately(s.room, "There is no session"))).toHaveLength(1);
    expect(s.modeler.peer.messages.filter(received(s.room, s.sessionId))).toHaveLength(1);
  });

  it("a contribution whose parts do not all arrive before the model closes is not used, and the agent is told", async () => {
    const s = await session(`${TIMEOUTS} mfr:quietPeriod 1500 ;`, ["slowpoke"]);
    const slow = s.others[0] as ScriptedAgent;
    const slowParts = MODELER_PARTS.map((p) => p.replace('"Truck 1"', '"Slow truck"'));
    await slow.contributePart(s.sessionId, slowParts[0] ?? "", "1/3");
    await slow.contributePart(s.sessionId, slowParts[1] ?? "", "2/3");
    await s.modeler.contribute(s.sessionId, MODELER_TURTLE);
    await s.planner.contribute(s.sessionId, PLANNER_TURTLE);

    // The slow agent was expected, so the window waits for the quiet period, then closes.
    const model = String(json(await s.alice.waitForMessage(negotiation("SolutionRequest", s.sessionId), 15_000)).model);
    expect(model).not.toContain("Slow truck");
    const told = await slow.peer.waitForMessage(toldPrivately(s.room, `Your contribution to ${s.sessionId} in 3 parts was not used`));
    expect(told.body).toBe(`Your contribution to ${s.sessionId} in 3 parts was not used: only 2 of its 3 parts had arrived when the model was closed.`);

    // The last part, too late: dropped without another answer.
    await slow.contributePart(s.sessionId, slowParts[2] ?? "", "3/3");
    await s.coordinator.waitForLog((l) => l.msg === "contribution part for a session not taking contributions dropped" && l.part === "3/3");
    await bothProposeAndComplete(s);
    expect(slow.peer.messages.filter(toldPrivately(s.room, /./))).toHaveLength(1);
  });

  it("a part that is not valid Turtle gets an answer naming the part, and the agent's earlier contribution stands", async () => {
    const s = await session();
    await s.modeler.contribute(s.sessionId, MODELER_TURTLE);
    await s.modeler.peer.waitForMessage(received(s.room, s.sessionId));
    await s.modeler.contributePart(s.sessionId, TRUCK_2_PARTS[0] ?? "", "1/3");
    await s.modeler.contributePart(s.sessionId, `${PREFIXES}<#crate> a mfr:Entity ;\n  schema:name "unterminated .\n`, "2/3");
    const reply = await s.modeler.peer.waitForMessage(toldPrivately(s.room, `Part 2/3 of your contribution to ${s.sessionId} is not valid Turtle`));
    expect(reply.body).toMatch(/line [34]/);
    expect(reply.body).toContain("None of the 3 parts is used. Your earlier contribution still stands; send a corrected one, from part 1.");
    // The rest of that series is dropped quietly.
    await s.modeler.contributePart(s.sessionId, TRUCK_2_PARTS[2] ?? "", "3/3");
    await s.coordinator.waitForLog((l) => l.msg === "part of a refused contribution dropped" && l.part === "3/3");

    await s.planner.contribute(s.sessionId, PLANNER_TURTLE);
    const model = String(json(await s.alice.waitForMessage(negotiation("SolutionRequest", s.sessionId), 10_000)).model);
    expect(model).toContain("Truck 1");
    expect(model).not.toContain("Truck 2");
    const complete = await bothProposeAndComplete(s);
    expect(String(complete.summary)).toContain("modeler: 3 entities, 1 action");
    expect(s.modeler.peer.messages.filter(toldPrivately(s.room, /./))).toHaveLength(2);
  });

  const TRIPLES = Number(process.env.MFR_PARTS_TRIPLES ?? 50_000);
  it(`a contribution of ~${TRIPLES} triples in parts works end to end`, { timeout: 180_000 }, async () => {
    // Past the shipped limit only when MFR_PARTS_TRIPLES asks for more.
    const limit = TRIPLES > DEFAULTS.maxTriplesPerContribution ? ` mfr:maxTriplesPerContribution ${TRIPLES} ;` : "";
    const s = await session(`mfr:contributionTimeout 60000 ; mfr:reasoningTimeout 20000 ; mfr:validationTimeout 60000 ;${limit}`);
    // The modeler's 18 triples and the rest, up to the number asked for.
    const big = largeContributionStatements(TRIPLES - 18);
    // Parts as an agent would size them: well under the coordinator's 224 KiB inbound limit.
    const parts = splitIntoParts(CONTRIBUTION_PREFIXES, [MODELER_TURTLE.replace(/^@prefix.*\n/gm, ""), ...big.statements], 200_000);
    const started = Date.now();
    await s.modeler.contributeInParts(s.sessionId, parts);
    const sent = Date.now();
    const ack = await s.modeler.peer.waitForMessage(toldPrivately(s.room, /./), 120_000);
    const acknowledged = Date.now();
    const triples = big.triples + 18;
    expect(ack.body).toMatch(new RegExp(`^Contribution received for ${s.sessionId} \\(${parts.length} parts\\): ${triples} triples \\(\\d+ entities, \\d+ state variables, \\d+ actions\\)\\.$`));

    await s.planner.contribute(s.sessionId, PLANNER_TURTLE);
    const result = json(await s.alice.waitForMessage(negotiation("ModelValidationResult", s.sessionId), 120_000));
    const validated = Date.now();
    expect(result.conforms).toBe(true);
    const request = json(await s.alice.waitForMessage(negotiation("SolutionRequest", s.sessionId), 60_000));
    expect(Number(request.modelTriples)).toBeGreaterThan(triples);
    expect(Number(request.modelParts)).toBeGreaterThan(1);
    await bothProposeAndComplete(s, 60_000);

    if (process.env.MFR_PARTS_TRACE) {
      const t0 = Number(s.coordinator.logs.find((l) => l.msg === "protocol message" && l.mode === Mode.ModelFirstRDF)?.time ?? 0);
      for (const l of s.coordinator.logs) if (/part|accepted|validation|analysis|merging|protocol message sent/.test(String(l.msg)) || (l.msg === "protocol message" && l.mode === Mode.ModelFirstRDF)) console.log(Number(l.time) - t0, l.msg, l.part ?? "");
    }
    const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.coordinator.child.pid}/status`, "utf8"))?.[1];
    console.log(
      `contribution of ${triples} triples in ${parts.length} parts (${(parts.reduce((n, p) => n + Buffer.byteLength(p), 0) / 1024 / 1024).toFixed(1)} MiB of Turtle): ` +
        `sent in ${sent - started} ms, acknowledged at ${acknowledged - started} ms, validation result at ${validated - started} ms; ` +
        `coordinator peak RSS ${peak ? `${(Number(peak) / 1024).toFixed(0)} MiB` : "unknown"}`,
    );
  });

  itReplaysEveryLoggedSessionAsSent();
});
