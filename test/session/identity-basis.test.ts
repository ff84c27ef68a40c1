/**
 * A change of the room's identity basis is not a change of person: after the shell says the
 * room now identifies occupants on another basis (real JIDs → occupant ids → nicks, or back),
 * what an agent held under its nick is re-bound to it once; a second identity on the same
 * basis is still someone else, and without the announcement nothing is re-bound.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { basisChangeExplains, basisOf } from "../../src/session/identity-basis.js";
import { replay } from "../../src/session/replay.js";
import { emptySessions } from "../../src/session/step.js";
import type { IdentityBasis, Participant, Session } from "../../src/session/types.js";
import type { Effect, Input } from "../../src/session/step-io.js";
import { basisChangeInputs, basisOfRoom } from "../../src/catch-up/room-basis.js";
import { Driver, conforming, contributionInput, finding, ofKind, ok, startInput, tells, violating, visible } from "../support/session-fixtures.js";

const modelerByJid: Participant = { nick: "modeler", jid: "a1@agents.example", identity: "jid:a1@agents.example" };
const modelerByOccupantId: Participant = { nick: "modeler", jid: undefined, identity: "occupant:M1" };
const strangerByOccupantId: Participant = { nick: "modeler", jid: undefined, identity: "occupant:M2" };
const modelerByNick: Participant = { nick: "modeler", jid: undefined, identity: "nick:modeler" };
const bobByJid: Participant = { nick: "bob", jid: "bob@agents.example", identity: "jid:bob@agents.example" };

function basisChange(basis: IdentityBasis, sessionId = "s1"): Input {
  return { kind: "identity-basis", sessionId, basis, room: "room@conference.example" };
}

/** Both agents contributed under real JIDs; the model has a violation of modeler's, so modeler is asked for a fix. */
function inFixRound(): Driver {
  const d = new Driver();
  d.start({ expectedAgents: ["modeler", "bob"] });
  d.advance(1_000).contribute("s1", modelerByJid, { turtle: "<#m> a <#Entity> ." });
  d.advance(1_000).contribute("s1", bobByJid);
  d.advance(500).answer("s1", ok(violating([finding({ agents: ["modeler"] })])));
  expect(d.session().round).toBe(2);
  return d;
}

/** Both agents contributed under real JIDs, and the solution window is open. */
function inReasoning(): Driver {
  const d = new Driver();
  d.start({ expectedAgents: ["modeler", "bob"] });
  d.advance(1_000).contribute("s1", modelerByJid);
  d.advance(1_000).contribute("s1", bobByJid);
  d.advance(500).answer("s1", ok(conforming()));
  expect(d.session().phase).toBe("reasoning");
  return d;
}

function warnings(effects: readonly Effect[]): string[] {
  return ofKind(effects, "log")
    .filter((l) => l.level === "warn")
    .map((l) => l.msg);
}

describe("the identity-basis input", () => {
  it("records the basis, logs the change once at info, and says nothing in the room", () => {
    const d = inFixRound();
    const effects = d.advance(1_000).feed(basisChange("occupant"));
    expect(d.session().identityBasis).toBe("occupant");
    expect(visible(effects)).toEqual([]);
    expect(ofKind(effects, "log")).toEqual([
      { kind: "log", level: "info", msg: "room identity basis changed", data: { sessionId: "s1", from: "jid", to: "occupant", room: "room@conference.example" } },
    ]);
    const again = d.advance(1_000).feed(basisChange("occupant"));
    expect(ofKind(again, "log").filter((l) => l.level === "info")).toEqual([]);
    d.advance(1_000).feed(basisChange("nick"));
    expect(ofKind(d.last, "log")[0]?.data).toMatchObject({ from: "occupant", to: "nick" });
    expect(d.session().identityBasis).toBe("nick");
  });

  it("for a session nobody knows, changes nothing", () => {
    const d = new Driver();
    const effects = d.feed(basisChange("occupant", "nobody"));
    expect(d.state.byId).toEqual({});
    expect(visible(effects)).toEqual([]);
  });
});

describe("contributions across a change of the room's identity basis", () => {
  it("after jid → occupant ids, the same nick's fix is taken and re-bound; a second occupant id under it is refused", () => {
    const d = inFixRound();
    d.advance(1_000).feed(basisChange("occupant"));
    const fix = d.advance(1_000).contribute("s1", modelerByOccupantId, { turtle: "<#m> a <#Entity> ; <#type> <#T> ." });
    expect(tells(fix, "modeler")[0]?.text).not.toMatch(/earlier as someone else/);
    expect(warnings(fix)).toEqual(["the room's identity basis changed from jid to occupant; nick modeler re-bound to occupant:M1"]);
    const taken = d.session().contributions.modeler;
    expect(taken).toMatchObject({ turtle: "<#m> a <#Entity> ; <#type> <#T> .", agentIdentity: "occupant:M1", agentJid: undefined, round: 2 });

    const stranger = d.advance(1_000).contribute("s1", strangerByOccupantId, { turtle: "<#evil> a <#Entity> ." });
    expect(tells(stranger, "modeler")[0]?.text).toMatch(/earlier as someone else.*theirs stands/);
    expect(d.session().contributions.modeler).toEqual(taken);
  });

  it("re-binds once: the next contribution of the re-bound agent is an ordinary replacement", () => {
    const d = inFixRound();
    d.advance(1_000).feed(basisChange("occupant"));
    d.advance(1_000).contribute("s1", modelerByOccupantId);
    const next = d.advance(1_000).contribute("s1", modelerByOccupantId, { turtle: "<#m2> a <#Entity> ." });
    expect(warnings(next)).toEqual([]);
    expect(d.session().contributions.modeler?.turtle).toBe("<#m2> a <#Entity> .");
  });

  it("without an announced change, an occupant id where a real JID contributed is still refused", () => {
    const d = inFixRound();
    const effects = d.advance(1_000).contribute("s1", modelerByOccupantId, { turtle: "<#other> a <#Entity> ." });
    expect(tells(effects, "modeler")[0]?.text).toMatch(/earlier as someone else/);
    expect(warnings(effects)).toEqual(["contribution under a nick that another identity used earlier"]);
    expect(d.session().contributions.modeler?.agentIdentity).toBe("jid:a1@agents.example");
  });

  it("only the announced basis explains a difference: a nick lineage after a change to occupant ids is refused", () => {
    const d = inFixRound();
    d.advance(1_000).feed(basisChange("occupant"));
    const effects = d.advance(1_000).contribute("s1", modelerByNick);
    expect(tells(effects, "modeler")[0]?.text).toMatch(/earlier as someone else/);
    expect(d.session().contributions.modeler?.agentIdentity).toBe("jid:a1@agents.example");
  });

  it("another real JID under the nick stays refused after a change to occupant ids (same basis as what it held)", () => {
    const d = inFixRound();
    d.advance(1_000).feed(basisChange("occupant"));
    const effects = d.advance(1_000).contribute("s1", { nick: "modeler", jid: "mallory@evil.example", identity: "jid:mallory@evil.example" });
    expect(tells(effects, "modeler")[0]?.text).toMatch(/earlier as someone else/);
  });

  it("and back: occupant ids → real JIDs re-binds again", () => {
    const d = inFixRound();
    d.advance(1_000).feed(basisChange("occupant"));
    d.advance(1_000).contribute("s1", modelerByOccupantId);
    d.advance(1_000).feed(basisChange("jid"));
    const effects = d.advance(1_000).contribute("s1", modelerByJid);
    expect(warnings(effects)).toEqual(["the room's identity basis changed from occupant to jid; nick modeler re-bound to jid:a1@agents.example"]);
    expect(d.session().contributions.modeler).toMatchObject({ agentIdentity: "jid:a1@agents.example", agentJid: "a1@agents.example" });
  });

  it("announcing the same basis again later does not open the nick to another identity on it", () => {
    const d = inFixRound();
    d.advance(1_000).feed(basisChange("occupant"));
    d.advance(1_000).contribute("s1", modelerByOccupantId);
    d.advance(1_000).feed(basisChange("nick"));
    d.advance(1_000).feed(basisChange("occupant"));
    const effects = d.advance(1_000).contribute("s1", strangerByOccupantId);
    expect(tells(effects, "modeler")[0]?.text).toMatch(/earlier as someone else/);
  });
});

describe("proposals across a change of the room's identity basis", () => {
  it("after jid → occupant ids, the contributor's proposal is taken and its contribution re-bound; another occupant id is refused", () => {
    const d = inReasoning();
    d.advance(1_000).feed(basisChange("occupant"));
    const effects = d.advance(1_000).propose("s1", modelerByOccupantId);
    expect(tells(effects, "modeler")).toEqual([]);
    expect(warnings(effects)).toEqual(["the room's identity basis changed from jid to occupant; nick modeler re-bound to occupant:M1"]);
    expect(d.session().proposals.map((p) => p.agentIdentity)).toEqual(["occupant:M1"]);
    expect(d.session().contributions.modeler).toMatchObject({ agentIdentity: "occupant:M1", agentJid: undefined });

    const stranger = d.advance(1_000).propose("s1", strangerByOccupantId);
    expect(tells(stranger, "modeler")[0]?.text).toMatch(/this proposal was not accepted/);
    expect(d.session().proposals.map((p) => p.agentIdentity)).toEqual(["occupant:M1"]);
  });

  it("without an announced change, the proposal is refused", () => {
    const d = inReasoning();
    const effects = d.advance(1_000).propose("s1", modelerByOccupantId);
    expect(tells(effects, "modeler")[0]?.text).toMatch(/this proposal was not accepted/);
    expect(warnings(effects)).toEqual(["proposal under a nick that another identity used earlier"]);
    expect(d.session().proposals).toEqual([]);
  });

  it("late contributions are re-bound with the rest", () => {
    const d = inReasoning();
    d.advance(1_000).contribute("s1", modelerByJid);
    expect(d.session().late).toHaveLength(1);
    d.advance(1_000).feed(basisChange("occupant"));
    d.advance(1_000).propose("s1", modelerByOccupantId);
    expect(d.session().late.map((c) => c.agentIdentity)).toEqual(["occupant:M1"]);
  });
});

describe("replay of an identity-basis change", () => {
  it("rebuilds the live state, re-binding included", () => {
    const d = new Driver();
    const logged: Array<{ input: Input; at: number }> = [];
    const feed = (input: Input, at: number) => {
      d.feed(input, at);
      logged.push({ input, at });
    };
    const t = d.now;
    feed(startInput({ expectedAgents: ["modeler", "bob"] }), t);
    feed(contributionInput("s1", modelerByJid), t + 1_000);
    feed(basisChange("occupant"), t + 2_000);
    feed(contributionInput("s1", modelerByOccupantId), t + 3_000);
    feed(contributionInput("s1", strangerByOccupantId), t + 4_000);
    const replayed = replay(emptySessions(), JSON.parse(JSON.stringify(logged)) as typeof logged);
    expect(replayed.applied).toBe(logged.length);
    expect(replayed.state).toEqual(JSON.parse(JSON.stringify(d.state)));
    expect(replayed.state.byId.s1?.identityBasis).toBe("occupant");
    expect(replayed.state.byId.s1?.contributions.modeler?.agentIdentity).toBe("occupant:M1");
  });
});

describe("the rule, over random sequences of identities and basis changes", () => {
  /** Identity keys on each basis, two per basis: the same agent and someone else. */
  const identities: Participant[] = (["jid", "occupant", "nick"] as const).flatMap((basis) =>
    [1, 2].map((n): Participant => {
      if (basis === "jid") return { nick: "modeler", jid: `m${n}@agents.example`, identity: `jid:m${n}@agents.example` };
      if (basis === "occupant") return { nick: "modeler", jid: undefined, identity: `occupant:M${n}` };
      return { nick: "modeler", jid: undefined, identity: n === 1 ? "nick:modeler" : "nick:modeler#2" };
    }),
  );
  type Event = { kind: "basis"; basis: IdentityBasis } | { kind: "contribute" | "propose"; who: number };
  const event: fc.Arbitrary<Event> = fc.oneof(
    fc.record({ kind: fc.constant("basis" as const), basis: fc.constantFrom<IdentityBasis>("jid", "occupant", "nick") }),
    fc.record({ kind: fc.constantFrom("contribute" as const, "propose" as const), who: fc.nat(identities.length - 1) }),
  );

  /** The identity keys of everything held under modeler's nick. */
  function heldIdentities(session: Session): Set<string | undefined> {
    const held = [...Object.values(session.contributions), ...session.proposals, ...session.late].filter((h) => h.agent === "modeler");
    return new Set(held.map((h) => h.agentIdentity));
  }

  it("never accepts a different identity on the same basis, nor on another without the announced change", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.nat(identities.length - 1), fc.array(event, { minLength: 1, maxLength: 30 }), (reasoning, first, events) => {
        const d = new Driver();
        d.start({ expectedAgents: ["modeler", "bob"] });
        // bob never proposes, so the solution window stays open: every proposal meets the rule.
        d.advance(1_000).contribute("s1", identities[first] as Participant);
        if (reasoning) {
          d.advance(1_000).contribute("s1", bobByJid);
          d.advance(1_000).answer("s1", ok(conforming()));
        }
        for (const e of events) {
          d.advance(1_000);
          if (e.kind === "basis") {
            d.feed(basisChange(e.basis));
            continue;
          }
          const before = d.session();
          const earlier = heldIdentities(before);
          const sender = identities[e.who] as Participant;
          if (e.kind === "contribute") d.contribute("s1", sender);
          else d.propose("s1", sender);
          const after = heldIdentities(d.session());
          // Everything under the nick belongs to one identity, whatever happened.
          expect(after.size).toBeLessThanOrEqual(1);
          if (!after.has(sender.identity)) continue;
          for (const held of earlier) {
            if (held === sender.identity) continue;
            // Taken from someone else: only across bases, and only onto the one announced.
            expect(basisOf(held)).not.toBe(basisOf(sender.identity));
            expect(before.identityBasis).toBe(basisOf(sender.identity));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("basisChangeExplains agrees: never within one basis", () => {
    fc.assert(
      fc.property(fc.nat(identities.length - 1), fc.nat(identities.length - 1), fc.constantFrom<IdentityBasis | undefined>("jid", "occupant", "nick", undefined), (held, from, announced) => {
        const d = new Driver();
        d.start();
        const session: Session = { ...d.session(), ...(announced ? { identityBasis: announced } : {}) };
        const h = (identities[held] as Participant).identity;
        const f = identities[from] as Participant;
        if (basisOf(h) === basisOf(f.identity)) expect(basisChangeExplains(session, h, f)).toBe(false);
      }),
    );
  });
});

describe("the shell's side: a change of the primary room's basis", () => {
  const held = (identity: string, receivedAt: number) => ({ agent: "modeler", agentJid: undefined, agentIdentity: identity, receivedAt });
  const session = (id: string, extra: Partial<Session>) => ({ id, contributions: {}, proposals: [], ...extra }) as unknown as Session;

  it("tells each live session whose known basis differs from the room's, and no other", () => {
    const occupantIds = { occupantIds: true, realJids: false };
    const live = [
      // Known from what it holds: its newest contribution was under a real JID.
      session("s1", { contributions: { modeler: held("jid:modeler@localhost", 2), old: held("occupant:X", 1) } as never }),
      // Announced before.
      session("s2", { identityBasis: "jid" }),
      // Already on the room's basis.
      session("s3", { identityBasis: "occupant" }),
      // Holds nothing yet: nothing to re-bind.
      session("s4", {}),
    ];
    expect(basisChangeInputs("room@c", occupantIds, live)).toEqual([
      { kind: "identity-basis", sessionId: "s1", basis: "occupant", room: "room@c" },
      { kind: "identity-basis", sessionId: "s2", basis: "occupant", room: "room@c" },
    ]);
    // The same room again: nothing more to say.
    expect(basisChangeInputs("room@c", occupantIds, [session("s1", { identityBasis: "occupant" })])).toEqual([]);
  });

  it("reads the basis as identity keys are built: real JIDs, else occupant ids, else nicks", () => {
    expect(basisOfRoom({ occupantIds: true, realJids: true })).toBe("jid");
    expect(basisOfRoom({ occupantIds: true, realJids: false })).toBe("occupant");
    expect(basisOfRoom({ occupantIds: false, realJids: false })).toBe("nick");
  });
});
