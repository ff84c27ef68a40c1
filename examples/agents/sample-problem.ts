/**
 * EXAMPLE MATERIAL: the demo's sample problem and what the example agents say about it.
 * Two agents model a small delivery problem; the planner's first contribution has a
 * Goal that states nothing (a SHACL Violation), which it fixes when asked.
 */
import type { ExampleAgentScript } from "./example-agent.js";

export const SAMPLE_PROBLEM = "Deliver 8 crates from the depot to the warehouse with one truck that carries at most 10 crates.";

const PREFIXES = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix schema: <http://schema.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
`;

const MODELER = `${PREFIXES}
<#truck> a mfr:Entity ; mfr:entityType "Vehicle" ; schema:name "Truck 1" .
<#depot> a mfr:Entity ; mfr:entityType "Location" ; schema:name "Depot"@en .
<#warehouse> a mfr:Entity ; mfr:entityType "Location" ; schema:name "Warehouse"@en .
<#crates> a mfr:Entity ; mfr:entityType "Cargo" ; rdfs:label "8 crates" .
<#truckAt> a mfr:StateVariable ; rdfs:label "where the truck is" .
<#load> a mfr:Action ; mfr:actionName "load" ; mfr:hasParameter <#truck>, <#crates> ;
  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "at(truck, depot) and at(crates, depot)" ] ;
  mfr:hasEffect [ a mfr:Effect ; mfr:expression "in(crates, truck)" ] .
<#drive> a mfr:Action ; mfr:actionName "drive" ; mfr:hasParameter <#truck> ;
  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "at(truck, depot)" ] ;
  mfr:hasEffect [ a mfr:Effect ; mfr:expression "at(truck, warehouse)" ] .
<#unload> a mfr:Action ; mfr:actionName "unload" ; mfr:hasParameter <#truck>, <#crates> ;
  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "in(crates, truck) and at(truck, warehouse)" ] ;
  mfr:hasEffect [ a mfr:Effect ; mfr:expression "at(crates, warehouse)" ] .
`;

const PLANNER_CONSTRAINTS = `${PREFIXES}
<#capacity> a mfr:Constraint ; mfr:constraintType "capacity" ; mfr:appliesTo <#truck> ;
  mfr:constraintExpression "load(truck) <= 10" .
<#oneTruck> a mfr:Constraint ; mfr:constraintType "resource" ; mfr:appliesTo "problem" ;
  rdfs:comment "Only one truck is available." .
`;

/** First round: the Goal says nothing about what must be true. */
const PLANNER_ROUND_1 = `${PLANNER_CONSTRAINTS}<#delivered> a mfr:Goal .
`;

const PLANNER_FIXED = `${PLANNER_CONSTRAINTS}<#delivered> a mfr:Goal ; rdfs:label "crates delivered" ;
  mfr:expression "at(crates, warehouse)" .
`;

export const MODELER_SCRIPT: ExampleAgentScript = {
  contribution: (round) => (round === 1 ? MODELER : undefined),
  solution: (model) =>
    model.includes("unload")
      ? {
          success: true,
          message: "Load all 8 crates, drive once, unload: capacity allows a single trip.",
          plan: ["load(truck, crates) at depot", "drive(truck, depot, warehouse)", "unload(truck, crates) at warehouse"],
          bindings: ["truck = Truck 1", "crates = 8 (capacity 10)"],
          satisfiesGoals: [{ goal: "crates delivered", satisfied: true }],
        }
      : { success: false, message: "The model has no unload action.", executionError: "no unload action" },
};

export const PLANNER_SCRIPT: ExampleAgentScript = {
  contribution: (round) => (round === 1 ? PLANNER_ROUND_1 : PLANNER_FIXED),
  solution: () => ({
    success: true,
    message: "Two trips of 4 crates each.",
    plan: ["load 4", "drive", "unload 4", "drive back", "load 4", "drive", "unload 4"],
    bindings: ["truck = Truck 1"],
    satisfiesGoals: [{ goal: "crates delivered", satisfied: true }],
  }),
};
