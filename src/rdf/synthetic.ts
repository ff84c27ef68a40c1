/**
 * Generated, valid MFR contributions of a chosen size, for benchmarks and load tests
 * (a logistics-flavoured model: trucks, moves, capacity constraints, delivery goals).
 */

/** Triples per generated unit (see `unit` below); sizes are approximate to one unit. */
const TRIPLES_PER_UNIT = 23;

/**
 * A valid Turtle contribution of about `approxTriples` triples (whole units of 23, at least one)
 * whose items' IRIs all contain `agent`, so contributions of different agents do not overlap.
 * Deterministic: same arguments, same text. Not for real sessions.
 */
export function syntheticContribution(agent: string, approxTriples: number): string {
  const units = Math.max(1, Math.round(approxTriples / TRIPLES_PER_UNIT));
  const lines = [
    "@prefix mfr: <http://purl.org/stuff/mfr/> .",
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
    "@prefix schema: <http://schema.org/> .",
    "",
  ];
  for (let i = 0; i < units; i++) lines.push(unit(agent, i));
  return lines.join("\n");
}

function unit(agent: string, i: number): string {
  const id = `${agent}-${i}`;
  return `
<#truck-${id}> a mfr:Entity ; mfr:entityType "Truck" ; schema:name "Truck ${id}" ; rdfs:comment "A truck" .
<#depot-${id}> a mfr:Entity ; mfr:entityType "Location" ; schema:name "Depot ${id}"@en .
<#load-${id}> a mfr:StateVariable ; rdfs:label "load of truck ${id}" .
<#move-${id}> a mfr:Action ; mfr:actionName "move-${id}" ;
  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "at(truck-${id}, from)" ] ;
  mfr:hasEffect [ a mfr:Effect ; mfr:expression "at(truck-${id}, to)" ] .
<#capacity-${id}> a mfr:Constraint ; mfr:constraintType "capacity" ; mfr:appliesTo <#truck-${id}> ;
  mfr:constraintExpression "load(truck-${id}) <= 10" .
<#deliver-${id}> a mfr:Goal ; rdfs:label "deliver ${id}" ; mfr:expression "at(truck-${id}, depot-${id})" .
`;
}
