/**
 * EXAMPLE MATERIAL: the demo's sample problem and what the example agents say about it.
 * Two agents model a small delivery problem formally (docs/protocol.md, "Formal models and verified
 * solutions"). The planner's first contribution has a Goal that states nothing (a SHACL
 * Violation), which it fixes when asked. Its first plan is plausible but breaks the truck's
 * capacity; the coordinator's check finds that, and in the repair round the planner sends a
 * plan that works. The reference solver (`mfr-coordinator solver`) finds its own plan.
 */
import type { ExampleAgentScript } from "./example-agent.js";

export const SAMPLE_PROBLEM = "Deliver 3 crates from the depot to the warehouse with one truck that carries at most 2 crates at a time.";

const PREFIXES = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix schema: <http://schema.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
`;

const MODELER = `${PREFIXES}
<#truck1> a mfr:Entity ; mfr:entityType "Truck" ; schema:name "Truck 1" .
<#depot> a mfr:Entity ; mfr:entityType "Location" ; schema:name "Depot"@en .
<#warehouse> a mfr:Entity ; mfr:entityType "Location" ; schema:name "Warehouse"@en .
<#c1> a mfr:Entity ; mfr:entityType "Crate" ; rdfs:label "crate 1" .
<#c2> a mfr:Entity ; mfr:entityType "Crate" ; rdfs:label "crate 2" .
<#c3> a mfr:Entity ; mfr:entityType "Crate" ; rdfs:label "crate 3" .
<#load> a mfr:StateVariable ; rdfs:label "crates on the truck" ; mfr:expression "(load truck1)" ;
  mfr:initialState "(= (load truck1) 0) (= (capacity truck1) 2)" .
<#start> mfr:initialState "(at truck1 depot) (at c1 depot) (at c2 depot) (at c3 depot)" .
<#loadCrate> a mfr:Action ; mfr:actionName "load" ; mfr:hasParameter ( "?c - Crate" "?t - Truck" "?l - Location" ) ;
  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(and (at ?c ?l) (at ?t ?l))" ] ,
    [ a mfr:Precondition ; mfr:expression "(< (load ?t) (capacity ?t))" ] ;
  mfr:hasEffect [ a mfr:Effect ; mfr:expression "(and (in ?c ?t) (not (at ?c ?l)) (increase (load ?t) 1))" ] .
<#drive> a mfr:Action ; mfr:actionName "drive" ; mfr:hasParameter ( "?t - Truck" "?from - Location" "?to - Location" ) ;
  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(and (at ?t ?from) (not (= ?from ?to)))" ] ;
  mfr:hasEffect [ a mfr:Effect ; mfr:expression "(and (at ?t ?to) (not (at ?t ?from)))" ] .
<#unloadCrate> a mfr:Action ; mfr:actionName "unload" ; mfr:hasParameter ( "?c - Crate" "?t - Truck" "?l - Location" ) ;
  mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(and (in ?c ?t) (at ?t ?l))" ] ;
  mfr:hasEffect [ a mfr:Effect ; mfr:expression "(and (at ?c ?l) (not (in ?c ?t)) (decrease (load ?t) 1))" ] .
`;

const PLANNER_CONSTRAINTS = `${PREFIXES}
<#capacity> a mfr:Constraint ; mfr:constraintType "capacity" ; mfr:appliesTo <#truck1> ;
  mfr:constraintExpression "(<= (load truck1) (capacity truck1))" .
<#oneTruck> a mfr:Constraint ; mfr:constraintType "resource" ; mfr:appliesTo "problem" ;
  rdfs:comment "Only one truck is available." .
`;

/** First round: the Goal says nothing about what must be true. */
const PLANNER_ROUND_1 = `${PLANNER_CONSTRAINTS}<#delivered> a mfr:Goal .
`;

const PLANNER_FIXED = `${PLANNER_CONSTRAINTS}<#delivered> a mfr:Goal ; rdfs:label "crates delivered" ;
  mfr:expression "(and (at c1 warehouse) (at c2 warehouse) (at c3 warehouse))" .
`;

/** Plausible, and wrong: the third crate does not fit (the check fails at step 3). */
const ONE_TRIP = ["load(c1, truck1, depot)", "load(c2, truck1, depot)", "load(c3, truck1, depot)", "drive(truck1, depot, warehouse)", "unload(c1, truck1, warehouse)", "unload(c2, truck1, warehouse)", "unload(c3, truck1, warehouse)"];

/** The repair: two trips. */
const TWO_TRIPS = [
  "load(c1, truck1, depot)",
  "load(c2, truck1, depot)",
  "drive(truck1, depot, warehouse)",
  "unload(c1, truck1, warehouse)",
  "unload(c2, truck1, warehouse)",
  "drive(truck1, warehouse, depot)",
  "load(c3, truck1, depot)",
  "drive(truck1, depot, warehouse)",
  "unload(c3, truck1, warehouse)",
];

export const MODELER_SCRIPT: ExampleAgentScript = {
  contribution: (round) => (round === 1 ? MODELER : undefined),
  // The modeler models and has no plan to propose: it says nothing (a proposal without a plan
  // would be a line of noise in the room, and would still count as a proposal).
  solution: () => undefined,
};

export const PLANNER_SCRIPT: ExampleAgentScript = {
  contribution: (round) => (round === 1 ? PLANNER_ROUND_1 : PLANNER_FIXED),
  solution: (_model, round) =>
    round === 1
      ? {
          success: true,
          message: "One trip: load all three crates, drive, unload.",
          plan: ONE_TRIP,
          satisfiesGoals: [{ goal: "crates delivered", satisfied: true }],
        }
      : {
          success: true,
          message: "Two trips: two crates, then the third.",
          plan: TWO_TRIPS,
          satisfiesGoals: [{ goal: "crates delivered", satisfied: true }],
        },
};

/** The sample's sound model (both agents' final contributions) and its plans, for tests. */
export const SAMPLE_CONTRIBUTIONS = { modeler: MODELER, planner: PLANNER_FIXED } as const;
export const SAMPLE_PLANS = { oneTrip: ONE_TRIP, twoTrips: TWO_TRIPS } as const;
