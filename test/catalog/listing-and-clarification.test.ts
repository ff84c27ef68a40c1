import { describe, expect, it } from "vitest";
import { agentsListing } from "../../src/catalog/agents-listing.js";
import { AgentCatalog } from "../../src/catalog/catalog.js";
import { applyChoice, clarificationQuestion } from "../../src/catalog/clarification.js";
import { loadAgentProfiles } from "../../src/catalog/agent-profile.js";
import { selectAgents } from "../../src/catalog/selection.js";
import { LINGUE_FEATURES } from "../../src/protocol/vocab.js";
import { entry, REPO_PROFILES } from "./helpers.js";

describe("agentsListing", () => {
  it("lists present agents first, then absent ones, with what each can do and who needs approval", () => {
    const { profiles } = loadAgentProfiles(REPO_PROFILES, { excludeFiles: ["coordinator.ttl"] });
    const catalog = new AgentCatalog(profiles, { selfNick: "Coordinator" });
    catalog.occupantJoined("Prolog");
    catalog.occupantJoined("Executor");
    catalog.occupantJoined("helper");
    catalog.featuresDiscovered("helper", [`${LINGUE_FEATURES[0]}`, "http://purl.org/stuff/lingue/feature/lang/prolog-program"]);

    const lines = agentsListing(catalog.entries()).split("\n");
    expect(lines[0]).toBe("Agents: 7 known, 3 present.");
    expect(lines.slice(1).map((l) => /^- (\S+) \((present|absent)\)/.exec(l)?.slice(1, 3).join(" "))).toEqual([
      "Executor present",
      "helper present",
      "Prolog present",
      "Chair absent",
      "Data absent",
      "Mistral absent",
      "Semantic absent",
    ]);
    expect(lines[1]).toBe("- Executor (present): plan execution (needs approval)");
    expect(lines[2]).toBe("- helper (present): prolog program");
    expect(lines[3]).toMatch(/^- Prolog \(present\): constraints, actions; logical reasoning, models actions/);
    expect(lines[4]).toMatch(/\(chair\)$/);
    expect(lines.every((l) => l.length <= 120)).toBe(true);
  });

  it("stays short in a crowded room", () => {
    const entries = Array.from({ length: 25 }, (_, i) => entry(`agent${String(i).padStart(2, "0")}`, { capabilities: ["x"] }));
    const lines = agentsListing(entries).split("\n");
    expect(lines).toHaveLength(22);
    expect(lines[21]).toBe("… and 5 more");
  });

  it("says so when no agent is known", () => {
    expect(agentsListing([])).toMatch(/^No agents known yet/);
  });
});

describe("clarification", () => {
  const unclear = { kind: "unclear" as const, why: "no agent's declared capabilities match the problem", options: [
    { number: 1, agent: "Data", reason: "offers entities" },
    { number: 2, agent: "Mistral", reason: "offers entities, goals" },
    { number: 3, agent: "Prolog", reason: "offers actions" },
  ] };

  it("asks with numbered options and says how to answer", () => {
    expect(clarificationQuestion("mfr-7", unclear)).toBe(
      [
        "Session mfr-7 needs clarification: no agent's declared capabilities match the problem. Which agents should work on it?",
        "1. Data: offers entities",
        "2. Mistral: offers entities, goals",
        "3. Prolog: offers actions",
        'Answer "use 1,3" (numbers from the list) or "use all".',
      ].join("\n"),
    );
  });

  it("says there is nothing to choose from when there are no options", () => {
    expect(clarificationQuestion("mfr-7", { kind: "unclear", options: [], why: "no agents are in the room to choose from" })).toMatch(/no agents to choose from/);
  });

  it("applies 'use 1,3' and 'use all' in the order of the options", () => {
    expect(applyChoice(unclear.options, [3, 1])).toEqual({ agents: ["Data", "Prolog"] });
    expect(applyChoice(unclear.options, [2, 2])).toEqual({ agents: ["Mistral"] });
    expect(applyChoice(unclear.options, "all")).toEqual({ agents: ["Data", "Mistral", "Prolog"] });
  });

  it("refuses numbers that are not options, naming them", () => {
    expect(applyChoice(unclear.options, [1, 4, 7])).toEqual({ error: 'no option 4, 7: choose from 1 to 3, or "use all"' });
    expect(applyChoice(unclear.options, [0])).toEqual({ error: 'no option 0: choose from 1 to 3, or "use all"' });
    expect(applyChoice(unclear.options, [])).toMatchObject({ error: expect.stringMatching(/at least one/) });
    expect(applyChoice([], "all")).toMatchObject({ error: expect.any(String) });
  });

  it("works end to end with a selection that is too close to call", () => {
    const outcome = selectAgents("routing", ["A", "B", "C"].map((n) => entry(n, { capabilities: ["routing"] })), { maxAgents: 1 });
    expect(outcome.kind).toBe("unclear");
    if (outcome.kind !== "unclear") return;
    expect(clarificationQuestion("s", outcome)).toContain("too close to call");
    expect(applyChoice(outcome.options, [2])).toEqual({ agents: ["B"] });
  });
});
