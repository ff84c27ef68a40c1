import { describe, expect, it } from "vitest";
import { AgentCatalog, type OccupantFacts } from "../../src/agent-choice/catalog.js";
import type { EvidenceRow } from "../../src/agent-choice/evidence.js";
import { LINGUE_FEATURES } from "../../src/base/vocab.js";
import { profile } from "./helpers.js";

const LINGUE_FEATURE = LINGUE_FEATURES[1];
const MUC = "http://jabber.org/protocol/muc";
const T = 1_700_000_000_000;

function catalog(evidence: EvidenceRow[] = []) {
  return new AgentCatalog([profile("Prolog"), profile("Mistral"), profile("Moderator", { isChair: true })], { selfNick: "Coordinator", chairNick: "Chair", evidence });
}

const occ = (nick: string, identity = `occupant:${nick.toLowerCase()}`, more: Partial<OccupantFacts> = {}): OccupantFacts => ({ nick, identity, ...more });
const candidates = (c: AgentCatalog, exclude: OccupantFacts[] = []) => c.roomView(exclude).candidates.map((x) => [x.nick, x.evidence.join("+") || "might be"]);

describe("AgentCatalog: who is in the room", () => {
  it("lists every profiled agent, absent until it joins, present until it leaves", () => {
    const c = catalog();
    expect(c.listing().map((a) => [a.nick, a.present])).toEqual([
      ["Mistral", false],
      ["Moderator", false],
      ["Prolog", false],
    ]);
    c.occupantJoined(occ("Prolog"));
    expect(candidates(c)).toEqual([["Prolog", "profile"]]);
    expect(c.occupantLeft("Prolog")).toMatchObject({ nick: "Prolog", identity: "occupant:prolog" });
    expect(candidates(c)).toEqual([]);
    expect(c.roomView().absent).toEqual(["Mistral", "Prolog"]);
  });

  it("matches room nicks to profile nicks case-insensitively and shows the room's spelling while present", () => {
    const c = catalog();
    c.occupantJoined(occ("prolog"));
    expect(c.listing()[0]).toMatchObject({ nick: "prolog", present: true, evidence: ["profile"] });
    c.occupantLeft("PROLOG");
    expect(c.listing().find((a) => a.nick === "Prolog")?.present).toBe(false);
  });

  it("an occupant with no evidence might be an agent; one who typed a command is a person; the coordinator is neither", () => {
    const c = catalog();
    c.occupantJoined(occ("alice"));
    c.occupantJoined(occ("Semantic"));
    c.occupantJoined(occ("Coordinator"));
    expect(c.needsDiscovery("Coordinator")).toBe(false);
    expect(candidates(c)).toEqual([["alice", "might be"], ["Semantic", "might be"]]);
    expect(c.notePerson(occ("alice"), T)).toMatchObject({ kind: "person", nick: "alice" });
    expect(candidates(c)).toEqual([["Semantic", "might be"]]);
    expect(c.listing().map((a) => a.nick)).not.toContain("alice");
    expect(c.isAgent(occ("alice"))).toBe(false);
  });

  it("leaves out the person asking, by identity", () => {
    const c = catalog();
    c.occupantJoined(occ("dana"));
    c.occupantJoined(occ("Prolog"));
    expect(candidates(c, [occ("dana")])).toEqual([["Prolog", "profile"]]);
  });

  it("knows the Chair by the configured nick, or by a profile that marks it; the Chair is never a candidate", () => {
    const c = catalog();
    expect(c.presentChair()).toBeUndefined();
    c.occupantJoined(occ("chair"));
    expect(c.presentChair()).toMatchObject({ nick: "chair", identity: "occupant:chair" });
    expect(candidates(c)).toEqual([]);
    c.occupantLeft("chair");
    c.occupantJoined(occ("Moderator"));
    expect(c.presentChair()?.nick).toBe("Moderator");
    expect(candidates(c)).toEqual([]);
  });
});

describe("AgentCatalog: evidence", () => {
  it("asks for disco#info once per identity; Lingue features are evidence, other features are not", () => {
    const c = catalog();
    expect(c.needsDiscovery("Helper")).toBe(false); // not in the room
    c.occupantJoined(occ("Helper"));
    expect(c.needsDiscovery("Helper")).toBe(true);
    expect(c.needsDiscovery("helper")).toBe(false);
    expect(c.featuresDiscovered("Helper", [MUC, LINGUE_FEATURE], T)).toMatchObject({ identity: "occupant:helper", kind: "disco", firstSeen: T });
    expect(candidates(c)).toEqual([["Helper", "disco"]]);
    c.occupantLeft("Helper");
    c.occupantJoined(occ("Helper"));
    expect(c.needsDiscovery("Helper")).toBe(false);

    c.occupantJoined(occ("bob"));
    c.needsDiscovery("bob");
    expect(c.featuresDiscovered("bob", [MUC], T)).toBeUndefined();
  });

  it("someone else under a known nick is someone else: asked again, and without the evidence", () => {
    const c = catalog();
    c.occupantJoined(occ("Helper", "occupant:a"));
    c.needsDiscovery("Helper");
    c.featuresDiscovered("Helper", [LINGUE_FEATURE], T);
    c.noteProtocol(occ("Helper", "occupant:a"), "contribution", T);
    c.occupantLeft("Helper");
    c.occupantJoined(occ("Helper", "occupant:b"));
    expect(c.needsDiscovery("Helper")).toBe(true);
    expect(candidates(c)).toEqual([["Helper", "might be"]]);
    expect(c.isAgent(occ("Helper", "occupant:b"))).toBe(false);
  });

  it("protocol messages make an agent, counted by identity; it stays one under a new nick", () => {
    const c = catalog();
    c.occupantJoined(occ("planner", "occupant:p"));
    c.noteProtocol(occ("planner", "occupant:p"), "contribution", T);
    c.noteProtocol(occ("planner", "occupant:p"), "contribution", T + 1);
    const row = c.noteProtocol(occ("planner", "occupant:p"), "proposal", T + 2);
    expect(row).toEqual({ identity: "occupant:p", nick: "planner", kind: "protocol", firstSeen: T, lastSeen: T + 2, contributions: 2, proposals: 1 });
    c.occupantLeft("planner");
    c.occupantJoined(occ("helper", "occupant:p", { formerNicks: ["planner"] }));
    expect(c.isAgent({ nick: "helper", identity: "occupant:p" })).toBe(true);
    expect(c.roomView().candidates[0]).toMatchObject({ nick: "helper", evidence: ["protocol"], contributions: 2, proposals: 1 });
    // Typing a command does not turn an agent into a person.
    expect(c.notePerson(occ("helper", "occupant:p"), T + 3)).toBeUndefined();
  });

  it("a profile counts for the nick and the nicks the same occupant had before", () => {
    const c = catalog();
    expect(c.isAgent({ nick: "prolog2", identity: "nick:prolog", formerNicks: ["Prolog"] })).toBe(true);
    expect(c.isAgent({ nick: "prolog2", identity: "nick:prolog2" })).toBe(false);
  });

  it("a 1:1 message from the account of an agent in the room is from an agent", () => {
    const c = catalog();
    c.occupantJoined(occ("planner", "occupant:p", { realJid: "planner@localhost" }));
    c.noteProtocol(occ("planner", "occupant:p"), "other", T);
    expect(c.isAgent({ identity: "jid:planner@localhost", realJid: "planner@localhost" })).toBe(true);
    expect(c.isAgent({ identity: "jid:dana@localhost", realJid: "dana@localhost" })).toBe(false);
  });

  it("a consensus naming an occupant is evidence", () => {
    const c = catalog();
    c.occupantJoined(occ("Semantic"));
    expect(c.noteConsensus("semantic", T)).toMatchObject({ kind: "consensus", nick: "Semantic" });
    expect(c.noteConsensus("nobody", T)).toBeUndefined();
    expect(candidates(c)).toEqual([["Semantic", "consensus"]]);
  });

  it("remembers across restarts: rows written by one catalog make an agent for the next, also absent ones", () => {
    const first = catalog();
    const rows: EvidenceRow[] = [];
    first.occupantJoined(occ("MfrSemantic", "nick:mfrsemantic#2"));
    rows.push(first.noteProtocol(occ("MfrSemantic", "nick:mfrsemantic#2"), "contribution", T));
    first.occupantJoined(occ("Gone", "occupant:gone"));
    rows.push(first.noteProtocol(occ("Gone", "occupant:gone"), "proposal", T));
    // A nick lineage is counted afresh by each process: evidence follows the nick.
    expect(rows[0]?.identity).toBe("nick:mfrsemantic");

    const next = catalog(rows);
    next.occupantJoined(occ("MfrSemantic", "nick:mfrsemantic"));
    expect(next.roomView().candidates).toMatchObject([{ nick: "MfrSemantic", evidence: ["protocol"], contributions: 1 }]);
    expect(next.roomView().absent).toEqual(["Gone", "Mistral", "Prolog"]);
    expect(next.listing().find((a) => a.nick === "Gone")).toMatchObject({ present: false, evidence: ["protocol"], proposals: 1 });
  });
});

describe("AgentCatalog: bounds", () => {
  it("keeps only a bounded number of features per occupant", () => {
    const c = catalog();
    c.occupantJoined(occ("Helper"));
    c.featuresDiscovered("Helper", Array.from({ length: 500 }, (_, i) => `${LINGUE_FEATURE}/${i}`), T);
    expect(c.roomView().candidates[0]?.declared.modes.split(", ").length).toBeLessThanOrEqual(100);
  });

  it("keeps evidence for at most maxIdentities identities, the least recently seen forgotten first", () => {
    const c = new AgentCatalog([], { maxIdentities: 2 });
    for (const nick of ["a", "b", "c"]) c.noteProtocol(occ(nick), "other", T);
    expect(c.isAgent(occ("a"))).toBe(false);
    expect(c.isAgent(occ("b"))).toBe(true);
    expect(c.isAgent(occ("c"))).toBe(true);
  });
});
