import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Parser } from "n3";
import { analyseModel } from "../../src/analysis/analysis.js";
import { BASE_IRI, contribution, fixture, job, shapes } from "../rdf/helpers.js";

const PREFIX = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n@prefix schema: <http://schema.org/> .\n";

describe("analyseModel", () => {
  it("parses, merges, validates, serialises and counts in one go", async () => {
    const analysis = await analyseModel(job([contribution("alice", fixture("valid-complete.ttl"))]), shapes);
    expect(analysis.validation.conforms).toBe(true);
    expect(analysis.problemModelIri).toBe(`${BASE_IRI}problem-model`);
    const reparsed = new Parser({ format: "text/turtle" }).parse(analysis.modelTurtle);
    expect(reparsed).toHaveLength(analysis.tripleCount);
    expect(analysis.modelTurtle).toContain("mfr:hasEntity");
    expect(analysis.countsByAgent.alice).toMatchObject({ entities: 3, stateVariables: 1, actions: 1, constraints: 2, goals: 1 });
    expect(analysis.parseErrors).toEqual([]);
  });

  it("leaves out a contribution that does not parse and says why, keeping everyone else's work", async () => {
    const analysis = await analyseModel(
      job([contribution("alice", fixture("valid-complete.ttl")), contribution("bob", `${PREFIX}<#x> a mfr:Entity ;\n  schema:name "Bob's "truck"" .`)]),
      shapes,
    );
    expect(analysis.parseErrors).toHaveLength(1);
    expect(analysis.parseErrors[0]).toMatchObject({ agent: "bob", error: { line: 4 } });
    expect(Object.keys(analysis.countsByAgent)).toEqual(["alice"]);
    expect(analysis.validation.conforms).toBe(true);
  });

  it("refuses a contribution over the per-contribution triple limit", async () => {
    const analysis = await analyseModel(job([contribution("alice", fixture("valid-complete.ttl"))], 3), shapes);
    expect(analysis.parseErrors[0]?.error.message).toMatch(/limit of 3/);
    expect(analysis.validation.conforms).toBe(false); // nothing left: no entity
  });

  it("supports replacement: a resubmission simply replaces the earlier text in the next job", async () => {
    const first = await analyseModel(job([contribution("alice", `${PREFIX}<#old> a mfr:Entity .`)]), shapes);
    const second = await analyseModel(job([contribution("alice", `${PREFIX}<#new> a mfr:Entity .`)]), shapes);
    const subjects = (turtle: string) => new Parser().parse(turtle).map((q) => q.subject.value);
    expect(subjects(first.modelTurtle)).toContain(`${BASE_IRI}#old`);
    expect(subjects(second.modelTurtle)).toContain(`${BASE_IRI}#new`);
    expect(subjects(second.modelTurtle)).not.toContain(`${BASE_IRI}#old`);
  });

  it("writes the names agents give relative to the session with the empty prefix, and they read back the same", async () => {
    const analysis = await analyseModel(job([contribution("alice", `${PREFIX}<#truck-1> a mfr:Entity ; mfr:appliesTo <#depot.2> .`)]), shapes);
    expect(analysis.modelTurtle).toContain(`@prefix : <${BASE_IRI}#>.`);
    expect(analysis.modelTurtle).toContain(":truck-1 a mfr:Entity");
    expect(analysis.modelTurtle).not.toContain(`<${BASE_IRI}#truck-1>`);
    const read = new Parser().parse(analysis.modelTurtle);
    expect(read.some((q) => q.subject.value === `${BASE_IRI}#truck-1` && q.object.value === `${BASE_IRI}#depot.2`)).toBe(true);
  });

  it("gives the same output for the same input (stable blank nodes)", async () => {
    const input = job([contribution("alice", fixture("valid-complete.ttl")), contribution("bob", `${PREFIX}[] a mfr:Goal .`)]);
    const [a, b] = [await analyseModel(input, shapes), await analyseModel(input, shapes)];
    expect(a.modelTurtle).toBe(b.modelTurtle);
  });
});

describe("formal expressions in the analysis", () => {
  it("one that does not parse is a Violation of the agent whose contribution holds it; the formal model comes with the analysis", async () => {
    const blocks = readFileSync(new URL("../fixtures/formal/blocksworld.ttl", import.meta.url), "utf8");
    const broken = `${PREFIX}@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n<#goal2> a mfr:Goal ; rdfs:label "broken" ; mfr:expression "(and (on a b)" .\n`;
    const analysis = await analyseModel(job([contribution("alice", blocks), contribution("bob", broken)]), shapes);
    expect(analysis.formal.goals.length).toBeGreaterThan(0);
    const formal = analysis.validation.results.filter((r) => r.message.startsWith("Formal expression does not parse"));
    expect(formal).toHaveLength(1);
    expect(formal[0]).toMatchObject({ severity: "Violation", path: "mfr:expression", agents: ["bob"] });
    expect(analysis.validation.conforms).toBe(false);
    expect(analysis.validation.summary).toContain("bob: 1");
  });
});
