import { describe, expect, it } from "vitest";
import type { Input, Participant, SelectionOutcome } from "../../src/session/types.js";
import { Driver, HUMAN, broadcasts, ofKind, onlyBroadcast, says, settings, tells, who } from "../support/session-fixtures.js";

const CHAIR: Participant = { nick: "Chair", jid: "chair@agents.example" };
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

function debating(fallback: SelectionOutcome = chosen(["Data"]), approvalRequired: string[] = []): Driver {
  const d = new Driver();
  d.start({ choose: { method: "debate", chair: "Chair", invitation: "Debate session: s1\nIssue: …", fallback }, approvalRequired, settings: settings({ debateTimeoutMs: 30_000 }) });
  return d;
}

const debateLine = (line: Extract<Input, { kind: "debate" }>["line"], from: Participant = CHAIR): Input => ({ kind: "debate", sessionId: "s1", from, line });

describe("choosing agents with a Chair's debate", () => {
  it("posts the invitation, waits for the debate, and asks only the agents of the consensus", () => {
    const d = debating();
    expect(d.session().phase).toBe("selecting");
    expect(says(d.last)[0]?.text).toBe("Debate session: s1\nIssue: …");
    expect(broadcasts(d.last, "ModelContributionRequest")).toHaveLength(0);
    expect(ofKind(d.last, "schedule")[0]?.at).toBe(d.now + 30_000);

    d.feed(debateLine({ kind: "started" }));
    d.feed(debateLine({ kind: "position", text: "Use Prolog for planning" }, who("Mistral")));
    const effects = d.advance(5_000).feed(debateLine({ kind: "consensus", text: "Use prolog, mistral for this problem.", agents: ["Prolog", "Mistral"], ignored: ["gpt9"] }));
    const request = onlyBroadcast(effects, "ModelContributionRequest");
    expect(request.requestedAgents).toEqual(["Prolog", "Mistral"]);
    expect(says(effects).some((e) => e.text.includes('ignoring "gpt9"'))).toBe(true);
    expect(d.session().phase).toBe("collecting");
    expect(d.session().expectedAgents).toEqual(["Prolog", "Mistral"]);
    expect(d.session().selection?.notes).toEqual([{ from: "Mistral", kind: "position", text: "Use Prolog for planning" }]);
  });

  it("falls back to the catalog's selection when the debate times out, and says so", () => {
    const d = debating(chosen(["Data", "Prolog"]));
    const at = ofKind(d.last, "schedule")[0]?.at ?? 0;
    const effects = d.feed({ kind: "deadline", sessionId: "s1", at }, at);
    expect(says(effects)[0]?.text).toMatch(/no consensus within 30 s; choosing agents from the catalog/);
    expect(onlyBroadcast(effects, "ModelContributionRequest").requestedAgents).toEqual(["Data", "Prolog"]);
    expect(d.session().selection?.method).toContain("debate timed out");
  });

  it("falls back at once when the consensus names nobody known, or the Chair says there is none", () => {
    const d = debating(chosen(["Data"]));
    const effects = d.feed(debateLine({ kind: "consensus", text: "Use gpt9.", agents: [], ignored: ["gpt9"] }));
    expect(onlyBroadcast(effects, "ModelContributionRequest").requestedAgents).toEqual(["Data"]);
    const e = debating(chosen(["Data"]));
    expect(onlyBroadcast(e.feed(debateLine({ kind: "no-consensus", text: "No consensus." })), "ModelContributionRequest").requestedAgents).toEqual(["Data"]);
  });

  it("ignores debate lines once the debate is over", () => {
    const d = debating();
    d.feed(debateLine({ kind: "consensus", text: "Use Data", agents: ["Data"], ignored: [] }));
    const effects = d.feed(debateLine({ kind: "consensus", text: "Use Prolog", agents: ["Prolog"], ignored: [] }));
    expect(broadcasts(effects, "ModelContributionRequest")).toHaveLength(0);
    expect(d.session().requestedAgents).toEqual(["Data"]);
  });
});

describe("selection from the catalog, with clarification", () => {
  it("a clear choice is explained, one line per agent, and only those agents are asked", () => {
    const d = new Driver();
    const effects = d.start({ choose: { method: "catalog", outcome: chosen(["Prolog", "Data"]) } });
    const explanation = says(effects).find((e) => e.text.includes("agents chosen"))?.text ?? "";
    expect(explanation.split("\n")).toEqual(["s1: agents chosen (selection from the catalog):", "  Prolog: fits: Prolog", "  Data: fits: Data"]);
    expect(onlyBroadcast(effects, "ModelContributionRequest").requestedAgents).toEqual(["Prolog", "Data"]);
  });

  it("asks the person with numbered options and takes their `use` answer", () => {
    const d = new Driver();
    const effects = d.start({ choose: { method: "catalog", outcome: unclear } });
    const question = says(effects)[0]?.text ?? "";
    expect(question).toContain("needs clarification");
    expect(question).toContain("  1. Prolog: planning");
    expect(question).toContain('answer with "use 1,3"');
    expect(broadcasts(effects, "ModelContributionRequest")).toHaveLength(0);

    expect(tells(d.feed({ kind: "choice", sessionId: "s1", by: who("mallory"), choice: [1] }), "mallory")[0]?.text).toContain("Only dana");
    expect(tells(d.feed({ kind: "choice", sessionId: "s1", by: HUMAN, choice: [1, 7] }), "dana")[0]?.text).toContain("there is no 7");
    const chosenEffects = d.feed({ kind: "choice", sessionId: "s1", by: HUMAN, choice: [1, 3] });
    expect(onlyBroadcast(chosenEffects, "ModelContributionRequest").requestedAgents).toEqual(["Prolog", "Data"]);
  });

  it("`use all` takes every option", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: unclear } });
    expect(onlyBroadcast(d.feed({ kind: "choice", sessionId: "s1", by: HUMAN, choice: "all" }), "ModelContributionRequest").requestedAgents).toEqual(["Prolog", "Mistral", "Data"]);
  });

  it("gives up with a clear report when nobody answers", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: unclear }, settings: settings({ debateTimeoutMs: 20_000 }) });
    const at = ofKind(d.last, "schedule")[0]?.at ?? 0;
    const complete = onlyBroadcast(d.feed({ kind: "deadline", sessionId: "s1", at }, at), "SessionComplete");
    expect(complete.status).toBe("timed-out");
    expect(complete.reason).toContain("Nobody chose the agents within 20 s");
  });

  it("no option at all ends the session as failed, with the reason", () => {
    const d = new Driver();
    const complete = onlyBroadcast(d.start({ choose: { method: "catalog", outcome: { kind: "unclear", options: [], why: "No agent in the catalog mentions anything in this problem." } } }), "SessionComplete");
    expect(complete.status).toBe("failed");
    expect(complete.reason).toContain("No agent in the catalog mentions");
  });
});

describe("agents that act in the world need a person's approval", () => {
  it("approve includes them", () => {
    const d = new Driver();
    const effects = d.start({ choose: { method: "catalog", outcome: chosen(["Prolog", "Executor"]) }, approvalRequired: ["executor"] });
    expect(broadcasts(effects, "ModelContributionRequest")).toHaveLength(0);
    expect(says(effects).some((e) => e.text.includes('Executor acts in the world') && e.text.includes('"approve s1"'))).toBe(true);
    const approved = d.feed({ kind: "approval", sessionId: "s1", by: HUMAN, approved: true });
    expect(onlyBroadcast(approved, "ModelContributionRequest").requestedAgents).toEqual(["Prolog", "Executor"]);
  });

  it("reject leaves them out", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: chosen(["Prolog", "Executor"]) }, approvalRequired: ["Executor"] });
    const rejected = d.feed({ kind: "approval", sessionId: "s1", by: HUMAN, approved: false });
    expect(onlyBroadcast(rejected, "ModelContributionRequest").requestedAgents).toEqual(["Prolog"]);
  });

  it("no answer leaves them out; never requested without approval", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: chosen(["Executor", "Prolog"]) }, approvalRequired: ["Executor"] });
    const at = ofKind(d.last, "schedule")[0]?.at ?? 0;
    const effects = d.feed({ kind: "deadline", sessionId: "s1", at }, at);
    expect(says(effects)[0]?.text).toContain("leaving Executor out");
    expect(onlyBroadcast(effects, "ModelContributionRequest").requestedAgents).toEqual(["Prolog"]);
    for (const b of broadcasts(d.all, "ModelContributionRequest")) expect(b.requestedAgents).not.toContain("Executor");
  });

  it("mfr-start with such an agent present asks for approval before inviting everyone", () => {
    const d = new Driver();
    const effects = d.start({ expectedAgents: ["alice", "Executor"], approvalRequired: ["Executor"] });
    expect(broadcasts(effects, "ModelContributionRequest")).toHaveLength(0);
    expect(d.session().phase).toBe("selecting");
    const rejected = d.feed({ kind: "approval", sessionId: "s1", by: HUMAN, approved: false });
    expect(onlyBroadcast(rejected, "ModelContributionRequest").requestedAgents).toEqual(["alice"]);
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
    const complete = onlyBroadcast(d.cancel(), "SessionComplete");
    expect(complete.status).toBe("cancelled");
    expect(d.completions()).toBe(1);
  });

  it("the window closes early once every chosen agent has contributed; others are accepted and noted", () => {
    const d = new Driver();
    d.start({ choose: { method: "catalog", outcome: chosen(["Prolog"]) } });
    const extra = d.contribute("s1", "Mistral");
    expect(tells(extra, "Mistral")[0]?.text).toContain("You were not asked");
    expect(d.session().phase).toBe("collecting");
    d.contribute("s1", "Prolog");
    expect(d.session().phase).toBe("validating");
    expect(d.session().contributions.Mistral?.requested).toBe(false);
  });

  it("the summary says how the agents were chosen", () => {
    const d = debating();
    d.feed(debateLine({ kind: "consensus", text: "Use Data", agents: ["Data"], ignored: [] }));
    const complete = onlyBroadcast(d.cancel(), "SessionComplete");
    expect(complete.summary).toContain("Agents: Data (debate led by Chair).");
  });
});
