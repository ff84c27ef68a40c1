/**
 * The shapes against the fixtures in test/fixtures/models: one valid model, one valid with
 * warnings only, and one negative fixture per rule of the Violation rows in docs/protocol.md.
 */
import { describe, expect, it } from "vitest";
import { analyseModel } from "../../src/analysis/analysis.js";
import type { ValidationFinding } from "../../src/rdf/validate.js";
import { BASE_IRI, contribution, fixture, job, shapes } from "./helpers.js";

async function validateFixture(name: string) {
  const analysis = await analyseModel(job([contribution("alice", fixture(name))]), shapes);
  expect(analysis.parseErrors).toEqual([]);
  return analysis.validation;
}

const problemModel = `${BASE_IRI}problem-model`;

describe("the MFR shapes", () => {
  it("pass a complete model: conforms, no violations, no warnings", async () => {
    const outcome = await validateFixture("valid-complete.ttl");
    expect(outcome.results).toEqual([]);
    expect(outcome).toMatchObject({ conforms: true, violations: 0, warnings: 0 });
  });

  it("let a thin model conform with warnings only", async () => {
    const outcome = await validateFixture("valid-warnings-only.ttl");
    expect(outcome).toMatchObject({ conforms: true, violations: 0, warnings: 4 });
    const warnings = outcome.results.map((r) => `${r.focusNode} ${r.path}`).sort();
    expect(warnings).toEqual([
      `${BASE_IRI}#drive mfr:hasEffect`,
      `${BASE_IRI}#drive mfr:hasPrecondition`,
      `${problemModel} mfr:hasConstraint`,
      `${problemModel} mfr:hasGoal`,
    ]);
    for (const r of outcome.results) expect(r.message).not.toBe("");
  });

  const negatives: [file: string, expected: Omit<Partial<ValidationFinding>, "message"> & { message: RegExp }][] = [
    ["no-entity.ttl", { focusNode: problemModel, path: "mfr:hasEntity", agents: [], message: /no mfr:Entity/ }],
    ["entity-without-type.ttl", { focusNode: `${BASE_IRI}#depot`, path: "mfr:entityType", message: /entityType/ }],
    [
      "entity-without-name.ttl",
      { focusNode: `${BASE_IRI}#truck`, path: "schema:name | rdfs:label", message: /needs a name/ },
    ],
    ["action-without-name.ttl", { focusNode: `${BASE_IRI}#drive`, path: "mfr:actionName", message: /needs an mfr:actionName/ }],
    ["action-with-two-names.ttl", { focusNode: `${BASE_IRI}#drive`, path: "mfr:actionName", message: /exactly one/ }],
    ["precondition-without-expression.ttl", { path: "mfr:expression", message: /Precondition needs exactly one/ }],
    ["effect-with-empty-expression.ttl", { path: "mfr:expression", message: /Effect's mfr:expression must not be empty/ }],
    ["constraint-without-type.ttl", { focusNode: `${BASE_IRI}#oneTruck`, path: "mfr:constraintType", message: /constraintType/ }],
    ["constraint-without-applies-to.ttl", { focusNode: `${BASE_IRI}#oneTruck`, path: "mfr:appliesTo", message: /appliesTo/ }],
    [
      "constraint-without-statement.ttl",
      { focusNode: `${BASE_IRI}#capacity`, path: "mfr:constraintExpression | rdfs:comment", message: /constraintExpression or an rdfs:comment/ },
    ],
    [
      "goal-without-statement.ttl",
      { focusNode: `${BASE_IRI}#delivered`, path: "rdfs:label | rdfs:comment | mfr:expression", message: /Goal needs/ },
    ],
  ];

  it.each(negatives)("report exactly the expected violation for %s", async (file, expected) => {
    const outcome = await validateFixture(file);
    const violations = outcome.results.filter((r) => r.severity === "Violation");
    expect(outcome.conforms).toBe(false);
    expect(outcome.violations).toBe(1);
    expect(violations).toHaveLength(1);
    const [violation] = violations;
    const { message, ...rest } = expected;
    expect(violation).toMatchObject({ agents: ["alice"], ...rest });
    expect(violation?.message).toMatch(message);
    expect(violation?.message.trim()).not.toBe("");
  });

  it("name blank focus nodes so a person can find them", async () => {
    const named = await validateFixture("precondition-without-expression.ttl");
    expect(named.results[0]?.focusNode).toMatch(/^_:c0a_\d+ "truck at depot"$/);
    const unnamed = await validateFixture("effect-with-empty-expression.ttl");
    expect(unnamed.results[0]?.focusNode).toMatch(/^_:c0a_\d+ \(mfr:hasEffect of <https:\/\/mfr\.example\/sessions\/s-test\/#drive>\)$/);
  });

  it("accept language-tagged names from both schema.org namespaces and rdfs:label", async () => {
    const turtle = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#a> a mfr:Entity ; mfr:entityType "T" ; <http://schema.org/name> "A"@en .
<#b> a mfr:Entity ; mfr:entityType "T" ; <https://schema.org/name> "B"@de .
<#c> a mfr:Entity ; mfr:entityType "T" ; rdfs:label "C"@fr .
<#d> a mfr:Entity ; mfr:entityType "T" ; <https://schema.org/name> "D" .`;
    const analysis = await analyseModel(job([contribution("alice", turtle)]), shapes);
    expect(analysis.validation.violations).toBe(0);
  });

  it("accept a literal mfr:appliesTo", async () => {
    const turtle = fixture("valid-complete.ttl");
    expect(turtle).toContain('mfr:appliesTo "problem"');
    expect((await validateFixture("valid-complete.ttl")).violations).toBe(0);
  });

  it("judge only the coordinator's ProblemModel node, not partial ones agents declare", async () => {
    const turtle = `${fixture("valid-complete.ttl")}\n<#myPart> a mfr:ProblemModel ; mfr:hasConstraint <#oneTruck> .`;
    const analysis = await analyseModel(job([contribution("alice", turtle)]), shapes);
    expect(analysis.validation).toMatchObject({ conforms: true, violations: 0, warnings: 0 });
  });

  it("see instances of subclasses that another agent declared", async () => {
    const classes = `@prefix mfr: <http://purl.org/stuff/mfr/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#Truck> rdfs:subClassOf mfr:Entity .`;
    const instances = `<#t1> a <#Truck> .`;
    const analysis = await analyseModel(job([contribution("alice", classes), contribution("bob", instances)]), shapes);
    const findings = analysis.validation.results.filter((r) => r.focusNode === `${BASE_IRI}#t1`);
    expect(findings.map((f) => f.path).sort()).toEqual(["mfr:entityType", "schema:name | rdfs:label"]);
    expect(findings.every((f) => f.agents.join() === "bob")).toBe(true);
  });
});
