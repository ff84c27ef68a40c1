/**
 * A generated MFR model of about N triples, contributed by five agents the way a real
 * session splits the work (entity discovery, state and initial state, actions, constraints,
 * goals), for the pipeline benchmark.
 *
 * The model is a logistics world cut into "districts" (one per unit): every agent writes
 * its part of each district, so the contributions refer to one another's nodes. It uses
 * what real contributions use: relative IRIs against the session base, plain, language-tagged
 * and integer literals, schema:name and rdfs:label, anonymous (`[ … ]`) and labelled (`_:x`)
 * blank nodes for preconditions and effects, parameter lists both as RDF collections and as
 * repeated literals, formal (PDDL-subset) expressions that all parse, free-text comments,
 * and some triples stated by two agents.
 *
 * A fixed handful of deliberate defects (independent of N) gives validation findings of each
 * severity, on IRIs and on a blank node, with and without a value: see DEFECTS.
 *
 * Deterministic: the same (N, seed) gives the same text.
 */
import { seededRandom } from "../verification/prng.js";

export const AGENTS = ["scout", "modeller", "planner", "auditor", "strategist"] as const;
export type AgentName = (typeof AGENTS)[number];

/** What the defects should produce (for the reader; the benchmark compares engines, not this list). */
export const DEFECTS = [
  "scout: an entity without mfr:entityType (Violation, EntityType)",
  "scout: an entity whose schema:name is an integer (Violation, EntityName qualifiedMinCount)",
  "modeller: a state variable without a name (Info, StateVariableName)",
  "planner: an action with two mfr:actionName values (Violation, ActionNameUnique)",
  "planner: a precondition (blank node) whose mfr:expression is empty (Violation, pattern \\S, with a value)",
  "planner: an action without mfr:hasEffect (Warning, ActionHasEffect)",
  "auditor: a constraint without mfr:appliesTo (Violation, ConstraintAppliesTo)",
  "strategist: a goal with nothing but its type (Violation, GoalStatement)",
] as const;

const PREFIXES = [
  "@prefix mfr: <http://purl.org/stuff/mfr/> .",
  "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
  "@prefix schema: <http://schema.org/> .",
  "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
  "",
].join("\n");

const VEHICLE_TYPES = ["Truck", "Van", "Drone", "Barge"];
const PLACE_TYPES = ["Depot", "Warehouse", "Harbour", "Store"];
const CONSTRAINT_TYPES = ["capacity", "safety", "invariant", "temporal"];

interface Writer {
  lines: string[];
  triples: number;
}

/** One statement block and how many triples it holds (counted by hand, checked by the bench). */
function emit(w: Writer, text: string, triples: number): void {
  w.lines.push(text);
  w.triples += triples;
}

export interface RealisticModel {
  /** Contribution text per agent, in AGENTS order. */
  contributions: { agent: AgentName; turtle: string; triples: number }[];
  /** Triples as written (duplicates across agents counted in each). */
  writtenTriples: number;
  districts: number;
}

/** Triples one district costs, summed over the agents (measured; used to pick the district count). */
const TRIPLES_PER_DISTRICT = 37.3;

/**
 * `defects: false` leaves the DEFECTS out, for a model that conforms (a session that reaches
 * its SolutionRequest without fix rounds, as bench/stalls.ts needs).
 */
export function realisticModel(totalTriples: number, seed = 20260615, options: { defects?: boolean } = {}): RealisticModel {
  const districts = Math.max(8, Math.round(totalTriples / TRIPLES_PER_DISTRICT));
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const writers = new Map<AgentName, Writer>(AGENTS.map((a) => [a, { lines: [PREFIXES], triples: 0 }]));
  const w = (agent: AgentName): Writer => writers.get(agent) as Writer;
  // Where the defects go: fixed districts spread over the model, chosen by the seed.
  const at = (k: number): number => options.defects === false ? -1 : Math.floor((districts * (k + 1)) / (DEFECTS.length + 2)) + Math.floor(random() * 3);
  const defect = { untyped: at(0), badName: at(1), namelessVariable: at(2), twoNames: at(3), emptyPrecondition: at(4), noEffect: at(5), noAppliesTo: at(6), emptyGoal: at(7) };

  for (let d = 0; d < districts; d++) {
    const vehicle = `v${d}`;
    const place = `p${d}`;
    const parcel = `parcel${d}`;
    const vehicleType = pick(VEHICLE_TYPES);
    const placeType = pick(PLACE_TYPES);

    // scout: three entities (a vehicle, a place, a parcel), names in several forms.
    const vehicleName = random() < 0.5 ? `schema:name "${vehicleType} ${d}"` : `rdfs:label "${vehicleType.toLowerCase()} ${d}"@en`;
    if (d === defect.untyped) emit(w("scout"), `<#${vehicle}> a mfr:Entity ; ${vehicleName} .`, 2);
    else emit(w("scout"), `<#${vehicle}> a mfr:Entity ; mfr:entityType "${vehicleType}" ; ${vehicleName} .`, 3);
    if (d === defect.badName) emit(w("scout"), `<#${place}> a mfr:Entity ; mfr:entityType "${placeType}" ; schema:name ${d} .`, 3);
    else emit(w("scout"), `<#${place}> a mfr:Entity ; mfr:entityType "${placeType}" ; schema:name "${placeType} ${d}"@en ; rdfs:comment "a ${placeType.toLowerCase()} in district ${d}" .`, 4);
    emit(w("scout"), `<#${parcel}> a mfr:Entity ; mfr:entityType "Parcel" ; rdfs:label "parcel ${d}" ; mfr:symbol "${parcel}" .`, 4);

    // modeller: a state variable and the district's initial state.
    if (d === defect.namelessVariable) emit(w("modeller"), `<#load${d}> a mfr:StateVariable ; mfr:expression "(load ${vehicle})" .`, 2);
    else emit(w("modeller"), `<#load${d}> a mfr:StateVariable ; rdfs:label "load of ${vehicle}" ; mfr:expression "(load ${vehicle})" .`, 3);
    emit(w("modeller"), `<#start${d}> mfr:initialState "(at ${vehicle} ${place}) (at ${parcel} ${place}) (= (load ${vehicle}) 0)" ; rdfs:comment "district ${d} at dawn" .`, 2);

    // planner: an action with a typed parameter list, a precondition and an effect.
    const action = `deliver${d}`;
    const names = d === defect.twoNames ? `mfr:actionName "deliver-${d}" , "drop-off-${d}"` : `mfr:actionName "deliver-${d}"`;
    const nameTriples = d === defect.twoNames ? 2 : 1;
    const asList = random() < 0.6;
    const parameters = asList
      ? `mfr:hasParameter ( "?v - ${vehicleType.toLowerCase()}" "?x - parcel" "?to - ${placeType.toLowerCase()}" )`
      : `mfr:hasParameter "?v - ${vehicleType.toLowerCase()}" , "?x - parcel" , "?to - ${placeType.toLowerCase()}"`;
    const parameterTriples = asList ? 1 + 3 * 2 : 3;
    const preText = d === defect.emptyPrecondition ? "" : "(and (at ?v ?to) (in ?x ?v) (< (load ?v) 10))";
    const effText = "(and (at ?x ?to) (not (in ?x ?v)) (decrease (load ?v) 1))";
    const labelled = random() < 0.3;
    const pre = labelled ? `_:pre${d}` : `[ a mfr:Precondition ; mfr:expression "${preText}" ]`;
    const eff = labelled ? `_:eff${d}` : `[ a mfr:Effect ; mfr:expression "${effText}" ]`;
    const effect = d === defect.noEffect ? "" : ` ;\n  mfr:hasEffect ${eff}`;
    emit(w("planner"), `<#${action}> a mfr:Action ; ${names} ;\n  ${parameters} ;\n  mfr:hasPrecondition ${pre}${effect} .`, 1 + nameTriples + parameterTriples + 1 + (d === defect.noEffect ? 0 : 1));
    const blankTriples = 2 + (d === defect.noEffect ? 0 : 2);
    if (labelled) {
      emit(w("planner"), `_:pre${d} a mfr:Precondition ; mfr:expression "${preText}" .`, 0);
      if (d !== defect.noEffect) emit(w("planner"), `_:eff${d} a mfr:Effect ; mfr:expression "${effText}" .`, 0);
    }
    w("planner").triples += blankTriples;

    // auditor: a capacity-like constraint on the vehicle, sometimes with a comment too.
    const appliesTo = d === defect.noAppliesTo ? "" : ` mfr:appliesTo <#${vehicle}> ;`;
    const comment = random() < 0.3 ? ` rdfs:comment "never more than ten parcels in ${vehicle}" ;` : "";
    emit(
      w("auditor"),
      `<#cap${d}> a mfr:Constraint ; mfr:constraintType "${pick(CONSTRAINT_TYPES)}" ;${appliesTo}${comment}\n  mfr:constraintExpression "(<= (load ${vehicle}) 10)" .`,
      3 + (appliesTo === "" ? 0 : 1) + (comment === "" ? 0 : 1),
    );

    // strategist: a goal, stated formally and in words.
    if (d === defect.emptyGoal) emit(w("strategist"), `<#goal${d}> a mfr:Goal .`, 1);
    else emit(w("strategist"), `<#goal${d}> a mfr:Goal ; rdfs:label "parcel ${d} delivered" ; mfr:expression "(at ${parcel} ${place})" .`, 3);
    // The strategist also restates the parcel it aims at (the same triples as the scout's):
    // the merge keeps both copies, validation and counting see one fact.
    if (d % 4 === 0) emit(w("strategist"), `<#${parcel}> a mfr:Entity ; mfr:entityType "Parcel" .`, 2);
  }
  const contributions = AGENTS.map((agent) => ({ agent, turtle: w(agent).lines.join("\n") + "\n", triples: w(agent).triples }));
  return { contributions, writtenTriples: contributions.reduce((sum, c) => sum + c.triples, 0), districts };
}
