/**
 * The stanza codec reads whatever a server relays: any `<message>` it decodes, or parses,
 * must come back as a DecodedMessage of strings, never as an exception.
 */
import fc from "fast-check";
import { parse } from "ltx";
import { describe, expect, it } from "vitest";
import { decodeMessage, type DecodedMessage } from "../../src/protocol/codec.js";
import { LINGUE, Mode } from "../../src/base/vocab.js";
import { xml, type Element } from "../../src/xmpp/stanza.js";

/** Names the codec looks for, names that are special in JavaScript objects, and any name. */
const elementName = fc.oneof(
  fc.constantFrom("body", "payload", "sessionId", "modelPart", "contributionType", "agentRole", "delay", "__proto__", "constructor", "toString", "hasOwnProperty"),
  fc.string({ minLength: 1, maxLength: 8 }),
);
const namespace = fc.oneof(fc.constant(LINGUE), fc.constant(undefined), fc.constantFrom("jabber:client", "urn:xmpp:delay", "", `${LINGUE} `), fc.string({ maxLength: 10 }));
const attributeName = fc.oneof(fc.constantFrom("xmlns", "mode", "mime", "messageType", "type", "from", "to", "id", "__proto__"), fc.string({ maxLength: 6 }));
/** Attributes a parser gives are strings; elements built in code may carry other values. */
const attributeValue = fc.oneof(fc.constantFrom(...Object.values(Mode), "application/json", "text/turtle"), fc.string(), fc.integer(), fc.boolean(), fc.constant(undefined));
const text = fc.string({ unit: "binary", maxLength: 20 });

function element(name: string, ns: string | undefined, attrs: Record<string, unknown>, children: Array<Element | string>): Element {
  return xml(name, ns === undefined ? attrs : { ...attrs, xmlns: ns }, ...children);
}

const { tree } = fc.letrec<{ tree: Element; node: Element | string }>((tie) => ({
  node: fc.oneof({ depthSize: "small", maxDepth: 4 }, text, tie("tree")),
  tree: fc
    .tuple(elementName, namespace, fc.dictionary(attributeName, attributeValue, { maxKeys: 4 }), fc.array(tie("node"), { maxLength: 4 }))
    .map(([name, ns, attrs, children]) => element(name, ns, attrs, children)),
}));

const message = fc
  .tuple(fc.dictionary(attributeName, attributeValue, { maxKeys: 4 }), fc.array(fc.oneof(tree, text), { maxLength: 6 }))
  .map(([attrs, children]) => xml("message", attrs, ...children));

/** What a DecodedMessage must look like, whatever went in. */
function expectWellFormed(decoded: DecodedMessage): void {
  expect(decoded.body === undefined || typeof decoded.body === "string").toBe(true);
  if (decoded.payload) {
    const { mode, mime, messageType, content } = decoded.payload;
    expect(typeof mode).toBe("string");
    expect(typeof content).toBe("string");
    expect(mime === undefined || typeof mime === "string").toBe(true);
    expect(messageType === undefined || typeof messageType === "string").toBe(true);
  }
  for (const value of Object.values(decoded.siblings)) expect(typeof value).toBe("string");
}

/** Fragments of stanzas, so that random text often parses: tags, entities, CDATA, comments. */
const xmlFragment = fc.oneof(
  fc.constantFrom(
    "<message>",
    "</message>",
    '<message type="groupchat" from="room@conference.example/alice">',
    `<payload xmlns="${LINGUE}" mime="application/json" mode="${Mode.ModelNegotiation}">`,
    `<payload xmlns='${LINGUE}' mode='${Mode.ModelFirstRDF}'>`,
    "</payload>",
    `<sessionId xmlns="${LINGUE}">`,
    "</sessionId>",
    "<body>",
    "</body>",
    "<body/>",
    '<delay xmlns="urn:xmpp:delay" stamp="2024-01-01T00:00:00Z"/>',
    "&amp;",
    "&lt;",
    "&#x1F600;",
    "&#0;",
    "&bogus;",
    "<![CDATA[ <x> ]]>",
    "<!-- c -->",
    "<?pi x?>",
    '"',
    "'",
    "=",
    "<",
    ">",
    "/>",
  ),
  fc.string({ maxLength: 8 }),
);
/** A Lingue child around random fragments, so that the codec's own paths are reached often. */
const linguePart = fc
  .tuple(fc.constantFrom("payload", "sessionId", "modelPart", "body"), fc.constantFrom(`xmlns="${LINGUE}"`, `xmlns="${LINGUE}" mode="${Mode.ModelNegotiation}" messageType="SolutionProposal"`, ""), fc.array(xmlFragment, { maxLength: 4 }))
  .map(([name, attrs, inner]) => `<${name} ${attrs}>${inner.join("")}</${name}>`);
const xmlish = fc.array(fc.oneof(xmlFragment, linguePart), { maxLength: 10 }).map((parts) => `<message>${parts.join("")}</message>`);

/** ltx's parse, or undefined when it refuses the text (a parse error is not the codec's business). */
function parsed(text: string): Element | undefined {
  try {
    return (parse(text) as Element | null) ?? undefined;
  } catch {
    // The server would never relay text that does not parse.
    return undefined;
  }
}

describe("decodeMessage never throws (fuzz)", () => {
  it("on built <message> elements: any attributes, children in and out of the Lingue namespace, text, nesting", () => {
    fc.assert(
      fc.property(message, (stanza) => {
        expectWellFormed(decodeMessage(stanza));
      }),
      { numRuns: 1000 },
    );
  });

  it("finds the first Lingue payload wherever other children stand", () => {
    fc.assert(
      fc.property(message, fc.string(), fc.nat(), (stanza, content, at) => {
        const children = stanza.children.filter((c) => !(typeof c !== "string" && c.name === "payload"));
        const payload = xml("payload", { xmlns: LINGUE, mode: Mode.ModelFirstRDF, mime: "text/turtle" }, content);
        children.splice(at % (children.length + 1), 0, payload);
        const decoded = decodeMessage(xml("message", {}, ...children));
        expect(decoded.payload).toEqual({ mode: Mode.ModelFirstRDF, mime: "text/turtle", messageType: undefined, content });
      }),
      { numRuns: 500 },
    );
  });

  it("on whatever ltx parses from arbitrary text", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), xmlish), (input) => {
        const stanza = parsed(input);
        if (stanza) expectWellFormed(decodeMessage(stanza));
      }),
      { numRuns: 2000 },
    );
  });

  it("on built stanzas serialised, cut and spliced, then parsed again", () => {
    fc.assert(
      fc.property(message, fc.nat(), fc.nat(), xmlFragment, (stanza, cut, at, inserted) => {
        const text = stanza.toString();
        const cutText = text.slice(0, cut % (text.length + 1));
        const position = at % (text.length + 1);
        for (const input of [text, cutText, `${text.slice(0, position)}${inserted}${text.slice(position)}`]) {
          const reparsed = parsed(input);
          if (reparsed) expectWellFormed(decodeMessage(reparsed));
        }
      }),
      { numRuns: 500 },
    );
  });
});
