/**
 * rdf/finding-text.ts: how SHACL results read for a person. An IRI stays as it is; a blank
 * node shows its id plus what lets a person find it (its name, best name property first, else
 * what an agent hangs it on, never the coordinator's own links, else its type); IRIs in our
 * namespaces read as prefixed names; a property path reads in SPARQL-like notation; a result
 * without sh:message still gets a line, never an empty one.
 */
import fc from "fast-check";
import { DataFactory, Parser, Store } from "n3";
import { describe, expect, it } from "vitest";
import { compactIri, fallbackMessage, renderNode, renderPath } from "../../src/rdf/finding-text.js";
import { ModelStore } from "../../src/rdf/quad-store.js";
import { MFR, RDF, RDFS, SCHEMA_HTTP, SCHEMA_HTTPS, SH } from "../../src/base/vocab.js";

const COORD = "https://mfr.example/graph/coordinator";
const AGENT = "https://mfr.example/graph/alice";
const PRE = `@prefix schema: <${SCHEMA_HTTP}> . @prefix schemas: <${SCHEMA_HTTPS}> . @prefix rdfs: <${RDFS}> . @prefix mfr: <${MFR}> . @prefix sh: <${SH}> . @prefix ex: <https://ex.example/#> .\n`;

/** A store of TriG: `<graph> { … }` blocks keep each statement's graph. */
const storeOf = (trig: string) => new ModelStore(new Parser({ format: "application/trig", blankNodePrefix: "" }).parse(PRE + trig));
const blank = (id: string) => DataFactory.blankNode(id);

describe("renderNode: an IRI as it is; a blank node with what lets a person find it", () => {
  it("an IRI is its value; a literal is quoted", () => {
    const store = storeOf("");
    expect(renderNode(store, DataFactory.namedNode("https://ex.example/#truck"), COORD)).toBe("https://ex.example/#truck");
    expect(renderNode(store, DataFactory.literal('say "hi"'), COORD)).toBe(JSON.stringify('say "hi"'));
  });

  it("a named blank node shows its name, by the best name property first (schema:name before rdfs:label before mfr:actionName)", () => {
    const store = storeOf(`<${AGENT}> { _:b1 rdfs:label "label" ; mfr:actionName "action" ; schema:name "Truck 1" . _:b2 rdfs:label "the depot" ; mfr:actionName "x" . _:b3 schemas:name "https name" . _:b4 mfr:actionName "drive" . }`);
    expect(renderNode(store, blank("b1"), COORD)).toBe('_:b1 "Truck 1"');
    expect(renderNode(store, blank("b2"), COORD)).toBe('_:b2 "the depot"');
    expect(renderNode(store, blank("b3"), COORD)).toBe('_:b3 "https name"');
    expect(renderNode(store, blank("b4"), COORD)).toBe('_:b4 "drive"');
  });

  it("an unnamed blank node shows what an agent hangs it on, never the coordinator's own link to it", () => {
    const store = storeOf(`<${COORD}> { <https://ex.example/#model> mfr:hasItem _:e . <https://ex.example/#model> mfr:hasItem _:f . } <${AGENT}> { ex:drive mfr:hasEffect _:e . _:g mfr:hasPrecondition _:e2 . _:f a mfr:Goal . }`);
    expect(renderNode(store, blank("e"), COORD)).toBe("_:e (mfr:hasEffect of <https://ex.example/#drive>)");
    expect(renderNode(store, blank("e2"), COORD)).toBe("_:e2 (mfr:hasPrecondition of _:g)");
    expect(renderNode(store, blank("f"), COORD)).toBe("_:f (a mfr:Goal)");
  });

  it("a blank node nothing is known of is its id alone", () => {
    expect(renderNode(storeOf(""), blank("lonely"), COORD)).toBe("_:lonely");
  });
});

describe("compactIri: a prefixed name where one of our prefixes fits, else the IRI in brackets", () => {
  it("compacts our namespaces, both schema.org ones as schema:", () => {
    expect(compactIri(`${MFR}Action`)).toBe("mfr:Action");
    expect(compactIri(`${SCHEMA_HTTP}name`)).toBe("schema:name");
    expect(compactIri(`${SCHEMA_HTTPS}name`)).toBe("schema:name");
    expect(compactIri(`${RDF}type`)).toBe("rdf:type");
    expect(compactIri("https://ex.example/#x")).toBe("<https://ex.example/#x>");
    expect(compactIri(`${MFR}a/b`)).toBe(`<${MFR}a/b>`);
    expect(compactIri(MFR)).toBe(`<${MFR}>`);
  });

  it("a prefixed name is given only when the local part is a plain name, and expands back to the IRI (property)", () => {
    const namespaces: Record<string, string> = { mfr: MFR, rdfs: RDFS, rdf: RDF, schema: SCHEMA_HTTP };
    fc.assert(
      fc.property(fc.constantFrom(MFR, RDFS, RDF, SCHEMA_HTTP, SCHEMA_HTTPS, "https://ex.example/#"), fc.string({ maxLength: 10 }), (ns, local) => {
        const iri = ns + local;
        const out = compactIri(iri);
        if (out.startsWith("<")) {
          expect(out).toBe(`<${iri}>`);
          return;
        }
        const [prefix, name] = [out.slice(0, out.indexOf(":")), out.slice(out.indexOf(":") + 1)];
        expect(name).toMatch(/^[A-Za-z_][\w-]*$/);
        expect([namespaces[prefix] + name, prefix === "schema" ? SCHEMA_HTTPS + name : undefined]).toContain(iri);
      }),
    );
  });
});

describe("renderPath: a SHACL property path in SPARQL-like notation", () => {
  const shapes = new Store(
    new Parser({ blankNodePrefix: "" }).parse(
      `${PRE}
      ex:s1 sh:path [ sh:alternativePath ( schema:name rdfs:label schema:name ) ] .
      ex:s2 sh:path [ sh:inversePath mfr:hasEntity ] .
      ex:s3 sh:path ( mfr:hasAction [ sh:zeroOrMorePath mfr:next ] [ sh:oneOrMorePath ex:p ] [ sh:zeroOrOnePath [ sh:inversePath ex:q ] ] ) .
      ex:s4 sh:path [ ex:unknown ex:thing ] .`,
    ),
  );
  const pathOf = (shape: string) => shapes.getObjects(DataFactory.namedNode(`https://ex.example/#${shape}`), DataFactory.namedNode(`${SH}path`), null)[0]!;

  it("reads alternatives (each once), inverses, sequences and repetitions; anything else is said to be complex", () => {
    expect(renderPath(shapes, DataFactory.namedNode(`${MFR}hasGoal`))).toBe("mfr:hasGoal");
    expect(renderPath(shapes, pathOf("s1"))).toBe("schema:name | rdfs:label");
    expect(renderPath(shapes, pathOf("s2"))).toBe("^mfr:hasEntity");
    expect(renderPath(shapes, pathOf("s3"))).toBe("mfr:hasAction/mfr:next*/<https://ex.example/#p>+/^<https://ex.example/#q>?");
    expect(renderPath(shapes, pathOf("s4"))).toBe("(a complex path)");
  });

  it("a list that loops back on itself ends (each node read once)", () => {
    const looped = new Store(new Parser({ blankNodePrefix: "" }).parse(`${PRE} _:l1 <${RDF}first> mfr:a ; <${RDF}rest> _:l2 . _:l2 <${RDF}first> mfr:b ; <${RDF}rest> _:l1 .`));
    expect(renderPath(looped, blank("l1"))).toBe("mfr:a/mfr:b");
  });
});

describe("fallbackMessage: a result without sh:message still reads as a line about its path", () => {
  it("says what the known constraint components mean", () => {
    expect(fallbackMessage(`${SH}MinCountConstraintComponent`, "schema:name")).toBe("schema:name is missing");
    expect(fallbackMessage(`${SH}MaxCountConstraintComponent`, "mfr:x")).toBe("mfr:x has too many values");
    expect(fallbackMessage(`${SH}DatatypeConstraintComponent`, undefined)).toBe("this node has a value of the wrong datatype");
    expect(fallbackMessage(`${SH}PatternConstraintComponent`, "p")).toBe(fallbackMessage(`${SH}MinLengthConstraintComponent`, "p"));
    expect(fallbackMessage(`${SH}SparqlConstraintComponent`, "p")).toBe("p fails Sparql");
    expect(fallbackMessage("https://ex.example/#MyComponent", undefined)).toBe("this node fails https://ex.example/#MyComponent");
  });

  it("is never empty and always names the path, or 'this node' without one (property)", () => {
    const known = ["MinCount", "MaxCount", "Datatype", "Class", "NodeKind", "Or", "Pattern", "MinLength", "QualifiedMinCount", "In", "HasValue"].map((c) => `${SH}${c}ConstraintComponent`);
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...known), fc.string()), fc.option(fc.string({ minLength: 1 }), { nil: undefined }), (component, path) => {
        const text = fallbackMessage(component, path);
        expect(text.startsWith(path ?? "this node")).toBe(true);
        expect(text.length).toBeGreaterThan((path ?? "this node").length + 1);
      }),
    );
  });
});
