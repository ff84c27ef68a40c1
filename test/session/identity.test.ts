/**
 * Who may touch what in a session: a nick is not an identity, and only the starter, a
 * moderator or an allow-listed person may steer a session.
 */
import { describe, expect, it } from "vitest";
import type { Participant, Requester } from "../../src/session/types.js";
import { Driver, HUMAN, broadcasts, failedSolution, solution, tells } from "../support/session-fixtures.js";

const alice: Participant = { nick: "alice", jid: undefined, identity: "nick:alice" };
const aliceReturned: Participant = { nick: "alice", jid: undefined, identity: "nick:alice#2" };
const aliceByOccupantId: Participant = { nick: "alice", jid: undefined, identity: "occupant:AAA" };
const mallory: Participant = { nick: "alice", jid: undefined, identity: "occupant:MMM" };
const dana: Participant = { ...HUMAN, identity: "occupant:DANA" };

describe("a nick is not an identity", () => {
  it("a newcomer under a departed agent's nick cannot replace its contribution; the original stands", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    d.contribute("s1", alice, { turtle: "<#a> a <#Entity> ." });
    const effects = d.contribute("s1", aliceReturned, { turtle: "<#evil> a <#Entity> ." });
    expect(tells(effects, "alice")[0]?.text).toMatch(/earlier as someone else.*theirs stands/);
    expect(d.session().contributions.alice?.turtle).toBe("<#a> a <#Entity> .");
    expect(d.session().contributions.alice?.agentIdentity).toBe("nick:alice");
  });

  it("the same identity replaces its own contribution, under any capitalisation of its nick", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    d.contribute("s1", aliceByOccupantId, { turtle: "<#a> a <#Entity> ." });
    d.contribute("s1", { ...aliceByOccupantId, nick: "Alice" }, { turtle: "<#b> a <#Entity> ." });
    expect(Object.values(d.session().contributions).map((c) => c.turtle)).toEqual(["<#b> a <#Entity> ."]);
  });

  it("proposals get the same check: another identity cannot replace a proposal, nor propose under a contributor's nick", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    d.contribute("s1", aliceByOccupantId);
    d.contribute("s1", { nick: "bob", jid: undefined, identity: "occupant:BBB" });
    d.answer("s1", { ok: true, analysis: { conforms: true, violations: 0, warnings: 0, findings: [], summary: "ok", modelTurtle: "", tripleCount: 1 } });
    expect(d.session().phase).toBe("reasoning");
    const refused = d.propose("s1", mallory, solution({ message: "mallory's plan" }));
    expect(tells(refused, "alice")[0]?.text).toMatch(/this proposal was not accepted/);
    expect(d.session().proposals).toEqual([]);
    d.propose("s1", aliceByOccupantId, failedSolution("alice's own"));
    d.propose("s1", mallory, solution({ message: "mallory again" }));
    expect(d.session().proposals.map((p) => p.solution.message)).toEqual(["alice's own"]);
  });

  it("late contributions (during reasoning) are checked too", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"] });
    d.contribute("s1", aliceByOccupantId);
    d.answer("s1", { ok: true, analysis: { conforms: true, violations: 0, warnings: 0, findings: [], summary: "ok", modelTurtle: "", tripleCount: 1 } });
    const effects = d.contribute("s1", mallory);
    expect(tells(effects, "alice")[0]?.text).toMatch(/earlier as someone else/);
    expect(d.session().late).toEqual([]);
  });

  it("logs written before identities existed still compare by real JID", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    d.contribute("s1", { nick: "alice", jid: "alice@agents.example" });
    const effects = d.contribute("s1", { nick: "alice", jid: "mallory@evil.example", identity: "occupant:MMM" });
    expect(tells(effects, "alice")[0]?.text).toMatch(/earlier as someone else/);
  });
});

describe("who may steer a session", () => {
  const bob: Requester = { nick: "bob", jid: undefined, identity: "occupant:BOB" };

  it("cancel from an ordinary occupant is refused with who may; the session goes on", () => {
    const d = new Driver();
    d.start({ by: dana });
    const effects = d.feed({ kind: "cancel", sessionId: "s1", by: bob });
    expect(tells(effects, "bob")[0]?.text).toBe("Only dana, who started s1, a room moderator, or someone on mfr:allowCommandsFrom may cancel s1.");
    expect(broadcasts(effects, "SessionComplete")).toEqual([]);
    expect(d.session().phase).toBe("collecting");
  });

  it("a moderator may cancel, and the starter is told who did", () => {
    const d = new Driver();
    d.start({ by: dana });
    const effects = d.feed({ kind: "cancel", sessionId: "s1", by: { ...bob, standing: "moderator" } });
    expect(broadcasts(effects, "SessionComplete")[0]?.status).toBe("cancelled");
    expect(tells(effects, "dana")[0]?.text).toBe("Your session s1 was cancelled by bob (a room moderator).");
  });

  it("the starter cancels without being told about it; a renamed starter is still the starter", () => {
    const d = new Driver();
    d.start({ by: dana });
    const effects = d.feed({ kind: "cancel", sessionId: "s1", by: { ...dana, nick: "dana-away" } });
    expect(broadcasts(effects, "SessionComplete")[0]?.status).toBe("cancelled");
    expect(tells(effects, "dana")).toEqual([]);
  });

  it("someone taking the starter's nick is not the starter", () => {
    const d = new Driver();
    d.start({ by: dana });
    const effects = d.feed({ kind: "cancel", sessionId: "s1", by: { nick: "dana", jid: undefined, identity: "nick:dana#2" } });
    expect(tells(effects, "dana")[0]?.text).toMatch(/^Only dana, who started s1/);
    expect(d.session().phase).toBe("collecting");
  });

  it("approval and choice follow the same rule: an allow-listed person may, a bystander may not", () => {
    const d = new Driver();
    d.start({
      by: dana,
      expectedAgents: ["planner", "robot"],
      choose: { method: "catalog", outcome: { kind: "chosen", agents: ["planner", "robot"], reasons: { planner: "plans", robot: "acts" } } },
      approvalRequired: ["robot"],
    });
    expect(d.session().selection?.stage).toBe("approving");
    const refused = d.feed({ kind: "approval", sessionId: "s1", by: bob, approved: true });
    expect(tells(refused, "bob")[0]?.text).toMatch(/may approve agents for s1/);
    expect(d.session().selection?.stage).toBe("approving");
    d.feed({ kind: "approval", sessionId: "s1", by: { ...bob, standing: "allow-listed" }, approved: false });
    expect(d.session().phase).toBe("collecting");
    expect(d.session().requestedAgents).toEqual(["planner"]);
  });
});
