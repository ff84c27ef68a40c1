/**
 * A large, realistic contribution and its split into parts, as an agent would send it when
 * it does not fit one stanza (docs/protocol.md, "ModelFirstRDF contributions"): entities with a
 * type, a name and a comment, state variables, and every so often an action with a
 * precondition and an effect (blank nodes). Used by the integration test of contributions in
 * parts and by `bench/contribution-parts.ts`.
 */

export const CONTRIBUTION_PREFIXES = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix schema: <http://schema.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
`;

/** Subject blocks (each ends with ".\n") adding up to at most `triples` triples, as close as the blocks allow. */
export function largeContributionStatements(triples: number): { statements: string[]; triples: number } {
  const statements: string[] = [];
  let count = 0;
  const add = (statement: string, n: number): boolean => {
    if (count + n > triples) return false;
    statements.push(statement);
    count += n;
    return true;
  };
  for (let i = 0; ; i++) {
    if (!add(`<#crate-${i}> a mfr:Entity ; mfr:entityType "Crate" ; schema:name "Crate ${i}" ; rdfs:comment "Crate ${i} holds spare parts for line ${i % 17}." .\n`, 4)) break;
    if (i % 4 === 0 && !add(`<#location-of-crate-${i}> a mfr:StateVariable ; rdfs:label "location of crate ${i}" ; rdfs:comment "Where crate ${i} is: the depot, a truck or the warehouse." .\n`, 3)) break;
    if (i % 50 !== 0) continue;
    const action =
      `<#load-crate-${i}> a mfr:Action ; mfr:actionName "load-crate-${i}" ; mfr:hasParameter <#crate-${i}> ;\n` +
      `  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "at(crate-${i}, depot)" ] ;\n` +
      `  mfr:hasEffect [ a mfr:Effect ; mfr:expression "in(crate-${i}, truck)" ] .\n`;
    if (!add(action, 9)) break;
  }
  return { statements, triples: count };
}

/**
 * Complete Turtle documents (each starting with `prefixes`) of at most `maxBytes` UTF-8 bytes
 * each, holding the statements in order.
 */
export function splitIntoParts(prefixes: string, statements: readonly string[], maxBytes: number): string[] {
  const parts: string[] = [];
  let current = prefixes;
  for (const statement of statements) {
    if (current !== prefixes && Buffer.byteLength(current + statement, "utf8") > maxBytes) {
      parts.push(current);
      current = prefixes;
    }
    current += statement;
  }
  if (current !== prefixes) parts.push(current);
  return parts;
}
