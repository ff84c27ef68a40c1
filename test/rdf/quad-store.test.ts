/**
 * ModelStore against n3's Store: for any sequence of added quads and look-ups, the same
 * answers in the same order (what the model's writers and the SHACL engine read), and the
 * same refusals of repeated quads.
 */
import fc from "fast-check";
import { DataFactory, Store, termToId } from "n3";
import type { Quad, Quad_Graph, Quad_Object, Quad_Predicate, Quad_Subject, Term } from "n3";
import { describe, expect, it } from "vitest";
import { ModelStore } from "../../src/rdf/quad-store.js";

const { namedNode, blankNode, literal, quad, defaultGraph } = DataFactory;
const XSD_INT = namedNode("http://www.w3.org/2001/XMLSchema#integer");

/** Few enough terms that quads repeat and look-ups hit. IRIs that look like other keys included. */
const NODES: Term[] = [
  namedNode("http://ex.org/a"),
  namedNode("http://ex.org/b"),
  namedNode("https://mfr.example/s/#c"),
  namedNode("_:looks-blank"),
  namedNode('"looks-literal"'),
  namedNode("<wrapped>"),
  namedNode(".dot"),
  namedNode("?q"),
  namedNode("[bracket"),
  namedNode("Upper:case"),
  blankNode("b0"),
  blankNode("b1"),
];
const PREDICATES: Term[] = [namedNode("http://ex.org/p"), namedNode("http://ex.org/q"), namedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")];
const LITERALS: Term[] = [
  literal("x"),
  literal("x", "en"),
  // A base direction (RDF 1.2): n3 takes it, its typings do not know it yet.
  literal("x", { language: "ar", direction: "rtl" } as unknown as string),
  literal("x", namedNode("http://www.w3.org/2001/XMLSchema#string")),
  literal("1", XSD_INT),
  literal(""),
  literal("<>"),
];
const GRAPHS: Term[] = [defaultGraph(), namedNode("http://ex.org/g1"), namedNode("http://ex.org/g2"), blankNode("g3")];
const UNKNOWN: Term = namedNode("http://ex.org/never-added");

const subject = fc.constantFrom(...NODES);
const predicate = fc.constantFrom(...PREDICATES);
const plainObject = fc.constantFrom(...NODES, ...LITERALS, ...PREDICATES);
/** RDF 1.2 triple terms, nested up to twice, whose parts may be seen first inside them (their numbering matters). */
const quoted = fc.letrec<{ term: Term }>((tie) => ({
  term: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    plainObject,
    fc.tuple(subject, predicate, tie("term")).map(([s, p, o]) => quad(s as Quad_Subject, p as Quad_Predicate, o as Quad_Object) as unknown as Term),
  ),
})).term;
const object = fc.oneof({ weight: 4, arbitrary: plainObject }, { weight: 1, arbitrary: quoted });
const graph = fc.constantFrom(...GRAPHS);
const someQuad = fc.tuple(subject, predicate, object, graph).map(([s, p, o, g]) =>
  quad(s as Quad_Subject, p as Quad_Predicate, o as Quad_Object, g as Quad_Graph),
);
const orNull = (arb: fc.Arbitrary<Term>) => fc.option(fc.oneof(arb, fc.constant(UNKNOWN)), { nil: null, freq: 2 });
const pattern = fc.tuple(orNull(subject), orNull(predicate), orNull(object), orNull(graph));

type Pattern = [Term | null, Term | null, Term | null, Term | null];
/** One look-up alone (so the store builds only the index it needs before the next write), or all of them. */
type Question = keyof ReturnType<typeof answers> | "all";
type Step = { add: Quad[] } | { ask: Pattern; question: Question };
const question = fc.constantFrom<Question>("quads", "count", "subjects", "objects", "graphs", "all");
const steps = fc.array(
  fc.oneof(
    fc.array(someQuad, { maxLength: 30 }).map((add): Step => ({ add })),
    fc.tuple(pattern, question).map(([ask, q]): Step => ({ ask, question: q })),
  ),
  { maxLength: 25 },
);

const ids = (terms: readonly (Term | Quad)[]): string[] => terms.map((t) => termToId(t as Term));
const quadIds = (quads: readonly Quad[]): string[] => quads.map((q) => [q.subject, q.predicate, q.object, q.graph].map((t) => termToId(t)).join(" "));

function answers(store: Store | ModelStore, [s, p, o, g]: Pattern) {
  return {
    quads: quadIds(store.getQuads(s, p, o, g)),
    count: store.countQuads(s, p, o, g),
    subjects: ids(store.getSubjects(p, o, g)),
    objects: ids(store.getObjects(s, p, g)),
    graphs: ids(store.getGraphs(s, p, o)),
    size: store.size,
  };
}

function answer(store: Store | ModelStore, [s, p, o, g]: Pattern, question: Question): unknown {
  switch (question) {
    case "quads":
      return quadIds(store.getQuads(s, p, o, g));
    case "count":
      return store.countQuads(s, p, o, g);
    case "subjects":
      return ids(store.getSubjects(p, o, g));
    case "objects":
      return ids(store.getObjects(s, p, g));
    case "graphs":
      return ids(store.getGraphs(s, p, o));
    case "size":
      return store.size;
    case "all":
      return answers(store, [s, p, o, g]);
  }
}

describe("ModelStore", () => {
  it("answers every look-up as n3's Store does, in the same order, as quads are added between look-ups", () => {
    fc.assert(
      fc.property(steps, (script) => {
        const reference = new Store();
        const store = new ModelStore();
        for (const step of script) {
          if ("add" in step) {
            for (const q of step.add) expect(store.addQuad(q)).toBe(reference.addQuad(q));
          } else {
            expect(answer(store, step.ask, step.question)).toEqual(answer(reference, step.ask, step.question));
          }
        }
        expect(answers(store, [null, null, null, null])).toEqual(answers(reference, [null, null, null, null]));
      }),
      { numRuns: 300 },
    );
  });

  it("holds quoted triples as terms, equal when their parts are", () => {
    const inner = quad(namedNode("http://ex.org/a"), namedNode("http://ex.org/p"), literal("x"));
    const again = quad(namedNode("http://ex.org/a"), namedNode("http://ex.org/p"), literal("x"));
    const store = new ModelStore();
    expect(store.addQuad(quad(namedNode("http://ex.org/s"), namedNode("http://ex.org/says"), inner))).toBe(true);
    expect(store.addQuad(quad(namedNode("http://ex.org/s"), namedNode("http://ex.org/says"), again))).toBe(false);
    expect(store.getObjects(namedNode("http://ex.org/s"), null, null)).toHaveLength(1);
  });

  it("keeps every quad of a large store through the table's growth", () => {
    const store = new ModelStore();
    const reference = new Store();
    for (let i = 0; i < 5000; i++) {
      const q = quad(namedNode(`http://ex.org/n${i % 700}`), namedNode(`http://ex.org/p${i % 7}`), literal(String(i % 1300)), i % 3 === 0 ? defaultGraph() : namedNode(`http://ex.org/g${i % 5}`));
      expect(store.addQuad(q)).toBe(reference.addQuad(q));
    }
    expect(store.size).toBe(reference.size);
    expect(quadIds(store.getQuads(null, null, null, null))).toEqual(quadIds(reference.getQuads(null, null, null, null)));
  });
});
