import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgentProfiles, parseAgentProfiles } from "../../src/agent-choice/agent-profile.js";
import { ContributionKind, LINGUE } from "../../src/base/vocab.js";
import { REPO_PROFILES } from "./helpers.js";

const PREFIXES = `
@prefix agent:   <https://tensegrity.it/vocab/agent#> .
@prefix xmpp:    <https://tensegrity.it/vocab/xmpp#> .
@prefix foaf:    <http://xmlns.com/foaf/0.1/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix rdfs:    <http://www.w3.org/2000/01/rdf-schema#> .
@prefix schema:  <https://schema.org/> .
@prefix schemahttp: <http://schema.org/> .
@prefix lng:     <http://purl.org/stuff/lingue/> .
@prefix mfr:     <http://purl.org/stuff/mfr/> .
`;

function parseOne(body: string) {
  const { profiles, problems } = parseAgentProfiles(PREFIXES + body, "test.ttl");
  expect(problems).toEqual([]);
  expect(profiles).toHaveLength(1);
  return profiles[0]!;
}

const dirs: string[] = [];
function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "mfr-profiles-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the example profiles in config/agents", () => {
  const { profiles, problems } = loadAgentProfiles(REPO_PROFILES, { excludeFiles: ["coordinator.ttl"] });
  const byNick = (nick: string) => profiles.find((p) => p.nick === nick)!;

  it("load without problems, one profile per peer, the coordinator's own profile excluded", () => {
    expect(problems).toEqual([]);
    expect(profiles.map((p) => p.nick)).toEqual(["Chair", "Data", "Executor", "Mistral", "Prolog", "Semantic", "Solver"]);
    expect(profiles.every((p) => p.file.endsWith(`${p.nick.toLowerCase()}.ttl`))).toBe(true);
  });

  it("read contribution kinds from mfr:capabilities nodes and from the agent node", () => {
    expect(byNick("Prolog").contributionKinds).toEqual([ContributionKind.ConstraintIdentification, ContributionKind.ActionDefinition]);
    expect(byNick("Mistral").contributionKinds).toEqual([ContributionKind.EntityDiscovery, ContributionKind.GoalIdentification]);
    expect(byNick("Data").contributionKinds).toEqual([ContributionKind.EntityDiscovery]);
    expect(byNick("Semantic").contributionKinds).toEqual([ContributionKind.ConstraintIdentification]);
  });

  it("read capabilities in words: flags, labelled nodes, literals, non-standard contribution types, MFR classes", () => {
    expect(byNick("Prolog").capabilities).toEqual(expect.arrayContaining(["models actions", "plan generation", "logical reasoning"]));
    expect(byNick("Mistral").capabilities).toEqual(
      expect.arrayContaining(["entity extraction: finds the entities a problem talks about", "goal identification"]),
    );
    expect(byNick("Semantic").capabilities).toEqual(expect.arrayContaining(["constraint extraction", "capacity and limit checking"]));
    expect(byNick("Data").capabilities).toEqual(expect.arrayContaining(["sparqlQuery: runs SPARQL queries against a knowledge endpoint"]));
  });

  it("keep lng:supports as full IRIs and the description", () => {
    expect(byNick("Data").supports).toContain(`${LINGUE}SparqlQuery`);
    expect(byNick("Data").description).toMatch(/^SPARQL query agent/);
  });

  it("mark the executor as needing approval and the Chair as the Chair", () => {
    expect(profiles.filter((p) => p.requiresApproval).map((p) => p.nick)).toEqual(["Executor"]);
    expect(profiles.filter((p) => p.isChair).map((p) => p.nick)).toEqual(["Chair"]);
  });
});

describe("loadAgentProfiles", () => {
  it("reports a broken file as one problem line with file and line, and still loads the others", () => {
    const dir = tempDir({
      "good.ttl": `${PREFIXES}<#a> foaf:nick "Alpha" .`,
      "broken.ttl": `${PREFIXES}<#b> foaf:nick "Beta" ;\n  dcterms:description "unterminated .\n`,
      "notes.txt": "not a profile",
    });
    const { profiles, problems } = loadAgentProfiles(dir);
    expect(profiles.map((p) => p.nick)).toEqual(["Alpha"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/broken\.ttl: line \d+: not valid Turtle \(/);
  });

  it("reports a file without any nick, and a nick described twice across files", () => {
    const dir = tempDir({
      "a.ttl": `${PREFIXES}<#a> foaf:nick "Alpha" .`,
      "b.ttl": `${PREFIXES}<#b> foaf:nick "alpha" .`,
      "c.ttl": `${PREFIXES}<#c> dcterms:description "nobody" .`,
    });
    const { profiles, problems } = loadAgentProfiles(dir);
    expect(profiles.map((p) => p.nick)).toEqual(["Alpha"]);
    expect(problems).toEqual([
      expect.stringMatching(/b\.ttl: nick "alpha" is already described in .*a\.ttl/),
      expect.stringMatching(/c\.ttl: no agent node with a foaf:nick/),
    ]);
  });

  it("never throws for a missing directory", () => {
    const { profiles, problems } = loadAgentProfiles(join(tmpdir(), "no-such-dir-for-mfr-profiles"));
    expect(profiles).toEqual([]);
    expect(problems[0]).toMatch(/not readable \(ENOENT\)/);
  });

  it("skips excluded files by base name, whatever path is given", () => {
    const dir = tempDir({ "coordinator.ttl": `${PREFIXES}<#c> foaf:nick "Coordinator" .`, "a.ttl": `${PREFIXES}<#a> foaf:nick "Alpha" .` });
    expect(loadAgentProfiles(dir, { excludeFiles: [join(dir, "coordinator.ttl")] }).profiles.map((p) => p.nick)).toEqual(["Alpha"]);
  });

  it("loads every agent node of a file that describes several", () => {
    const dir = tempDir({ "team.ttl": `${PREFIXES}<#a> foaf:nick "Alpha" . <#b> foaf:nick "Beta" ; agent:requiresApproval "true" .` });
    const { profiles } = loadAgentProfiles(dir);
    expect(profiles.map((p) => [p.nick, p.requiresApproval])).toEqual([
      ["Alpha", false],
      ["Beta", true],
    ]);
  });
});

describe("parseAgentProfiles accepts the forms real profiles use", () => {
  it("capabilities as literals, IRIs, and nodes labelled with rdfs:label, schema:name (http and https) or a description", () => {
    const p = parseOne(`
      <#x> foaf:nick "X" ;
        agent:hasCapability "route planning", mfr:Orchestration, <#undescribed-skill>,
          [ rdfs:label "scheduling" ], [ schemahttp:name "booking" ], [ schema:name "search" ; dcterms:description "finds flights" ],
          [ dcterms:description "speaks French" ] .`);
    expect(p.capabilities).toEqual(["route planning", "orchestration", "undescribed skill", "scheduling", "booking", "search: finds flights", "speaks French"]);
  });

  it("an IRI capability described in the same file uses its label (the IRI itself is never fetched)", () => {
    const p = parseOne(`<#x> foaf:nick "X" ; agent:capability <#sched> . <#sched> rdfs:label "timetabling" .`);
    expect(p.capabilities).toEqual(["timetabling"]);
  });

  it("contribution kinds as IRIs, CURIE-like or bare literals; unknown kinds become capabilities", () => {
    const p = parseOne(`<#x> foaf:nick "X" ; mfr:contributionTypes "EntityDiscovery", "mfr:GoalIdentification", mfr:StateVariable ;
      agent:contributionKind <http://purl.org/stuff/mfr/ActionDefinition> .`);
    expect(p.contributionKinds).toEqual([ContributionKind.EntityDiscovery, ContributionKind.ActionDefinition, ContributionKind.GoalIdentification]);
    expect(p.capabilities).toEqual(["state variable"]);
  });

  it("capability flags imply the contribution kinds they name; false flags say nothing", () => {
    const p = parseOne(`<#x> foaf:nick "X" ; mfr:capabilities [ mfr:extractsEntities true ; mfr:identifiesGoals "true" ; mfr:definesActions false ] .`);
    expect(p.contributionKinds).toEqual([ContributionKind.EntityDiscovery, ContributionKind.GoalIdentification]);
    expect(p.capabilities).toEqual(["extracts entities", "identifies goals"]);
  });

  it("lng:supports as IRIs or literals", () => {
    expect(parseOne(`<#x> foaf:nick "X" ; lng:supports lng:PrologProgram, "SparqlQuery" .`).supports).toEqual([`${LINGUE}PrologProgram`, "SparqlQuery"]);
  });

  it("description from dcterms:description, else rdfs:comment", () => {
    expect(parseOne(`<#x> foaf:nick "X" ; rdfs:comment "a comment" .`).description).toBe("a comment");
    expect(parseOne(`<#x> foaf:nick "X" ; rdfs:comment "a comment" ; dcterms:description "the description" .`).description).toBe("the description");
    expect(parseOne(`<#x> foaf:nick "X" .`).description).toBeUndefined();
  });

  it("an execution agent needs approval unless its profile explicitly says it does not", () => {
    expect(parseOne(`<#x> a mfr:ExecutionAgent ; foaf:nick "X" .`).requiresApproval).toBe(true);
    expect(parseOne(`<#x> a mfr:ExecutionAgent ; foaf:nick "X" ; agent:requiresApproval false .`).requiresApproval).toBe(false);
    expect(parseOne(`<#x> foaf:nick "X" ; agent:requiresApproval true .`).requiresApproval).toBe(true);
    expect(parseOne(`<#x> foaf:nick "X" .`).requiresApproval).toBe(false);
  });

  it("a Chair by agent:role (literal or IRI) or by the moderator class", () => {
    expect(parseOne(`<#x> foaf:nick "X" ; agent:role "Chair" .`).isChair).toBe(true);
    expect(parseOne(`<#x> foaf:nick "X" ; agent:role agent:chair .`).isChair).toBe(true);
    expect(parseOne(`<#x> a agent:ModeratorAgent ; foaf:nick "X" .`).isChair).toBe(true);
    expect(parseOne(`<#x> foaf:nick "X" ; agent:role "worker" .`).isChair).toBe(false);
  });

  it("accepts a profile with an XMPP account and ignores the account node", () => {
    const p = parseOne(`<#x> foaf:nick "X" ; agent:xmppAccount [ xmpp:username "x" ; xmpp:passwordKey "x" ] ; agent:roomJid "r@conference.localhost" .`);
    expect(p).toMatchObject({ nick: "X", capabilities: [], contributionKinds: [] });
  });

  it("survives a capability node that refers to itself", () => {
    const p = parseOne(`<#x> foaf:nick "X" ; agent:capability _:c . _:c mfr:contributionTypes _:c ; mfr:modelsActions true .`);
    expect(p.contributionKinds).toEqual([ContributionKind.ActionDefinition]);
  });
});
