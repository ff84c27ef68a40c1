/**
 * rdf/items.ts: the items of a kind are the instances of its class and of every subclass
 * (transitively, through cycles), typed in the graph asked for (any graph when none is), with
 * the subclass statements read from every graph (another agent may declare them); each item
 * once. One table (ITEM_KINDS) gives each kind one class and one link.
 */
import fc from "fast-check";
import { DataFactory, type Quad } from "n3";
import { describe, expect, it } from "vitest";
import { ITEM_KINDS, instancesOf } from "../../src/rdf/items.js";
import { ModelStore } from "../../src/rdf/quad-store.js";
import { Mfr, RDF_TYPE, RDFS } from "../../src/base/vocab.js";

const { namedNode, blankNode, quad } = DataFactory;
const EX = "https://ex.example/#";
const GRAPHS = ["alice", "bob", "coordinator"].map((g) => namedNode(`${EX}graph-${g}`));
const TYPE = namedNode(RDF_TYPE);
const SUB = namedNode(`${RDFS}subClassOf`);
const values = (terms: { value: string }[]) => terms.map((t) => t.value).sort();

describe("ITEM_KINDS: one class and one link per kind", () => {
  it("names the five kinds once, each with a distinct class and link", () => {
    expect(ITEM_KINDS.map((k) => k.kind)).toEqual(["entities", "stateVariables", "actions", "constraints", "goals"]);
    expect(new Set(ITEM_KINDS.map((k) => k.classIri)).size).toBe(5);
    expect(new Set(ITEM_KINDS.map((k) => k.linkIri)).size).toBe(5);
  });
});

describe("instancesOf: instances of the class and its subclasses, subclasses read from every graph", () => {
  it("finds an instance of a subclass declared in another agent's graph, in the graph asked for only", () => {
    const store = new ModelStore([
      quad(namedNode(`${EX}Truck`), SUB, namedNode(Mfr.Entity), GRAPHS[1]),
      quad(namedNode(`${EX}Lorry`), SUB, namedNode(`${EX}Truck`), GRAPHS[2]),
      quad(namedNode(`${EX}t1`), TYPE, namedNode(`${EX}Truck`), GRAPHS[0]),
      quad(blankNode("l1"), TYPE, namedNode(`${EX}Lorry`), GRAPHS[0]),
      quad(namedNode(`${EX}depot`), TYPE, namedNode(Mfr.Entity), GRAPHS[1]),
      quad(namedNode(`${EX}t1`), TYPE, namedNode(Mfr.Entity), GRAPHS[0]),
      quad(namedNode(`${EX}goal`), TYPE, namedNode(Mfr.Goal), GRAPHS[0]),
    ]);
    expect(values(instancesOf(store, Mfr.Entity, GRAPHS[0]))).toEqual([`${EX}t1`, "l1"].sort());
    expect(values(instancesOf(store, Mfr.Entity))).toEqual([`${EX}depot`, `${EX}t1`, "l1"].sort());
    expect(instancesOf(store, Mfr.Entity, GRAPHS[2])).toEqual([]);
  });

  it("ends on a cycle of subclasses", () => {
    const store = new ModelStore([
      quad(namedNode(`${EX}A`), SUB, namedNode(`${EX}B`), GRAPHS[0]),
      quad(namedNode(`${EX}B`), SUB, namedNode(`${EX}A`), GRAPHS[0]),
      quad(namedNode(`${EX}A`), SUB, namedNode(`${EX}A`), GRAPHS[0]),
      quad(namedNode(`${EX}x`), TYPE, namedNode(`${EX}A`), GRAPHS[0]),
    ]);
    expect(values(instancesOf(store, `${EX}B`))).toEqual([`${EX}x`]);
  });

  it("is exactly the typed subjects whose class reaches the asked class, each once (property)", () => {
    const cls = fc.integer({ min: 0, max: 5 });
    const graph = fc.integer({ min: 0, max: GRAPHS.length - 1 });
    const node = fc.integer({ min: 0, max: 6 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cls, cls, graph), { maxLength: 10 }),
        fc.array(fc.tuple(node, fc.boolean(), cls, graph), { maxLength: 14 }),
        cls,
        fc.option(graph, { nil: undefined }),
        (subclassOf, typings, asked, inGraph) => {
          const className = (c: number) => `${EX}C${c}`;
          const nodeOf = (n: number, isBlank: boolean) => (isBlank ? blankNode(`n${n}`) : namedNode(`${EX}n${n}`));
          const quads: Quad[] = [
            ...subclassOf.map(([sub, sup, g]) => quad(namedNode(className(sub)), SUB, namedNode(className(sup)), GRAPHS[g])),
            ...typings.map(([n, b, c, g]) => quad(nodeOf(n, b), TYPE, namedNode(className(c)), GRAPHS[g])),
          ];
          // The classes that reach `asked` through subclass statements of any graph, by fixpoint.
          const reaching = new Set([asked]);
          for (let grew = true; grew; ) {
            grew = false;
            for (const [sub, sup] of subclassOf) if (reaching.has(sup) && !reaching.has(sub)) grew = reaching.add(sub) !== undefined;
          }
          const expected = new Set(typings.filter(([, , c, g]) => reaching.has(c) && (inGraph === undefined || g === inGraph)).map(([n, b]) => `${b ? "B" : "N"}${n}`));
          const found = instancesOf(new ModelStore(quads), className(asked), inGraph === undefined ? undefined : GRAPHS[inGraph]);
          const keys = found.map((t) => `${t.termType === "BlankNode" ? "B" : "N"}${t.value.replace(EX, "").replace(/^n/, "")}`);
          expect(keys.length).toBe(new Set(keys).size);
          expect(new Set(keys)).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
