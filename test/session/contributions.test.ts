import { describe, expect, it } from "vitest";
import {
  Driver,
  T0,
  broadcasts,
  conforming,
  failedCheck,
  ofKind,
  ok,
  onlyBroadcast,
  says,
  settings,
  tells,
  who,
} from "../support/session-fixtures.js";

describe("contribution window", () => {
  it("tells the agent where an unparsable contribution broke, and the session goes on", () => {
    const d = new Driver();
    d.start();
    const effects = d.advance(1_000).contribute("s1", "alice", { check: failedCheck("Unexpected \"\"\" on line", 12, 34) });
    const told = tells(effects, "alice");
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain("line 12");
    expect(told[0]?.text).toContain("column 34");
    expect(told[0]?.text).toContain("Nothing from you is in the model yet");
    expect(d.session().phase).toBe("collecting");
    expect(d.session().contributions).toEqual({});
    expect(d.session().rejected).toEqual([{ agent: "alice", receivedAt: T0 + 1_000, round: 1, reason: expect.stringContaining("line 12:34") }]);
    expect(ofKind(effects, "broadcast")).toEqual([]);
    expect(ofKind(effects, "analyse")).toEqual([]);
    // The session still accepts good contributions afterwards.
    d.advance(1_000).contribute("s1", "alice");
    expect(Object.keys(d.session().contributions)).toEqual(["alice"]);
  });

  it("tells without a position when the checker has none", () => {
    const d = new Driver();
    d.start();
    const effects = d.contribute("s1", "alice", { check: failedCheck("too many triples", null, null) });
    const text = tells(effects, "alice")[0]?.text ?? "";
    expect(text).toContain("too many triples");
    expect(text).not.toContain("line");
  });

  it("keeps an earlier good contribution when a later one fails the check", () => {
    const d = new Driver();
    d.start();
    d.advance(1_000).contribute("s1", "alice", { turtle: "GOOD" });
    const effects = d.advance(1_000).contribute("s1", "alice", { turtle: "BAD", check: failedCheck("bad", 3, 1) });
    expect(tells(effects, "alice")[0]?.text).toContain("Your earlier contribution still stands");
    expect(d.session().contributions["alice"]?.turtle).toBe("GOOD");
    expect(d.session().contributionsVersion).toBe(1);
  });

  it("replaces an earlier contribution on resubmission, comparing nicks case-insensitively", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    d.advance(1_000).contribute("s1", "alice", { turtle: "FIRST" });
    const effects = d.advance(1_000).contribute("s1", who("ALICE", "alice@agents.example"), { turtle: "SECOND" });
    expect(tells(effects, "ALICE")[0]?.text).toContain("replaced");
    const contributions = d.session().contributions;
    expect(Object.keys(contributions)).toHaveLength(1);
    expect(Object.values(contributions)[0]).toMatchObject({ turtle: "SECOND", receivedAt: T0 + 2_000 });
    // One agent, two submissions: the window is still waiting for bob.
    expect(ofKind(effects, "analyse")).toEqual([]);
    const merge = d.advance(1_000).contribute("s1", "bob", { turtle: "BOB" });
    expect(ofKind(merge, "analyse")[0]?.contributions).toEqual([
      { agent: "ALICE", turtle: "SECOND" },
      { agent: "bob", turtle: "BOB" },
    ]);
  });

  it("merges as soon as every expected agent has contributed", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "Bob"], settings: settings({ validationTimeoutMs: 7_000 }) });
    const first = d.advance(1_000).contribute("s1", "alice", { turtle: "A" });
    expect(ofKind(first, "analyse")).toEqual([]);
    expect(d.session().phase).toBe("collecting");

    const second = d.advance(1_000).contribute("s1", "bob", { turtle: "B" });
    const analyse = ofKind(second, "analyse");
    expect(analyse).toEqual([
      {
        kind: "analyse",
        sessionId: "s1",
        version: 2,
        problem: d.session().problem,
        contributions: [
          { agent: "alice", turtle: "A" },
          { agent: "bob", turtle: "B" },
        ],
      },
    ]);
    expect(d.session().phase).toBe("validating");
    expect(d.session().analysingVersion).toBe(2);
    expect(d.session().deadline?.kind).toBe("validation");
  });

  it("merges at the deadline when some expected agents are missing, and reports the stall", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob", "carol"] });
    d.advance(1_000).contribute("s1", "alice", { turtle: "A" });
    d.advance(1_000).contribute("s1", "bob", { check: failedCheck() });
    const effects = d.expire();
    expect(d.now).toBe(T0 + 60_000);
    const report = says(effects, "primary")[0]?.text ?? "";
    expect(report).toBe("Session s1: the contribution window closed; received from alice, nothing from carol, unusable from bob; validating what arrived.");
    expect(ofKind(effects, "analyse")[0]?.contributions).toEqual([{ agent: "alice", turtle: "A" }]);
    expect(d.session().phase).toBe("validating");
    expect(broadcasts(effects, "SessionComplete")).toEqual([]);
  });

  it("waits for the deadline when nobody in particular is expected", () => {
    const d = new Driver();
    d.start({ expectedAgents: [] });
    const effects = d.advance(1_000).contribute("s1", "alice");
    expect(ofKind(effects, "analyse")).toEqual([]);
    expect(ofKind(d.expire(), "analyse")).toHaveLength(1);
  });

  it("fails with a stall report and a reason when nothing arrived by the deadline", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    d.advance(2_000).contribute("s1", "bob", { check: failedCheck() });
    const effects = d.expire();
    const primary = says(effects, "primary");
    expect(primary[0]?.text).toContain("window closed");
    expect(primary[0]?.text).toContain("nothing to validate, so the session ends");
    const done = onlyBroadcast(effects, "SessionComplete");
    expect(done.status).toBe("failed");
    expect(done.reason).toContain("No usable model contribution");
    expect(done.reason).toContain("alice and bob");
    expect(done.reason).toContain("unparsable contributions from bob");
    // The stall report comes before the completion.
    const sayIndex = effects.findIndex((e) => e.kind === "say");
    const completeIndex = effects.findIndex((e) => e.kind === "broadcast");
    expect(sayIndex).toBeLessThan(completeIndex);
    expect(ofKind(effects, "analyse")).toEqual([]);
    expect(d.session().phase).toBe("complete");
  });

  it("accepts a contribution from an agent that was not asked, marks it and says so", () => {
    const d = new Driver();
    d.start({ requestedAgents: ["prolog"], expectedAgents: ["prolog", "alice"] });
    const effects = d.advance(1_000).contribute("s1", "alice");
    expect(d.session().contributions["alice"]?.requested).toBe(false);
    expect(tells(effects, "alice")[0]?.text).toContain("You were not asked in this round, but it is accepted");
    // Not an expected agent: no early merge yet.
    expect(d.session().phase).toBe("collecting");
    const requested = d.advance(1_000).contribute("s1", "Prolog");
    expect(d.session().contributions["Prolog"]?.requested).toBe(true);
    expect(tells(requested, "Prolog")[0]?.text).not.toContain("not asked");
    // Both are merged.
    expect(ofKind(requested, "analyse")[0]?.contributions.map((c) => c.agent)).toEqual(["alice", "Prolog"]);
  });

  it("marks every contributor as requested when everyone was invited", () => {
    const d = new Driver();
    d.start({ requestedAgents: null, expectedAgents: ["alice"] });
    d.contribute("s1", "stranger");
    expect(d.session().contributions["stranger"]?.requested).toBe(true);
  });

  it("refuses a contribution under a nick whose earlier contribution came from another account", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    d.advance(1_000).contribute("s1", who("alice", "alice@agents.example"), { turtle: "REAL" });
    const effects = d.advance(1_000).contribute("s1", who("Alice", "mallory@evil.example"), { turtle: "FAKE" });
    expect(tells(effects, "Alice")[0]?.text).toContain("another account");
    expect(d.session().contributions).toEqual({ alice: expect.objectContaining({ turtle: "REAL", agentJid: "alice@agents.example" }) });
    expect(d.session().contributionsVersion).toBe(1);
    // The real alice may still resubmit.
    d.advance(1_000).contribute("s1", who("alice", "alice@agents.example"), { turtle: "REAL2" });
    expect(d.session().contributions["alice"]?.turtle).toBe("REAL2");
  });

  it("keeps a contribution that arrives while reasoning in `late`, unmerged, and tells the agent", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice", "bob"]);
    const analyses = ofKind(d.all, "analyse").length;
    const contributions = d.session().contributions;
    const effects = d.advance(1_000).contribute("s1", "carol", { turtle: "LATE" });
    expect(tells(effects, "carol")[0]?.text).toContain("kept for the record but not merged");
    expect(d.session().late).toEqual([expect.objectContaining({ agent: "carol", turtle: "LATE", receivedAt: d.now })]);
    expect(d.session().contributions).toEqual(contributions);
    expect(d.session().phase).toBe("reasoning");
    expect(ofKind(d.all, "analyse")).toHaveLength(analyses);
    expect(ofKind(effects, "broadcast")).toEqual([]);
  });

  it("refuses a contribution politely after completion", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice"]);
    d.propose("s1", "alice");
    expect(d.session().phase).toBe("complete");
    const late = d.session().late;
    const effects = d.advance(1_000).contribute("s1", "alice");
    expect(tells(effects, "alice")[0]?.text).toContain("already complete; your contribution was not used");
    expect(d.session().late).toEqual(late);
    expect(ofKind(effects, "broadcast")).toEqual([]);
  });

  it("accepts contributions while validating and re-analyses them when the stale result comes back", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"] });
    d.contribute("s1", "alice", { turtle: "A1" });
    expect(d.session().phase).toBe("validating");
    const during = d.advance(100).contribute("s1", "bob", { turtle: "B1" });
    expect(ofKind(during, "analyse")).toEqual([]);
    expect(tells(during, "bob")).toHaveLength(1);
    const back = d.advance(100).answer("s1", ok(conforming()), 1);
    expect(broadcasts(back, "SolutionRequest")).toEqual([]);
    expect(ofKind(back, "analyse")).toEqual([expect.objectContaining({ version: 2, contributions: [{ agent: "alice", turtle: "A1" }, { agent: "bob", turtle: "B1" }] })]);
  });
});
