/**
 * The model graph's nodes and typed edges, read from the RDF: on the demo's model every action
 * and goal is linked to what it takes, reads, changes or requires; on random models every edge
 * joins two nodes, no edge is there twice, and there is one node per item plus the types and
 * predicates the formal part names.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SAMPLE_CONTRIBUTIONS } from "../../examples/agents/sample-problem.js";
import type { ContributionGraph } from "../../src/rdf/merge.js";
import { parseContribution } from "../../src/rdf/parse.js";
import { itemGraph, type ItemGraph } from "../../src/web/model-graph.js";
import { predicateNodeId, typeNodeId } from "../../src/web/model-links.js";

const BASE = "http://example.org/session/";
const PREFIXES = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
`;

function graphsOf(contributions: Record<string, string>): ContributionGraph[] {
  return Object.entries(contributions).map(([agent, turtle], index) => {
    const graphIri = `${BASE}contribution/${agent}`;
    const parsed = parseContribution(turtle, { baseIri: BASE, graphIri, maxTriples: 100_000, blankNodePrefix: `c${index}_` });
    if (!parsed.ok) throw new Error(`${agent}: ${parsed.error.message}`);
    return { agent, graphIri, quads: parsed.quads };
  });
}

const iri = (local: string): string => `${BASE}#${local}`;

/** `source -kind-> target` with both ends by label, for readable expectations. */
function arrows(g: ItemGraph): string[] {
  const label = new Map(g.nodes.map((n) => [n.id, n.label]));
  return g.edges.map((e) => `${label.get(e.source)} -${e.kind}-> ${label.get(e.target)}`);
}

function degree(g: ItemGraph, id: string): number {
  return g.edges.filter((e) => e.source === id || e.target === id).length;
}

describe("the model graph", () => {
  const demo = itemGraph(graphsOf({ ...SAMPLE_CONTRIBUTIONS }));

  it("on the demo's model: one node per item, plus its types and undeclared predicates", () => {
    const byKind = (kind: string): string[] => demo.nodes.filter((n) => n.kind === kind).map((n) => n.label);
    expect(byKind("entities")).toEqual(["Truck 1", "Depot", "Warehouse", "crate 1", "crate 2", "crate 3"]);
    expect(byKind("stateVariables")).toEqual(["crates on the truck"]);
    expect(byKind("actions").sort()).toEqual(["drive", "load", "unload"]);
    expect(byKind("constraints").sort()).toEqual(["capacity", "oneTruck"]);
    expect(byKind("goals")).toEqual(["crates delivered"]);
    expect(byKind("types").sort()).toEqual(["Crate", "Location", "Truck"]);
    expect(byKind("predicates").sort()).toEqual(["at", "capacity", "in"]);
    expect(demo.note).toBeUndefined();
  });

  it("on the demo's model: actions take types, read and change state; the goal requires; the constraint applies; entities are typed", () => {
    const a = arrows(demo);
    for (const arrow of [
      "Truck 1 -typedAs-> Truck",
      "crate 2 -typedAs-> Crate",
      "load -parameter-> Crate",
      "load -parameter-> Truck",
      "load -parameter-> Location",
      "load -reads-> at",
      "load -reads-> crates on the truck",
      "load -reads-> capacity",
      "load -changes-> in",
      "load -changes-> at",
      "load -changes-> crates on the truck",
      "drive -changes-> at",
      "unload -changes-> crates on the truck",
      "crates delivered -requires-> at",
      "crates delivered -requires-> crate 3",
      "crates delivered -requires-> Warehouse",
      "capacity -appliesTo-> Truck 1",
      "capacity -appliesTo-> crates on the truck",
    ]) {
      expect(a, arrow).toContain(arrow);
    }
    // drive reads `at` but changes nothing it only reads: no edge of a kind it does not have.
    expect(a).not.toContain("drive -changes-> in");
    expect(new Set(a).size).toBe(a.length);
  });

  it("on the demo's model: every action and every goal is linked", () => {
    for (const n of demo.nodes.filter((n) => n.kind === "actions" || n.kind === "goals")) expect(degree(demo, n.id), n.label).toBeGreaterThan(0);
    expect(degree(demo, iri("oneTruck"))).toBe(0); // free text only: nothing to link
  });

  it("links a parameter that names an entity, in a list or alone, and any other property between items", () => {
    const g = itemGraph(
      graphsOf({
        a: `${PREFIXES}<#t> a mfr:Entity . <#d> a mfr:Entity .
<#go> a mfr:Action ; mfr:hasParameter ( <#t> <#d> ) . <#stop> a mfr:Action ; mfr:hasParameter <#t> ; rdfs:seeAlso <#go> .`,
      }),
    );
    expect(arrows(g).sort()).toEqual(["go -parameter-> d", "go -parameter-> t", "stop -link-> go", "stop -parameter-> t"]);
    expect(g.edges.find((e) => e.kind === "link")?.label).toBe("seeAlso");
  });

  it("types compare case-insensitively; a declared predicate links to its state variable, by expression or symbol", () => {
    const g = itemGraph(
      graphsOf({
        a: `${PREFIXES}<#b1> a mfr:Entity ; mfr:entityType "Block" . <#b2> a mfr:Entity ; mfr:entityType "BLOCK" .
<#clear> a mfr:StateVariable ; mfr:symbol "Clear" .
<#on> a mfr:StateVariable ; mfr:expression "(on ?x ?y)" .
<#stack> a mfr:Action ; mfr:actionName "stack" ; mfr:hasParameter "?x ?y - block" ;
  mfr:hasPrecondition [ mfr:expression "(and (clear ?y) (holding ?x))" ] ; mfr:hasEffect [ mfr:expression "(and (on ?x ?y) (not (clear ?y)))" ] .`,
      }),
    );
    expect(g.nodes.filter((n) => n.kind === "types").map((n) => n.id)).toEqual([typeNodeId("block")]);
    expect(g.nodes.filter((n) => n.kind === "predicates").map((n) => n.id)).toEqual([predicateNodeId("holding")]);
    expect(arrows(g).sort()).toEqual(["b1 -typedAs-> Block", "b2 -typedAs-> Block", "stack -changes-> Clear", "stack -changes-> on", "stack -parameter-> Block", "stack -reads-> Clear", "stack -reads-> holding"]);
    expect(g.nodes.find((n) => n.kind === "predicates")?.details).toEqual(["read by: stack"]);
  });

  it("caps the edges and the added nodes, and says what it left out", () => {
    const g = itemGraph(graphsOf({ ...SAMPLE_CONTRIBUTIONS }), { maxNodes: 16, maxEdges: 10 });
    expect(g.edges).toHaveLength(10);
    expect(g.nodes.length).toBeLessThanOrEqual(16);
    expect(g.note).toMatch(/^Not drawn: \d+ types and predicates and \d+ links \(the graph shows at most 16 nodes and 10 links\)\.$/);
    const ids = new Set(g.nodes.map((n) => n.id));
    for (const e of g.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
    expect(itemGraph(graphsOf({ ...SAMPLE_CONTRIBUTIONS }), { maxNodes: 12, maxEdges: 10 })).toEqual({ nodes: [], edges: [], note: expect.stringContaining("13 items") });
  });
});

/** Random models over a few entities, types, state variables, actions, goals and constraints. */
const SYMBOLS = ["a", "b", "c", "d"];
const TYPES = ["Crate", "crate", "Truck", "object", "Place"];
const PREDICATES = ["at", "in", "clear", "load", "weight"];
const name = fc.constantFrom(...SYMBOLS);
const variable = fc.constantFrom("?x", "?y");
const term = fc.oneof(name, variable);
const atom = fc.tuple(fc.constantFrom(...PREDICATES), fc.array(term, { maxLength: 2 })).map(([p, args]) => `(${[p, ...args].join(" ")})`);
const { condition } = fc.letrec<{ condition: string }>((tie) => ({
  condition: fc.oneof(
    { maxDepth: 3 },
    atom,
    atom.map((x) => `(not ${x})`),
    atom.map((x) => `(< ${x} 3)`),
    fc.array(tie("condition"), { minLength: 1, maxLength: 3 }).map((ps) => `(and ${ps.join(" ")})`),
  ),
}));
const effect = fc.oneof(atom, atom.map((x) => `(not ${x})`), atom.map((x) => `(increase ${x} 1)`));

interface RandomModel {
  entities: Array<[string, string]>;
  stateVariables: Array<[string, boolean]>;
  actions: Array<{ pre: string[]; eff: string[]; types: string[] }>;
  goals: string[];
  constraints: Array<[string, string | null]>;
}

const contribution: fc.Arbitrary<RandomModel> = fc
  .record({
    entities: fc.array(fc.tuple(name, fc.constantFrom(...TYPES)), { maxLength: 5 }),
    stateVariables: fc.array(fc.tuple(fc.constantFrom(...PREDICATES), fc.boolean()), { maxLength: 3 }),
    actions: fc.array(fc.record({ pre: fc.array(condition, { maxLength: 2 }), eff: fc.array(effect, { maxLength: 2 }), types: fc.array(fc.constantFrom(...TYPES), { maxLength: 2 }) }), { maxLength: 3 }),
    goals: fc.array(condition, { maxLength: 2 }),
    constraints: fc.array(fc.tuple(condition, fc.option(name)), { maxLength: 2 }),
  });

/** The contribution as Turtle, and the IRIs of its items. */
function turtleOf(agent: string, m: RandomModel): { turtle: string; items: string[] } {
  const lines: string[] = [PREFIXES];
  const items: string[] = [];
  const item = (local: string, line: string): void => {
    items.push(iri(local));
    lines.push(line);
  };
  m.entities.forEach(([s, t]) => item(s, `<#${s}> a mfr:Entity ; mfr:entityType "${t}" .`));
  m.stateVariables.forEach(([p, byExpression], i) => item(`${agent}sv${i}`, `<#${agent}sv${i}> a mfr:StateVariable ; ${byExpression ? `mfr:expression "(${p} ?x)"` : `mfr:symbol "${p}"`} .`));
  m.actions.forEach((a, i) => {
    const params = a.types.map((t, k) => `"?${["x", "y"][k]} - ${t}"`).join(" ");
    const pre = a.pre.map((c) => ` ; mfr:hasPrecondition [ mfr:expression "${c}" ]`).join("");
    const eff = a.eff.map((e) => ` ; mfr:hasEffect [ mfr:expression "${e}" ]`).join("");
    item(`${agent}act${i}`, `<#${agent}act${i}> a mfr:Action ; mfr:actionName "act${i}" ; mfr:hasParameter ( ${params} )${pre}${eff} .`);
  });
  m.goals.forEach((c, i) => item(`${agent}goal${i}`, `<#${agent}goal${i}> a mfr:Goal ; mfr:expression "${c}" .`));
  m.constraints.forEach(([c, on], i) => item(`${agent}con${i}`, `<#${agent}con${i}> a mfr:Constraint ; mfr:constraintExpression "${c}"${on ? ` ; mfr:appliesTo <#${on}>` : ""} .`));
  return { turtle: lines.join("\n"), items };
}

describe("the model graph on random models", () => {
  it("every edge joins two nodes, no edge is there twice, one node per item plus types and predicates, caps kept", () => {
    fc.assert(
      fc.property(contribution, contribution, fc.integer({ min: 1, max: 60 }), (m1, m2, maxEdges) => {
        const one = turtleOf("p", m1);
        const two = turtleOf("q", m2);
        const itemIds = new Set([...one.items, ...two.items]);
        const g = itemGraph(graphsOf({ p: one.turtle, q: two.turtle }), { maxNodes: 400, maxEdges });
        const ids = g.nodes.map((n) => n.id);
        expect(new Set(ids).size).toBe(ids.length);
        const items = g.nodes.filter((n) => n.kind !== "types" && n.kind !== "predicates");
        expect(new Set(items.map((n) => n.id))).toEqual(itemIds);
        for (const e of g.edges) {
          expect(ids).toContain(e.source);
          expect(ids).toContain(e.target);
          expect(e.source).not.toBe(e.target);
        }
        const keys = g.edges.map((e) => `${e.source} ${e.target} ${e.kind} ${e.kind === "link" ? e.label : ""}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(g.edges.length).toBeLessThanOrEqual(maxEdges);
        // An added node is there only because something links to it.
        for (const n of g.nodes) if (n.kind === "types" || n.kind === "predicates") expect(g.edges.some((e) => e.target === n.id)).toBe(true);
        if (g.edges.length < maxEdges) expect(g.note).toBeUndefined();
      }),
      { numRuns: 150, seed: 27 },
    );
  });
});
