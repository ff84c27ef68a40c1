import { describe, expect, it } from "vitest";
import { mapNames } from "../../src/session/selection-names.js";
import type { Participant, RoomView, SelectionOutcome } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import { candidate, existingAgentsRoom, room } from "../agent-choice/helpers.js";
import { Driver, HUMAN, broadcasts, ofKind, onlyBroadcast, plain, says, settings, tells, who } from "../support/session-fixtures.js";

const CHAIR: Participant = { nick: "Chair", jid: undefined, identity: "occupant:chair" };
const IMPOSTOR: Participant = { nick: "Chair", jid: undefined, identity: "occupant:someone-else" };
const chosen = (agents: string[]): SelectionOutcome => ({ kind: "chosen", agents, reasons: Object.fromEntries(agents.map((a) => [a, `fits: ${a}`])) });
const unclear: SelectionOutcome = {
  kind: "unclear",
  why: "Prolog and Mistral fit equally well.",
  options: [
    { number: 1, agent: "Prolog", reason: "planning" },
    { number: 2, agent: "Mistral", reason: "language" },
    { number: 3, agent: "Data", reason: "lookup" },
  ],
};
/** Profiled agents that declare what they do. */
const declaring = (...nicks: string[]) => room(nicks.map((n) => candidate(n, { capabilities: [n === "Data" ? "lookup" : "planning"] })));

function debating(start: RoomView = existingAgentsRoom(), chairIdentity: string | undefined = CHAIR.identity, approvalRequired: string[] = []): Driver {
  const d = new Driver();
  d.start({
    problem: "Plan the delivery of crates under the truck's capacity",
    choose: { method: "debate", chair: "Chair", ...(chairIdentity ? { chairIdentity } : {}) },
    room: start,
    approvalRequired,
    settings: settings({ debateTimeoutMs: 30_000 }),
  });
  return d;
}

const debateLine = (line: Extract<Input, { kind: "debate" }>["line"], from: Participant = CHAIR, at?: RoomView): Input => ({ kind: "debate", sessionId: "s1", from, line, ...(at ? { room: at } : {}) });
const consensus = (text: string, names: string[]) => ({ kind: "consensus" as const, text, names });
const requested = (effects: ReturnType<Driver["feed"]>) => onlyBroadcast(effects, "ModelContributionRequest").requestedAgents;

describe("choosing agents with a Chair's debate", () => {
  it("posts the invitation of docs/protocol.md, with the room's agents, and nothing else", () => {
    const d = debating();
    expect(d.session().phase).toBe("selecting");
    expect(says(d.last).map((e) => e.text)).toEqual([
      [
        "Session: s1",
        "Issue: Which tools and agents should we use to solve this problem?",
        "Problem: Plan the delivery of crates under the truck's capacity",
        "Available agents: MfrSemantic, Prolog.",
        "Respond with Position/Support/Objection.",
      ].join("\n"),
    ]);
    expect(broadcasts(d.last, "ModelContributionRequest")).toHaveLength(0);
    expect(ofKind(d.last, "schedule")[0]?.at).toBe(d.now + 30_000);
  });

  it("stays quiet while the debate runs; the Chair's consensus, mapped onto the room, decides who is asked", () => {
    const d = debating();
    for (const input of [
      debateLine({ kind: "started" }),
      debateLine({ kind: "position", text: "Use Prolog for planning" }, who("MfrSemantic")),
      debateLine({ kind: "support", text: "agreed" }, who("Prolog")),
      debateLine(consensus("Consensus reached: Use prolog for this problem.", ["prolog"]), IMPOSTOR, existingAgentsRoom()),
    ]) {
      expect(d.advance(1_000).feed(input).filter((e) => e.kind !== "log")).toEqual([]);
    }
    const effects = d.advance(1_000).feed(debateLine(consensus("Consensus reached: Use prolog, semantic, gpt9 for this problem.", ["prolog", "semantic", "gpt9"]), CHAIR, existingAgentsRoom()));
    expect(says(effects)[0]?.text).toBe('Session s1: from the consensus, "prolog" is Prolog; "semantic" is MfrSemantic; "gpt9" matched nobody.');
    expect(requested(effects)).toEqual(["Prolog", "MfrSemantic"]);
    // Status, not an invitation: said with the status mark, which Chairs skip (room-lines.ts).
    expect(says(effects).every((e) => e.forChairs === undefined)).toBe(true);
    expect(d.session().phase).toBe("collecting");
    expect(d.session().selection?.notes).toEqual([
      { from: "MfrSemantic", kind: "position", text: "Use Prolog for planning" },
      { from: "Prolog", kind: "support", text: "agreed" },
    ]);
  });

  it("takes the Chair's lines only from the identity pinned when the debate opened", () => {
    const d = debating();
    const refused = d.feed(debateLine(consensus("Consensus reached: Use prolog.", ["prolog"]), IMPOSTOR, existingAgentsRoom()));
    expect(ofKind(refused, "log").map((l) => l.msg)).toContain("a Chair's line from someone else under the Chair's nick ignored");
    expect(d.session().phase).toBe("selecting");
    // The pinned Chair under a new nick is still the Chair.
    expect(requested(d.feed(debateLine(consensus("Use semantic for this problem.", ["semantic"]), { ...CHAIR, nick: "Chair2" }, existingAgentsRoom())))).toEqual(["MfrSemantic"]);
  });

  it("without an identity at the start, the first to speak as the Chair is pinned", () => {
    const d = debating(existingAgentsRoom(), undefined);
    d.feed(debateLine({ kind: "started" }, CHAIR));
    d.feed(debateLine(consensus("Consensus reached: use prolog", ["prolog"]), IMPOSTOR, existingAgentsRoom()));
    expect(d.session().phase).toBe("selecting");
    expect(requested(d.feed(debateLine(consensus("Consensus reached: use prolog", ["prolog"]), CHAIR, existingAgentsRoom())))).toEqual(["Prolog"]);
  });

  it("falls back when the debate times out, choosing from the room as it is then, and says so", () => {
    const d = debating(declaring("Prolog"));
    const at = ofKind(d.last, "schedule")[0]?.at ?? 0;
    const effects = d.feed({ kind: "deadline", sessionId: "s1", at, room: declaring("Data", "Planner") }, at);
    expect(plain(says(effects)[0]?.text)).toBe("Session s1: no consensus within 30 s; choosing agents from the room instead.");
    expect(requested(effects)).toEqual(["Planner"]);
    expect(d.session().selection?.method).toContain("debate timed out");
  });

  it("falls back at once when the consensus names nobody in the room, or the Chair says there is none", () => {
    const d = debating();
    const effects = d.feed(debateLine(consensus("Use gpt9.", ["gpt9"]), CHAIR, existingAgentsRoom()));
    expect(says(effects).map((e) => e.text)).toEqual([
      'Session s1: from the consensus, "gpt9" matched nobody.',
      "Session s1: the consensus named no agent in the room; choosing agents from the room instead.",
      "Session s1: none of the agents in the room says what it can do, so I ask every occupant that might be an agent: MfrSemantic and Prolog.",
    ]);
    expect(requested(effects)).toEqual(["MfrSemantic", "Prolog"]);
    const e = debating();
    expect(requested(e.feed(debateLine({ kind: "no-consensus", text: "No consensus." }, CHAIR, declaring("Data", "Planner"))))).toEqual(["Planner"]);
  });

  it("ignores debate lines once the debate is over", () => {
    const d = debating();
    d.feed(debateLine(consensus("Use prolog", ["prolog"]), CHAIR, existingAgentsRoom()));
    const effects = d.feed(debateLine(consensus("Use semantic", ["semantic"]), CHAIR, existingAgentsRoom()));
    expect(broadcasts(effects, "ModelContributionRequest")).toHaveLength(0);
    expect(d.session().requestedAgents).toEqual(["Prolog"]);
  });

  it("replays a log written before names were mapped in the core (the shell's resolution, the start's fallback)", () => {
    const d = new Driver();
    d.start({ choose: { method: "debate", chair: "Chair", invitation: "Debate session: s1\nIssue: …", fallback: chosen(["Data"]) } });
    expect(says(d.last)[0]?.text).toBe("Debate session: s1\nIssue: …");
    const effects = d.feed(debateLine({ kind: "consensus", text: "Use prolog, gpt9", agents: ["Prolog"], ignored: ["gpt9"] }, who("Chair")));
    expect(requested(effects)).toEqual(["Prolog"]);
    const e = new Driver();
    e.start({ choose: { method: "debate", chair: "Chair", invitation: "…", fallback: chosen(["Data"]) } });
    expect(requested(e.expire())).toEqual(["Data"]);
    const f = new Driver();
    expect(requested(f.start({ choose: { method: "catalog", outcome: chosen(["Prolog"]) } }))).toEqual(["Prolog"]);
  });
});

describe("mapping a consensus's names onto the room (docs/protocol.md, Debate with a Chair, step 3)", () => {
  const agents = room([candidate("Prolog", null), candidate("MfrSemantic", null), candidate("MFR-Planner2", null)], ["Data"]);
  const map = (...names: string[]) => mapNames(names, agents);

  it("case, punctuation and trailing words are ignored", () => {
    expect(map("prolog", "PROLOG!", "Prolog agent", "prolog's")).toEqual([{ name: "prolog", agent: "Prolog" }, { name: "Prolog agent", agent: "Prolog" }, { name: "prolog's", agent: "Prolog" }]);
    expect(map("mfr semantic")).toEqual([{ name: "mfr semantic", agent: "MfrSemantic" }]);
    expect(map("mfr-semantic reasoner")).toEqual([{ name: "mfr-semantic reasoner", agent: "MfrSemantic" }]);
  });

  it("a distinctive part of exactly one nick counts: 'semantic' is MfrSemantic, 'planner' is MFR-Planner2", () => {
    expect(map("semantic", "planner", "planner2")).toEqual([
      { name: "semantic", agent: "MfrSemantic" },
      { name: "planner", agent: "MFR-Planner2" },
      { name: "planner2", agent: "MFR-Planner2" },
    ]);
    expect(mapNames(["semantic"], room([candidate("MFR-Semantic", null)]))).toEqual([{ name: "semantic", agent: "MFR-Semantic" }]);
    // A nick written in one piece: a name that begins or ends it, four letters or more.
    expect(mapNames(["semantic", "mfr"], room([candidate("mfrsemantic", null)]))).toEqual([{ name: "semantic", agent: "mfrsemantic" }, { name: "mfr", nobody: true }]);
  });

  it("a part of several nicks matches nobody and says which it could be; a longer word is not a nick", () => {
    expect(map("mfr")).toEqual([{ name: "mfr", ambiguous: ["MFR-Planner2", "MfrSemantic"] }]);
    expect(map("prologue", "database")).toEqual([
      { name: "prologue", nobody: true },
      { name: "database", nobody: true },
    ]);
  });

  it("a known agent that is away is named as away; unknown names match nobody", () => {
    expect(map("data", "gpt9")).toEqual([{ name: "data", absent: "Data" }, { name: "gpt9", nobody: true }]);
  });

  it("the same name mapped once; a room nick spelled exactly wins over a part of another", () => {
    expect(mapNames(["semantic"], room([candidate("Semantic", null), candidate("MfrSemantic", null)]))).toEqual([{ name: "semantic", agent: "Semantic" }]);
  });
});

describe("selection from the room, with clarification", () => {
  it("a clear choice is explained, one line per agent, and only those agents are asked", () => {
    const d = new Driver();
    const effects = d.start({ choose: { method: "catalog" }, room: declaring("Prolog", "Data"), problem: "planning and lookup" });
    const explanation = says(effects).find((e) => e.text.includes("agents chosen"))?.text ?? "";
    expect(explanation.split("\n")).toEqual([
      "Session s1: agents chosen (selection from the room):",
      "  Data: matches 'lookup' in its capabilities",
      "  Prolog: matches 'planning' in its capabilities",
    ]);
    expect(requested(effects)).toEqual(["Data", "Prolog"]);
  });

  it("a room of agents nobody knows anything about is asked as a whole, never a failure", () => {
    const d = new Driver();
    const effects = d.start({ choose: { method: "catalog" }, room: existingAgentsRoom() });
    expect(requested(effects)).toEqual(["MfrSemantic", "Prolog"]);
    const e = new Driver();
    const nobody = e.start({ choose: { method: "catalog" }, room: room([]) });
    expect(says(nobody)[0]?.text).toBe("Session s1: no occupant of the room might be an agent, so I ask anyone in the room who answers.");
    expect(requested(nobody)).toBeNull();
  });

  it("asks the person with numbered options and takes their `use` answer", () => {
    const d = new Driver();
    const effects = d.start({ choose: { method: "catalog", outcome: unclear } });
    const question = says(effects)[0]?.text ?? "";
    expect(question).toMatch(/^Session s1 needs clarification/);
    expect(question).toContain("  1. Prolog: planning");
    expect(question).toContain('answer with "use 1,3"');
    expect(broadcasts(effects, "ModelContributionRequest")).toHaveLength(0);

    expect(tells(d.feed({ kind: "choice", sessionId: "s1", by: who("mallory"), choice: [1] }), "mallory")[0]?.text).toContain("Only dana");
    expect(tells(d.feed({ kind: "choice", sessionId: "s1", by: HUMAN, choice: [1, 7] }), "dana")[0]?.text).toContain("there is no 7");
    expect(requested(d.feed({ kind: "choice", sessionId: "s1", by: HUMAN, choice: [1, 3] }))).toEqual(["Prolog", "Data"]);
  });

  it("`use all` takes every option", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: unclear } });
    expect(requested(d.feed({ kind: "choice", sessionId: "s1", by: HUMAN, choice: "all" }))).toEqual(["Prolog", "Mistral", "Data"]);
  });

  it("gives up with a clear report when nobody answers", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: unclear }, settings: settings({ debateTimeoutMs: 20_000 }) });
    const complete = onlyBroadcast(d.expire(), "SessionComplete");
    expect(complete.status).toBe("timed-out");
    expect(plain(complete.reason)).toContain("Nobody chose the agents within 20 s");
  });
});

describe("agents that leave while agents are being chosen", () => {
  const departure = (nick: string, now: RoomView): Input => ({ kind: "departure", sessionId: "s1", who: who(nick), room: now });

  it("an option that leaves is withdrawn, with a line; when none is left the room is asked again", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: { ...unclear, options: unclear.options.slice(0, 2) } } });
    expect(says(d.feed(departure("prolog", declaring("Mistral", "Data"))))[0]?.text).toBe("Session s1: Prolog left the room; option 1 is withdrawn.");
    expect(tells(d.feed({ kind: "choice", sessionId: "s1", by: HUMAN, choice: [1] }), "dana")[0]?.text).toContain("there is no 1");
    const effects = d.feed(departure("Mistral", room([candidate("Data", null)])));
    expect(requested(effects)).toEqual(["Data"]);
  });

  it("a chosen agent waiting for approval that leaves is dropped; the others are asked", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: chosen(["Prolog", "Executor"]) }, approvalRequired: ["Executor"] });
    const effects = d.feed(departure("Executor", declaring("Prolog")));
    expect(says(effects)[0]?.text).toBe("Session s1: Executor left the room; it will not be asked.");
    expect(requested(effects)).toEqual(["Prolog"]);
  });

  it("when every chosen agent has left, the room as it is now replaces them", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: chosen(["Executor"]) }, approvalRequired: ["Executor"] });
    expect(requested(d.feed(departure("Executor", existingAgentsRoom())))).toEqual(["MfrSemantic", "Prolog"]);
  });

  it("a departure during a debate, or of someone not chosen, changes nothing and says nothing", () => {
    const d = debating();
    expect(d.feed(departure("Prolog", room([]))).filter((e) => e.kind !== "log")).toEqual([]);
  });
});

describe("agents that act in the world need a person's approval", () => {
  it("approve includes them", () => {
    const d = new Driver();
    const effects = d.start({ choose: { method: "catalog", outcome: chosen(["Prolog", "Executor"]) }, approvalRequired: ["executor"] });
    expect(broadcasts(effects, "ModelContributionRequest")).toHaveLength(0);
    expect(says(effects).some((e) => e.text.startsWith("Session s1: Executor acts in the world") && e.text.includes('"approve s1"'))).toBe(true);
    expect(requested(d.feed({ kind: "approval", sessionId: "s1", by: HUMAN, approved: true }))).toEqual(["Prolog", "Executor"]);
  });

  it("reject leaves them out", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: chosen(["Prolog", "Executor"]) }, approvalRequired: ["Executor"] });
    expect(requested(d.feed({ kind: "approval", sessionId: "s1", by: HUMAN, approved: false }))).toEqual(["Prolog"]);
  });

  it("no answer leaves them out; never requested without approval", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: chosen(["Executor", "Prolog"]) }, approvalRequired: ["Executor"] });
    const effects = d.expire();
    expect(says(effects)[0]?.text).toContain("leaving Executor out");
    expect(requested(effects)).toEqual(["Prolog"]);
    for (const b of broadcasts(d.all, "ModelContributionRequest")) expect(b.requestedAgents).not.toContain("Executor");
  });

  it("mfr-start with such an agent present asks for approval before inviting everyone", () => {
    const d = new Driver();
    const effects = d.start({ expectedAgents: ["alice", "Executor"], approvalRequired: ["Executor"] });
    expect(broadcasts(effects, "ModelContributionRequest")).toHaveLength(0);
    expect(d.session().phase).toBe("selecting");
    expect(requested(d.feed({ kind: "approval", sessionId: "s1", by: HUMAN, approved: false }))).toEqual(["alice"]);
  });

  it("approve when nothing waits gets a clear answer", () => {
    const d = new Driver();
    d.start();
    expect(tells(d.feed({ kind: "approval", sessionId: "s1", by: HUMAN, approved: true }), "dana")[0]?.text).toContain("not waiting for an approval");
  });
});

describe("selection and the rest of the session", () => {
  it("cancel while choosing ends the session once", () => {
    const d = debating();
    expect(onlyBroadcast(d.cancel(), "SessionComplete").status).toBe("cancelled");
    expect(d.completions()).toBe(1);
  });

  it("the window closes early once every chosen agent has contributed; others are accepted and noted", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: chosen(["Prolog"]) } });
    expect(tells(d.contribute("s1", "Mistral"), "Mistral")[0]?.text).toContain("You were not asked");
    expect(d.session().phase).toBe("collecting");
    d.contribute("s1", "Prolog");
    expect(d.session().phase).toBe("validating");
    expect(d.session().contributions.Mistral?.requested).toBe(false);
  });

  it("the summary says how the agents were chosen", () => {
    const d = debating();
    d.feed(debateLine(consensus("Use prolog", ["prolog"]), CHAIR, existingAgentsRoom()));
    expect(onlyBroadcast(d.cancel(), "SessionComplete").summary).toContain("Agents: Prolog (debate led by Chair).");
  });
});

describe("a clarification's example fits its options", () => {
  it("offers 'use 1,2' for two options and 'use 1' for one", () => {
    for (const [count, example] of [[2, "use 1,2"], [1, "use 1"]] as const) {
      const d = new Driver();
      const options = [
        { number: 1, agent: "Prolog", reason: "planning" },
        { number: 2, agent: "Mistral", reason: "language" },
      ].slice(0, count);
      const effects = d.start({ choose: { method: "catalog", outcome: { kind: "unclear", options, why: "Several fit." } } });
      expect(says(effects)[0]?.text).toContain(`answer with "${example}"`);
    }
  });
});
