/**
 * The plumbing that lets an agent contribute a PDDL model, without the importer: files read
 * and refusals worded as FILE:LINE:COL, the request a contribution answers, and the split of a
 * large contribution into parts the coordinator can put back together.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Parser } from "n3";
import { describe, expect, it } from "vitest";
import { prepareExampleAgent } from "../../../examples/agents/run-example-agent.js";
import { PddlContributor, loadPddlContribution, pddlFilesOf } from "../../../src/agents/pddl-contribution/index.js";
import type { PddlImporter } from "../../../src/agents/pddl-contribution/index.js";
import type { PddlImport } from "../../../src/planning/pddl-import/index.js";
import { contributionStanzas } from "../../../src/protocol/contribution-parts.js";
import { MFR, sessionBaseIri } from "../../../src/base/vocab.js";
import { stanzaBytes } from "../../../src/xmpp/stanza.js";
import type { Element } from "../../../src/xmpp/stanza.js";
import { CONTRIBUTION_PREFIXES, largeContributionStatements } from "../../support/large-contribution.js";

const SMALL = `@prefix mfr: <http://purl.org/stuff/mfr/> .
<#a> a mfr:Entity ; mfr:entityType "Block" .
<#goal> a mfr:Goal ; mfr:expression "(ontable a)" .
`;

function pddlPair(): { domain: string; problem: string } {
  const dir = mkdtempSync(join(tmpdir(), "mfr-pddl-"));
  const domain = join(dir, "domain.pddl");
  const problem = join(dir, "problem.pddl");
  writeFileSync(domain, "(define (domain d))");
  writeFileSync(problem, "(define (problem p) (:domain d))");
  return { domain, problem };
}

const accepting = (turtle: string): PddlImporter => () => ({ ok: true, model: {} as Extract<PddlImport, { ok: true }>["model"], turtle, domainName: "d", problemName: "p", notes: ["(:metric …) kept as a note"], task: {} as Extract<PddlImport, { ok: true }>["task"] });
const refusing = (file: "domain" | "problem"): PddlImporter => () => ({ ok: false, refusal: { file, line: 7, column: 3, construct: ":durative-action", message: "durative actions are outside the supported subset" } });

function request(sessionId: string, round = 1, type = "ModelContributionRequest"): string {
  return JSON.stringify({ messageType: `${MFR}${type}`, sessionId, round, problemDescription: "stack the blocks" });
}

function child(stanza: Element, name: string): string | undefined {
  return stanza.getChildText(name, "http://purl.org/stuff/lingue/") ?? undefined;
}

describe("loadPddlContribution", () => {
  it("names the refused file as given, with line and column", async () => {
    const files = pddlPair();
    expect(await loadPddlContribution(files, refusing("problem"))).toEqual({ ok: false, error: `${files.problem}:7:3: durative actions are outside the supported subset` });
    expect(await loadPddlContribution(files, refusing("domain"))).toEqual({ ok: false, error: `${files.domain}:7:3: durative actions are outside the supported subset` });
  });

  it("says which file cannot be read, before importing anything", async () => {
    const files = { ...pddlPair(), problem: "/nonexistent/problem.pddl" };
    let called = false;
    const outcome = await loadPddlContribution(files, () => {
      called = true;
      return { ok: false, refusal: { file: "domain", line: 1, column: 1, construct: "define", message: "unused" } };
    });
    expect(outcome).toEqual({ ok: false, error: "/nonexistent/problem.pddl: cannot be read (ENOENT)" });
    expect(called).toBe(false);
  });

  it("hands the importer both texts and keeps its Turtle, names and notes", async () => {
    const files = pddlPair();
    let seen: string[] = [];
    const outcome = await loadPddlContribution(files, (d, p) => {
      seen = [d, p];
      return accepting(SMALL)(d, p);
    });
    expect(seen).toEqual(["(define (domain d))", "(define (problem p) (:domain d))"]);
    expect(outcome).toEqual({ ok: true, contribution: { turtle: SMALL, domainName: "d", problemName: "p", notes: ["(:metric …) kept as a note"] } });
  });
});

describe("pddlFilesOf", () => {
  it.each([
    [false, [], undefined],
    [true, ["d.pddl", "p.pddl"], { domain: "d.pddl", problem: "p.pddl" }],
    [true, ["d.pddl"], { error: "--pddl takes two files: DOMAIN PROBLEM" }],
    [true, ["d.pddl", "p.pddl", "x"], { error: "--pddl takes two files: DOMAIN PROBLEM" }],
  ])("--pddl %s with %j", (pddl, positionals, expected) => {
    expect(pddlFilesOf(pddl, positionals)).toEqual(expected);
  });
});

describe("PddlContributor", () => {
  const room = "mfr@conference.localhost";

  it("answers a session's first request once, in one stanza when it fits", () => {
    const contributor = new PddlContributor(SMALL, { nick: "Solver", maxStanzaBytes: 200 * 1024 });
    const answer = contributor.answer(room, request("amber-fox-1"), undefined);
    if (answer.kind !== "send") throw new Error(JSON.stringify(answer));
    expect(answer.stanzas).toHaveLength(1);
    const [stanza] = answer.stanzas as [Element];
    expect(stanza.attrs).toMatchObject({ to: room, type: "groupchat" });
    expect(child(stanza, "sessionId")).toBe("amber-fox-1");
    expect(child(stanza, "modelPart")).toBeUndefined();
    expect(stanza.getChild("payload")?.attrs).toMatchObject({ mode: "http://purl.org/stuff/lingue/ModelFirstRDF", mime: "text/turtle" });
    expect(stanza.getChild("payload")?.text()).toBe(SMALL);
    // The same request again (a resend) is not answered twice.
    expect(contributor.answer(room, request("amber-fox-1"), undefined)).toEqual({ kind: "none" });
  });

  it("says why it cannot send a contribution with one statement larger than a part may hold", () => {
    const huge = `@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n<#a> rdfs:comment "${"x".repeat(10_000)}" .\n`;
    const answer = new PddlContributor(huge, { nick: "Solver", maxStanzaBytes: 4096 }).answer(room, request("s3"), undefined);
    expect(answer).toMatchObject({ kind: "cannot-send", sessionId: "s3", error: expect.stringMatching(/^one statement of the model is \d+ bytes/) as unknown });
  });

  it("stays quiet in a fix round and on anything that is not a contribution request", () => {
    const contributor = new PddlContributor(SMALL, { nick: "Solver", maxStanzaBytes: 200 * 1024 });
    expect(contributor.answer(room, request("s1", 2), undefined)).toEqual({ kind: "none" });
    expect(contributor.answer(room, request("s1", 1, "SolutionRequest"), undefined)).toEqual({ kind: "none" });
    expect(contributor.answer(room, "not json", undefined)).toEqual({ kind: "none" });
    // The type may come in the payload's attribute alone.
    const bare = JSON.stringify({ sessionId: "s2" });
    expect(contributor.answer(room, bare, `${MFR}ModelContributionRequest`).kind).toBe("send");
  });
});

describe("a contribution in parts", () => {
  const sessionId = "amber-fox-42";
  const { statements, triples } = largeContributionStatements(3_000);
  const turtle = CONTRIBUTION_PREFIXES + statements.join("");
  const maxStanzaBytes = 16 * 1024;

  it("splits into k/n parts within the stanza limit whose union is the contribution", () => {
    const built = contributionStanzas(turtle, { room: "r@conference.localhost", sessionId, agent: "Solver" }, maxStanzaBytes);
    if (!built.ok) throw new Error(built.error);
    const n = built.stanzas.length;
    expect(n).toBeGreaterThan(3);
    const base = sessionBaseIri(sessionId);
    for (const [i, stanza] of built.stanzas.entries()) {
      expect(stanzaBytes(stanza)).toBeLessThanOrEqual(maxStanzaBytes);
      expect(child(stanza, "modelPart")).toBe(`${i + 1}/${n}`);
      expect(child(stanza, "sessionId")).toBe(sessionId);
      // Each part is a complete Turtle document on its own.
      expect(() => new Parser({ baseIRI: base }).parse(stanza.getChild("payload")?.text() ?? "")).not.toThrow();
    }
    // The union as the coordinator forms it: the parts in order, `@base` between them.
    const union = built.stanzas.map((s) => s.getChild("payload")?.text() ?? "").join(`\n@base <${base}> .\n`);
    const quads = new Parser({ baseIRI: base }).parse(union);
    expect(quads).toHaveLength(triples);
    const original = new Parser({ baseIRI: base }).parse(turtle);
    const named = (qs: typeof quads): string[] => [...new Set(qs.filter((q) => q.subject.termType === "NamedNode" && !q.subject.value.includes(".well-known")).map((q) => q.subject.value))].sort();
    expect(named(quads)).toEqual(named(original));
    // Blank nodes become IRIs of this sender's contribution, never shared with another agent's.
    const skolems = quads.filter((q) => q.subject.value.includes(".well-known/genid/"));
    expect(skolems.length).toBeGreaterThan(0);
    for (const q of skolems) expect(q.subject.value.startsWith(`${base}contribution/Solver/.well-known/genid/`)).toBe(true);
  });

  it("is one stanza when the same contribution fits the limit", () => {
    const built = contributionStanzas(turtle, { room: "r@conference.localhost", sessionId, agent: "Solver" }, 1024 * 1024);
    expect(built.ok && built.stanzas.length).toBe(1);
  });
});

describe("the example agent's program", () => {
  const env = { XMPP_SERVICE: "xmpp://127.0.0.1:5222", XMPP_DOMAIN: "localhost", XMPP_USERNAME: "modeler", XMPP_PASSWORD: "pw", MFR_ROOM: "mfr@conference.localhost", AGENT_NICK: "Modeler" };

  it("ends the start with the refusal's FILE:LINE:COL line and exit code 2", async () => {
    const files = pddlPair();
    expect(await prepareExampleAgent(["--pddl", files.domain, files.problem], env, refusing("domain"))).toEqual({
      ok: false,
      error: `${files.domain}:7:3: durative actions are outside the supported subset`,
      exitCode: 2,
    });
  });

  it("refuses --pddl without its two files, and a start without its account", async () => {
    expect(await prepareExampleAgent(["--pddl", "d.pddl"], env)).toMatchObject({ ok: false, error: "example-agent: --pddl takes two files: DOMAIN PROBLEM", exitCode: 2 });
    expect(await prepareExampleAgent([], { ...env, XMPP_PASSWORD: "" })).toMatchObject({ ok: false, exitCode: 2, error: expect.stringContaining("XMPP_PASSWORD") as unknown });
  });

  it("contributes the imported model with --pddl, and plays the sample modeller without", async () => {
    const files = pddlPair();
    const withPddl = await prepareExampleAgent(["--pddl", files.domain, files.problem], env, accepting(SMALL));
    if (!withPddl.ok) throw new Error(withPddl.error);
    expect(withPddl.options.nick).toBe("Modeler");
    const answer = withPddl.options.contributor?.answer(env.MFR_ROOM, request("s1"), undefined);
    expect(answer?.kind === "send" && answer.stanzas[0]?.getChild("payload")?.text()).toBe(SMALL);
    expect(withPddl.options.script.solution("", 1, [])).toBeUndefined();
    const plain = await prepareExampleAgent([], env);
    if (!plain.ok) throw new Error(plain.error);
    expect(plain.options.contributor).toBeUndefined();
    expect(plain.options.script.contribution(1, [])).toContain("mfr:Action");
  });
});
