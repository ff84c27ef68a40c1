/** The shell's side of choosing: the room it hands the core, the routing of debate lines, departures, and evidence kept across runs. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { EvidenceJournal, EvidenceRow } from "../../src/agent-choice/evidence.js";
import { AgentChooser } from "../../src/agent-choice/agent-chooser.js";
import type { Participant, Session } from "../../src/session/types.js";
import { Driver } from "../support/session-fixtures.js";

const T = 1_700_000_000_000;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

class MemoryJournal implements EvidenceJournal {
  rows: EvidenceRow[] = [];
  loadEvidence(): EvidenceRow[] {
    return [...this.rows];
  }
  saveEvidence(row: EvidenceRow): void {
    this.rows = [...this.rows.filter((r) => !(r.identity === row.identity && r.kind === row.kind)), row];
  }
}

function chooser(journal = new MemoryJournal()): AgentChooser {
  const dir = mkdtempSync(join(tmpdir(), "mfr-chooser-"));
  dirs.push(dir);
  return new AgentChooser({
    agentsDir: dir,
    ownProfile: join(dir, "coordinator.ttl"),
    ownNick: "Coordinator",
    chairNick: "Chair",
    enableDebate: true,
    log: pino({ level: "silent" }),
    now: () => T,
    discover: () => Promise.resolve(null),
    journal,
  });
}

const DANA: Participant = { nick: "dana", jid: undefined, identity: "occupant:dana" };
const occ = (nick: string) => ({ nick, identity: `occupant:${nick.toLowerCase()}` });

function roomOfExistingAgents(c: AgentChooser): void {
  for (const nick of ["Chair", "Prolog", "MfrSemantic", "dana"]) c.occupantJoined(occ(nick));
}

/** A session debating in the core, as the host would hold it. */
function debatingSession(c: AgentChooser): Session {
  const plan = c.planDebate(DANA, []);
  const d = new Driver();
  d.start({ by: DANA, choose: plan.choose?.("s1"), ...(plan.room ? { room: plan.room } : {}) });
  return d.session();
}

describe("AgentChooser", () => {
  it("plans a debate with the Chair present, pinned to its identity; the room leaves out the Chair and the asker", () => {
    const c = chooser();
    roomOfExistingAgents(c);
    const plan = c.planDebate(DANA, []);
    expect(plan.choose?.("s1")).toEqual({ method: "debate", chair: "Chair", chairIdentity: "occupant:chair" });
    expect(plan.room?.candidates.map((x) => x.nick)).toEqual(["MfrSemantic", "Prolog"]);
    expect(plan.expectedAgents).toEqual([]);
    expect(plan.expectedProposers).toBeNull();
    expect(plan.note).toBeUndefined();
  });

  it("without a Chair, or with the Chair busy, selects from the room and says why first", () => {
    const c = chooser();
    c.occupantJoined(occ("Prolog"));
    expect(c.planDebate(DANA, [])).toMatchObject({ note: "No Chair (Chair) is in the room; choosing agents from the room." });
    c.occupantJoined(occ("Chair"));
    const busy = c.planDebate(DANA, [{ id: "s0" } as Session]);
    expect(busy.choose?.("s1")).toEqual({ method: "catalog" });
    expect(busy.note).toBe("Chair is already leading the debate of s0; choosing agents from the room for this one.");
  });

  it("expects agents that speak the protocol, and as proposers those that proposed before", () => {
    const c = chooser();
    roomOfExistingAgents(c);
    c.protocolFrom(occ("Prolog"), "proposal");
    c.protocolFrom(occ("Prolog"), "contribution");
    c.protocolFrom(occ("MfrSemantic"), "contribution");
    const plan = c.planStart(DANA);
    expect(plan.expectedAgents).toEqual(["MfrSemantic", "Prolog"]);
    expect(plan.expectedProposers).toEqual(["Prolog"]);
    expect(plan.expectedSolvers).toEqual([]);
  });

  it("takes an agent that proposes but never models for a planner: awaited for solutions, not for contributions", () => {
    const c = chooser();
    roomOfExistingAgents(c);
    c.protocolFrom(occ("Prolog"), "proposal");
    c.protocolFrom(occ("MfrSemantic"), "contribution");
    const plan = c.planStart(DANA);
    expect(plan.expectedAgents).toEqual(["MfrSemantic"]);
    expect(plan.expectedProposers).toEqual(["Prolog"]);
    expect(plan.expectedSolvers).toEqual(["Prolog"]);
  });

  it("routes the Chair's lines to the debate with the room attached; another's consensus is not routed", () => {
    const c = chooser();
    roomOfExistingAgents(c);
    const session = debatingSession(c);
    expect(c.debateInput(occ("Prolog") as Participant, "Consensus reached: use prolog", [session])).toBeNull();
    const input = c.debateInput({ nick: "Chair", jid: undefined, identity: "occupant:chair" }, "Noted. Consensus reached: Use prolog, semantic for this problem.", [session]);
    expect(input).toMatchObject({ kind: "debate", sessionId: "s1", line: { kind: "consensus", names: ["prolog", "semantic"] } });
    expect(input?.room?.candidates.map((x) => x.nick)).toEqual(["MfrSemantic", "Prolog"]);
    expect(c.debateInput(occ("Prolog") as Participant, "Position: I plan", [session])).toMatchObject({ line: { kind: "position", text: "I plan" } });
    expect(c.debateInput(occ("Prolog") as Participant, "hello", [session])).toBeNull();
  });

  it("keeps the agents named in a consensus as evidence, across runs", () => {
    const journal = new MemoryJournal();
    const c = chooser(journal);
    roomOfExistingAgents(c);
    c.commandFrom(occ("dana"));
    c.debateInput({ nick: "Chair", jid: undefined, identity: "occupant:chair" }, "Consensus reached: use semantic", [debatingSession(c)]);
    expect(journal.rows.map((r) => [r.nick, r.kind])).toEqual([
      ["dana", "person"],
      ["MfrSemantic", "consensus"],
    ]);
    const next = chooser(journal);
    expect(next.isAgent(occ("MfrSemantic"))).toBe(true);
    next.occupantJoined(occ("dana"));
    next.occupantJoined(occ("Prolog"));
    // dana typed a command in the earlier run: a person, not a candidate.
    expect(next.roomFor({ nick: "erin", jid: undefined, identity: "occupant:erin" }).candidates.map((x) => x.nick)).toEqual(["Prolog"]);
  });

  it("turns a departure into inputs only for sessions that might ask the one who left", () => {
    const c = chooser();
    roomOfExistingAgents(c);
    const d = new Driver();
    d.start({ sessionId: "s1", by: DANA, choose: { method: "catalog", outcome: { kind: "chosen", agents: ["Prolog"], reasons: {} } }, approvalRequired: ["Prolog"] });
    d.start({ sessionId: "s2", by: DANA, choose: { method: "catalog", outcome: { kind: "chosen", agents: ["MfrSemantic"], reasons: {} } }, approvalRequired: ["MfrSemantic"] });
    const gone = c.occupantLeft("Prolog");
    expect(gone).toBeDefined();
    const inputs = c.departures(gone ?? occ("Prolog"), [d.session("s1"), d.session("s2")]);
    expect(inputs.map((i) => [i.sessionId, i.who.nick])).toEqual([["s1", "Prolog"]]);
    expect(inputs[0]?.room.candidates.map((x) => x.nick)).toEqual(["MfrSemantic"]);
  });
});
