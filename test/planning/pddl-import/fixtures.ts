/**
 * Small PDDL texts for the import tests: one domain and problem that use every construct the
 * import carries, and helpers to import and compare models without their node names.
 */
import type { FormalModel } from "../../../src/formal/model.js";
import { importPddl } from "../../../src/planning/pddl-import/index.js";
import type { PddlImportOptions } from "../../../src/planning/pddl-import/index.js";

/** A domain with type hierarchy, either, constants, negative and disjunctive preconditions, imply, quantifiers, conditional and numeric effects, constraints. */
export const RICH_DOMAIN = `; every construct the import carries
(define (domain Courier)
  (:requirements :strips :typing :negative-preconditions :disjunctive-preconditions :equality
                 :quantified-preconditions :conditional-effects :numeric-fluents :constraints :action-costs)
  (:types vehicle parcel - thing
          truck - vehicle
          place)
  (:constants HQ - place)
  (:predicates (at ?x - (either vehicle parcel) ?p - place) (in ?p - parcel ?v - vehicle)
               (road ?a ?b - place) (broken ?v))
  (:functions (fuel ?v - vehicle) - number (total-cost) - number)
  (:constraints (forall (?v - vehicle) (always (>= (fuel ?v) 0))))
  (:action drive
    :parameters (?v - vehicle ?from ?to - place)
    :precondition (and (at ?v ?from) (road ?from ?to) (not (= ?from ?to)) (not (broken ?v))
                       (or (>= (fuel ?v) 1) (= ?to HQ)))
    :effect (and (not (at ?v ?from)) (at ?v ?to) (decrease (fuel ?v) 1) (increase (total-cost) 1)))
  (:action load
    :parameters (?p - parcel ?v - vehicle ?l - place)
    :precondition (and (at ?p ?l) (at ?v ?l) (imply (broken ?v) (= ?l HQ)))
    :effect (and (in ?p ?v) (not (at ?p ?l))))
  (:action unload-all
    :parameters (?v - vehicle ?l - place)
    :precondition (and (at ?v ?l) (exists (?p - parcel) (in ?p ?v)))
    :effect (forall (?p - parcel) (when (in ?p ?v) (and (at ?p ?l) (not (in ?p ?v))))))
  (:action count-things
    :parameters (?x - (either truck parcel))
    :effect (increase (total-cost) 0))
  (:action wait))
`;

/** A problem for RICH_DOMAIN: typed, untyped and twice-declared objects, a metric, a constraint. */
export const RICH_PROBLEM = `(define (problem deliver-2)
  (:domain courier)
  (:objects t1 - truck p1 p2 - parcel depot shop - place spare p2 - thing)
  (:init (at t1 depot) (at p1 depot) (at p2 shop) (road depot shop) (road shop depot) (road shop hq)
         (= (fuel t1) 3) (= (total-cost) 0) (not (broken t1)))
  (:goal (and (at p1 shop) (at t1 depot)))
  (:constraints (always (not (broken t1))))
  (:metric minimize (total-cost)))
`;

/** Imports and fails the test with the refusal when the import refuses. */
export function imported(domain: string, problem: string, options: PddlImportOptions = {}): Extract<ReturnType<typeof importPddl>, { ok: true }> {
  const result = importPddl(domain, problem, options);
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.refusal)}`);
  return result;
}

/** A model without node names, findings order or anything else that names RDF nodes: what two imports of one task share. */
export function withoutNodes(model: FormalModel): unknown {
  return {
    objects: model.objects.map((o) => ({ symbol: o.symbol, types: [...o.types].sort() })),
    actions: model.actions.map((a) => ({ name: a.name, parameters: a.parameters, preconditions: a.preconditions, effects: a.effects, informal: a.informal })),
    initialState: model.initialState,
    constraints: model.constraints.map((c) => c.condition),
    goals: model.goals.map((g) => g.condition),
  };
}
