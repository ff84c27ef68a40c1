/**
 * A validation that reuses the contributions the worker checked (parsed-contributions.ts)
 * gives exactly what one that parses them again gives: same merged model, same Turtle, same
 * findings, same formal model, whatever blank nodes, lists and repeats the texts hold.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyseModel } from "../../src/analysis/analysis.js";
import { parseInto } from "../../src/rdf/parse.js";
import { CHECK_BLANK_PREFIX, ParsedContributions } from "../../src/analysis/parsed-contributions.js";
import { ModelStore } from "../../src/rdf/quad-store.js";
import { BASE_IRI, contribution, fixture, graphOf, job, shapes } from "../rdf/helpers.js";

const PREFIXES = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n";

/** Statements that exercise what renaming must get right: labelled and anonymous blank nodes, lists, repeats, shared names. */
const statement = fc.oneof(
  fc.constantFrom(
    `<#truck> a mfr:Entity ; mfr:entityType "Truck" .`,
    `<#truck> a mfr:Entity ; mfr:entityType "Truck" .`,
    `_:a a mfr:Entity ; mfr:entityType "Crate" .`,
    `_:a_1 a mfr:Goal ; rdfs:label "labelled like an anonymous node" .`,
    `_:ka_1 mfr:entityType "labelled like the check's anonymous nodes" .`,
    `_:k_x mfr:entityType "labelled like the check's own prefix" .`,
    `<#move> a mfr:Action ; mfr:actionName "move" ; mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(at ?t ?from)" ] ; mfr:hasEffect [ a mfr:Effect ; mfr:expression "(at ?t ?to)" ] .`,
    `<#move> mfr:hasParameter ( "?t" "?from" [ rdfs:label "nested" ] ) .`,
    `[] a mfr:Constraint ; mfr:constraintType "capacity" ; mfr:appliesTo _:a .`,
    `<#goal> a mfr:Goal ; mfr:expression "(at truck depot)" ; rdfs:seeAlso [ rdfs:seeAlso [ rdfs:label "deep" ] ] .`,
  ),
  fc.string({ maxLength: 6 }).map((text) => `<#thing> rdfs:label ${JSON.stringify(text)} .`),
);
const text = fc.array(statement, { minLength: 1, maxLength: 8 }).map((lines) => PREFIXES + lines.join("\n"));
const agents = ["alice", "bob", "carol"];

/** What the worker's check does with a text, for the cache: parse it alone, with the check's prefix. */
function check(held: ParsedContributions, agent: string, turtle: string): void {
  const outcome = parseInto(new ModelStore(), turtle, { baseIri: BASE_IRI, graphIri: graphOf(agent), maxTriples: 10_000, blankNodePrefix: CHECK_BLANK_PREFIX });
  if (outcome.ok) held.remember(BASE_IRI, graphOf(agent), turtle, outcome.quads);
}

describe("contributions kept as the check parsed them", () => {
  it("make the same analysis as parsing the texts again", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 3 }), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), async (texts, checked) => {
        const held = new ParsedContributions();
        const contributions = texts.map((turtle, i) => contribution(agents[i] as string, turtle));
        // Some held, some not: a validation mixes both.
        contributions.forEach((c, i) => checked[i] && check(held, c.agent, c.turtle));
        const reused = await analyseModel(job(contributions), shapes, held);
        const parsed = await analyseModel(job(contributions), shapes);
        expect(reused).toEqual(parsed);
      }),
      { numRuns: 60 },
    );
  });

  it("are reused only for exactly the text checked, in the graph it was checked for", () => {
    const held = new ParsedContributions();
    const turtle = fixture("valid-complete.ttl");
    check(held, "alice", turtle);
    expect(held.reuse(BASE_IRI, graphOf("alice"), turtle, "c0_")).toBeDefined();
    expect(held.reuse(BASE_IRI, graphOf("alice"), `${turtle}\n`, "c0_")).toBeUndefined();
    expect(held.reuse(BASE_IRI, graphOf("bob"), turtle, "c0_")).toBeUndefined();
    expect(held.reuse("https://mfr.example/sessions/other/", graphOf("alice"), turtle, "c0_")).toBeUndefined();
  });

  it("keep a bounded number of entries and quads, the least recently used going first", () => {
    const held = new ParsedContributions(2, 1_000);
    const turtle = (n: number) => `${PREFIXES}<#e${n}> a mfr:Entity .`;
    check(held, "a", turtle(1));
    check(held, "b", turtle(2));
    held.reuse(BASE_IRI, graphOf("a"), turtle(1), "c0_");
    check(held, "c", turtle(3));
    expect(held.size).toBe(2);
    expect(held.reuse(BASE_IRI, graphOf("b"), turtle(2), "c0_")).toBeUndefined();
    expect(held.reuse(BASE_IRI, graphOf("a"), turtle(1), "c0_")).toBeDefined();
    // More quads than the bound: not held at all.
    const large = `${PREFIXES}${Array.from({ length: 1_001 }, (_, i) => `<#e${i}> a mfr:Entity .`).join("\n")}`;
    check(held, "d", large);
    expect(held.reuse(BASE_IRI, graphOf("d"), large, "c0_")).toBeUndefined();
  });
});
