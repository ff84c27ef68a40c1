import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { DataFactory, Parser, Writer } from "n3";
import type { Literal, Quad, Quad_Graph, Quad_Object, Quad_Predicate, Quad_Subject } from "n3";
import { mergeContributions, problemModelIriFor } from "../../src/rdf/merge.js";
import { parseContribution } from "../../src/rdf/parse.js";
import { IriMemoWriter, SubjectLineWriter, modelForSolvers, modelToTrig, modelToTurtle, sessionPrefixes } from "../../src/rdf/serialize.js";
import { tripleKey } from "../../src/rdf/triples.js";
import { BASE_IRI, COORDINATOR_GRAPH, fixture, graphOf } from "./helpers.js";

const PREFIX = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n";

function mergedModel() {
  const parts = [
    ["alice", fixture("valid-complete.ttl")],
    ["bob", `${PREFIX}<#truck> a mfr:Entity ; mfr:entityType "Vehicle" ; mfr:note "say \\"hi\\"\\nthen go"@en . _:b0 a mfr:Goal .`],
  ] as const;
  return mergeContributions(
    { sessionId: "s", problemDescription: "Deliver.", problemModelIri: problemModelIriFor(BASE_IRI), coordinatorGraphIri: COORDINATOR_GRAPH },
    parts.map(([agent, turtle], i) => {
      const outcome = parseContribution(turtle, { baseIri: BASE_IRI, graphIri: graphOf(agent), maxTriples: 1000, blankNodePrefix: `c${i}_` });
      if (!outcome.ok) throw new Error(outcome.error.message);
      return { agent, graphIri: graphOf(agent), quads: outcome.quads };
    }),
  );
}

const quadKey = (q: Quad) => `${tripleKey(q)} ${q.graph.termType}:${q.graph.value}`;

describe("modelToTurtle", () => {
  it("writes the union of all graphs once each, with our prefixes", () => {
    const model = mergedModel();
    const turtle = modelToTurtle(model.store);
    expect(turtle).toMatch(/^@prefix mfr: <http:\/\/purl\.org\/stuff\/mfr\/>\./m);
    const reparsed = new Parser({ format: "text/turtle", blankNodePrefix: "" }).parse(turtle);
    const union = new Set(model.store.getQuads(null, null, null, null).map(tripleKey));
    expect(new Set(reparsed.map(tripleKey))).toEqual(union);
    // <#truck> a mfr:Entity is stated by alice and bob: one triple in the union.
    expect(reparsed).toHaveLength(union.size);
    expect(union.size).toBeLessThan(model.store.size);
  });
});

describe("modelToTrig", () => {
  it("keeps the named graphs and round-trips through n3's parser to the same quads", () => {
    const model = mergedModel();
    const trig = modelToTrig(model.store);
    expect(trig).toContain(`<${graphOf("alice")}> {`);
    const reparsed = new Parser({ format: "application/trig", blankNodePrefix: "" }).parse(trig);
    const original = model.store.getQuads(null, null, null, null).map(quadKey).sort();
    expect(reparsed.map(quadKey).sort()).toEqual(original);
  });
});

describe("modelForSolvers", () => {
  it("writes exactly what modelToTurtle writes, and counts the union's triples", () => {
    const model = mergedModel();
    const written = modelForSolvers(model.store);
    expect(written.turtle).toBe(modelToTurtle(model.store));
    expect(written.triples).toBe(new Set(model.store.getQuads(null, null, null, null).map(tripleKey)).size);
  });
});

describe("IriMemoWriter", () => {
  const { namedNode, blankNode, literal, quad, defaultGraph } = DataFactory;
  // IRIs under the prefixes and not, IRIs that need escaping, that end where a prefix does, that look like prefixed names.
  const iri = fc.constantFrom(
    "http://purl.org/stuff/mfr/Entity",
    "http://purl.org/stuff/mfr/",
    "http://purl.org/stuff/mfr/has.dot",
    "http://purl.org/stuff/mfr/ends.",
    "https://mfr.example/s/#truck-1",
    "https://mfr.example/s/#",
    "https://mfr.example/s/other",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
    "http://www.w3.org/2001/XMLSchema#integer",
    "http://example.org/with space",
    "http://example.org/quote\"and>",
    "mfr:looks-prefixed",
    "urn:x",
  ).map((value) => namedNode(value));
  const subject = fc.oneof(iri, fc.constantFrom(blankNode("b0"), blankNode("b1")));
  const object = fc.oneof(
    iri,
    subject,
    fc.tuple(fc.string({ maxLength: 4 }), fc.option(iri, { nil: undefined })).map(([value, datatype]) => literal(value, datatype)),
  );
  const graph = fc.constantFrom<Quad_Graph>(defaultGraph(), namedNode("https://mfr.example/s/contribution/a"), namedNode("http://purl.org/stuff/mfr/g"));
  const quads = fc.array(
    fc.tuple(subject, iri, object, graph).map(([s, p, o, g]) => quad(s as Quad_Subject, p as Quad_Predicate, o as Quad_Object, g)),
    { maxLength: 30 },
  );
  const written = (writer: Writer, input: Quad[]): string => {
    writer.addQuads(input);
    let text = "";
    writer.end((error, result: string) => {
      if (error) throw error;
      text = result;
    });
    return text;
  };

  it("SubjectLineWriter writes each subject on one line, and n3 reads back the same triples (property)", () => {
    const prefixes = sessionPrefixes("https://mfr.example/s/");
    // Literals with line breaks, quotes and text that looks like the separator.
    const tricky = fc.constantFrom(";\n    ", "a\nb", 'say "hi"', "x;\n    y", "\\", "");
    // IRIs as a parse gives them. n3's Writer (with or without this class) writes a space or a
    // quote in an IRI as it is, and an IRI like `mfr:x` bare: it cannot read those back.
    const parsable = iri.filter((n) => !/[\s"<>]/.test(n.value) && /^(https?|urn):/.test(n.value));
    const parsableSubject = fc.oneof(parsable, fc.constantFrom(blankNode("b0"), blankNode("b1")));
    const parsableObject = fc.oneof(
      parsable,
      parsableSubject,
      fc.tuple(fc.string({ maxLength: 4 }), fc.option(parsable, { nil: undefined })).map(([value, datatype]) => literal(value, datatype)),
      tricky.map((t) => literal(t)),
    );
    const withTricky = fc.array(
      fc.tuple(parsableSubject, parsable, parsableObject).map(([s, p, o]) => quad(s as Quad_Subject, p as Quad_Predicate, o as Quad_Object)),
      { maxLength: 30 },
    );
    const key = (q: Quad) => `${q.subject.termType}:${q.subject.value} ${q.predicate.value} ${q.object.termType}:${q.object.value}:${q.object.termType === "Literal" ? `${(q.object as Literal).datatype.value}@${(q.object as Literal).language}` : ""}`;
    fc.assert(
      fc.property(withTricky, (input) => {
        const text = written(new SubjectLineWriter({ prefixes, format: "text/turtle" }), input);
        const back = new Parser({ format: "text/turtle", blankNodePrefix: "" }).parse(text);
        expect(new Set(back.map(key))).toEqual(new Set(input.map(key)));
        // Every statement's line starts a subject: no line begins with the indentation n3 uses.
        expect(text).not.toMatch(/\n {4}/);
      }),
      { numRuns: 300 },
    );
  });

  it("writes exactly what n3's Writer writes, in Turtle and TriG, however often an IRI recurs", () => {
    const prefixes = sessionPrefixes("https://mfr.example/s/");
    fc.assert(
      fc.property(quads, fc.constantFrom("text/turtle", "application/trig"), (input, format) => {
        expect(written(new IriMemoWriter({ prefixes, format }), input)).toBe(written(new Writer({ prefixes, format }), input));
      }),
      { numRuns: 300 },
    );
  });
});
