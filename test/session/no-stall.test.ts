/** Nobody can keep a session from moving on: validation restarts for changed contributions are bounded. */
import { describe, expect, it } from "vitest";
import { Driver, conforming, ok, tells } from "../support/session-fixtures.js";

describe("replacing a contribution again and again during validation", () => {
  it("restarts validation at most 3 times a round; then changes wait and the session moves on", () => {
    const d = new Driver();
    d.start({ expectedAgents: ["alice"] });
    d.contribute("s1", "alice", { turtle: "<#v0> a <#E> ." });
    expect(d.session().phase).toBe("validating");
    const deadlines: number[] = [];
    for (let i = 1; i <= 10; i++) {
      d.advance(1000);
      const effects = d.contribute("s1", "alice", { turtle: `<#v${i}> a <#E> .` });
      if (tells(effects, "alice").some((t) => /changed several times while it was being validated/.test(t.text))) break;
      d.answer("s1", ok(conforming()));
      deadlines.push(d.session().deadline?.at ?? 0);
    }
    expect(d.session().revalidations).toBe(3);
    // The last analysis started is answered: the session is no longer validating.
    d.answer("s1", ok(conforming()));
    expect(d.session().phase).toBe("reasoning");
    expect(d.session().contributions.alice?.turtle).toBe("<#v3> a <#E> .");
    expect(deadlines).toHaveLength(3);
  });
});
