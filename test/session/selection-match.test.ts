import { describe, expect, it } from "vitest";
import { selectFromRoom as selectAgents } from "../../src/session/selection-match.js";
import { stemOf, wordsOf } from "../../src/session/selection-words.js";
import { candidate, exampleRoom, existingAgentsRoom, room } from "../agent-choice/helpers.js";

const entry = candidate;

describe("words", () => {
  it("meet across plurals, -ing and -ed, and drop stop words", () => {
    expect(new Set(["plan", "plans", "planning", "planned"].map(stemOf))).toEqual(new Set(["plan"]));
    expect(stemOf("scheduling")).toBe(stemOf("schedule"));
    expect(stemOf("entities")).toBe(stemOf("entity"));
    expect(stemOf("constraints")).toBe("constraint");
    expect(stemOf("analysis")).toBe("analysis");
    expect(wordsOf("What is the plan for the agents?").map((w) => w.text)).toEqual(["plan"]);
  });
});

describe("selectFromRoom", () => {
  it("chooses the agents whose declared capabilities match, and explains each in one line naming the words", () => {
    const outcome = selectAgents("Plan the delivery steps and respect the capacity constraints of each van", exampleRoom());
    expect(outcome).toEqual({
      kind: "chosen",
      agents: ["Prolog"],
      reasons: { Prolog: "matches 'plan', 'constraints' in its capabilities; 'steps', 'capacity' in its contribution kinds" },
    });
  });

  it("chooses every agent scoring at least half the best score, best first, ties by nick", () => {
    const outcome = selectAgents("Identify the people and objects, then plan the steps", exampleRoom());
    expect(outcome).toEqual({
      kind: "chosen",
      agents: ["Data", "Mistral", "Prolog", "Executor"],
      reasons: {
        Data: "matches 'people', 'objects' in its contribution kinds",
        Mistral: "matches 'people', 'objects' in its contribution kinds",
        Prolog: "matches 'plan' in its capabilities; 'steps' in its contribution kinds",
        Executor: "matches 'plan' in its capabilities",
      },
    });
  });

  it("leaves out agents scoring less than half the best", () => {
    const outcome = selectAgents("Who are the people involved, what are their goals, and which plan achieves them?", exampleRoom());
    expect(outcome).toMatchObject({ kind: "chosen", agents: ["Mistral"] });
  });

  it("is deterministic: the same problem and room give the same outcome, whatever the order of the candidates", () => {
    const problem = "Find the entities and goals of a warehouse robot plan";
    const example = exampleRoom();
    const first = selectAgents(problem, example);
    expect(selectAgents(problem, room([...example.candidates].reverse()))).toEqual(first);
    expect(selectAgents(problem, example)).toEqual(first);
  });

  it("matches a nick written in the problem, and a specific Lingue mode the agent supports", () => {
    expect(selectAgents("Ask prolog", exampleRoom())).toMatchObject({ kind: "chosen", agents: ["Prolog"], reasons: { Prolog: "matches 'prolog' in its name" } });
    expect(selectAgents("Run a sparql query", exampleRoom())).toMatchObject({
      kind: "chosen",
      agents: ["Data"],
      reasons: { Data: "matches 'sparql', 'query' in its description" },
    });
  });

  it("never selects excluded nicks (agents that left)", () => {
    const r = room([entry("Prolog", { capabilities: ["planning"] }), entry("Planner", { capabilities: ["planning"] })]);
    expect(selectAgents("planning", r, { exclude: ["prolog"] })).toMatchObject({ kind: "chosen", agents: ["Planner"] });
  });

  it("selects agents that need approval like any other (the caller asks for approval)", () => {
    expect(selectAgents("execute the validated plans", room([entry("Executor", { capabilities: ["plan execution"], requiresApproval: true })]))).toMatchObject({
      kind: "chosen",
      agents: ["Executor"],
    });
  });

  it("no fit: when no candidate matches any word, asks with every candidate as a numbered option", () => {
    const outcome = selectAgents("Bake a cake", exampleRoom());
    expect(outcome.kind).toBe("unclear");
    if (outcome.kind !== "unclear") return;
    expect(outcome.why).toBe("no agent's declared capabilities match the problem");
    expect(outcome.options.map((o) => [o.number, o.agent])).toEqual([
      [1, "Data"],
      [2, "Executor"],
      [3, "Mistral"],
      [4, "Prolog"],
    ]);
    expect(outcome.options[3]?.reason).toMatch(/^no declared capability matches; offers actions, constraints; models actions/);
  });

  it("nobody: no candidate at all asks anyone who answers, rather than failing", () => {
    expect(selectAgents("Plan a trip", room([]))).toEqual({ kind: "everyone", agents: [], why: "no occupant of the room might be an agent" });
  });

  it("nothing to go by: existing agents declare nothing, so every one of them is asked", () => {
    expect(selectAgents("Plan a trip under a budget", existingAgentsRoom())).toEqual({
      kind: "everyone",
      agents: ["MfrSemantic", "Prolog"],
      why: "none of the agents in the room says what it can do",
    });
  });

  it("an agent without a profile is still matched by its name", () => {
    expect(selectAgents("Ask prolog to plan the trip", existingAgentsRoom())).toMatchObject({ kind: "chosen", agents: ["Prolog"], reasons: { Prolog: "matches 'prolog' in its name" } });
    expect(selectAgents("A semantic model of the trip", existingAgentsRoom())).toMatchObject({ kind: "chosen", agents: ["MfrSemantic"] });
  });

  it("too close to call: more agents tie for the last place than may be chosen", () => {
    const r = room(["A", "B", "C"].map((n) => entry(n, { capabilities: ["routing"] })));
    const outcome = selectAgents("routing", r, { maxAgents: 2 });
    expect(outcome).toEqual({
      kind: "unclear",
      why: "too close to call: 3 agents match equally well (1 word each) for the last of 2 places",
      options: [
        { number: 1, agent: "A", reason: "matches 'routing' in its capabilities" },
        { number: 2, agent: "B", reason: "matches 'routing' in its capabilities" },
        { number: 3, agent: "C", reason: "matches 'routing' in its capabilities" },
      ],
    });
  });

  it("a clear cut at maxAgents chooses the best without asking", () => {
    const r = room([entry("A", { capabilities: ["routing", "maps"] }), entry("B", { capabilities: ["routing", "maps"] }), entry("C", { capabilities: ["maps"] })]);
    expect(selectAgents("routing with maps", r, { maxAgents: 2 })).toMatchObject({ kind: "chosen", agents: ["A", "B"] });
  });

  it("a tie within maxAgents is not too close: all tied agents are chosen", () => {
    const r = room(["B", "A"].map((n) => entry(n, { capabilities: ["routing"] })));
    expect(selectAgents("routing", r, { maxAgents: 2 })).toMatchObject({ kind: "chosen", agents: ["A", "B"] });
  });
});
