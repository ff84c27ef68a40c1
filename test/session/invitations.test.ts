import { describe, expect, it } from "vitest";
import { Driver, failedCheck, finding, ok, onlyBroadcast, tells, violating } from "../support/session-fixtures.js";

describe("who counts as asked, and what a fix request holds", () => {
  it("a round-1 contributor who answers a fix request it was not named in is still a requested agent", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    d.contribute("s1", "alice");
    d.contribute("s1", "bob");
    d.answer("s1", ok(violating([finding({ agents: ["alice"] })])));
    const effects = d.contribute("s1", "bob");
    expect(d.session().contributions.bob?.requested).toBe(true);
    expect(tells(effects, "bob")[0]?.text).not.toContain("not asked");
  });

  it("agents chosen up front stay the requested ones; others are marked unrequested", () => {
    const d = new Driver();
    d.start({ expectedAgents: [], requestedAgents: ["alice"] });
    d.contribute("s1", "alice");
    d.contribute("s1", "mallory");
    expect(d.session().contributions.alice?.requested).toBe(true);
    expect(d.session().contributions.mallory?.requested).toBe(false);
  });

  it("a non-conforming model with no Violation to point at still tells every contributor what to fix", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice", "bob"] });
    d.contribute("s1", "alice");
    d.contribute("s1", "bob");
    const effects = d.answer("s1", ok(violating([], { conforms: false, violations: 0, summary: "The model does not conform." })));
    const request = onlyBroadcast(effects, "ModelContributionRequest");
    expect(request.requestedAgents).toEqual(["alice", "bob"]);
    expect(request.issues).toEqual({ alice: ["The model does not conform."], bob: ["The model does not conform."] });
  });

  it("an unparsable contribution during reasoning is not said to be kept", () => {
    const d = new Driver();
    d.toReasoning("s1", ["alice"]);
    const effects = d.contribute("s1", "alice", { check: failedCheck() });
    const told = tells(effects, "alice")[0]?.text ?? "";
    expect(told).toContain("was not used");
    expect(told).not.toContain("is kept");
    expect(d.session().late).toHaveLength(0);
  });
});
