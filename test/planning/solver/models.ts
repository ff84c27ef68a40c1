/** Small formal models for the planner's tests, written as the Turtle agents send. */
import { expect } from "vitest";
import type { FormalModel } from "../../../src/formal/model.js";
import { modelOf } from "../../formal/helpers.js";

export interface ActionSpec {
  name: string;
  params?: string[];
  pre?: string[];
  eff: string[];
  /** A free-text precondition: keeps the action out of simulation and planning. */
  informal?: string;
}

export interface ModelSpec {
  /** `symbol: Type` pairs; a bare symbol is untyped. */
  objects: string[];
  init?: string;
  actions: ActionSpec[];
  constraints?: string[];
  goals?: string[];
}

const lit = (text: string): string => JSON.stringify(text);

export function turtleOf(spec: ModelSpec): string {
  const lines: string[] = [];
  for (const o of spec.objects) {
    const [symbol, type] = o.split(":").map((s) => s.trim());
    lines.push(`<#${symbol}> a mfr:Entity${type === undefined ? "" : ` ; mfr:entityType ${lit(type)}`} .`);
  }
  if (spec.init !== undefined) lines.push(`<#problem> mfr:initialState ${lit(spec.init)} .`);
  for (const [i, a] of spec.actions.entries()) {
    const parts = [`<#action${i}> a mfr:Action ; mfr:actionName ${lit(a.name)}`];
    if ((a.params ?? []).length > 0) parts.push(`mfr:hasParameter ( ${(a.params ?? []).map(lit).join(" ")} )`);
    for (const p of a.pre ?? []) parts.push(`mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression ${lit(p)} ]`);
    if (a.informal !== undefined) parts.push(`mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression ${lit(a.informal)} ]`);
    for (const e of a.eff) parts.push(`mfr:hasEffect [ a mfr:Effect ; mfr:expression ${lit(e)} ]`);
    lines.push(`${parts.join(" ;\n  ")} .`);
  }
  for (const [i, c] of (spec.constraints ?? []).entries()) lines.push(`<#constraint${i}> a mfr:Constraint ; mfr:constraintExpression ${lit(c)} .`);
  for (const [i, g] of (spec.goals ?? []).entries()) lines.push(`<#goal${i}> a mfr:Goal ; mfr:expression ${lit(g)} .`);
  return lines.join("\n");
}

/** The formal model of a spec; every literal must parse. */
export function modelFrom(spec: ModelSpec): FormalModel {
  const model = modelOf(turtleOf(spec));
  expect(model.findings).toEqual([]);
  return model;
}

/** Tanks: `when` effects, numbers, a fluent with no initial value, short-circuit reads of it. */
export const TANKS: ModelSpec = {
  objects: ["t1: Tank", "t2: Tank", "pump: Pump"],
  init: "(= (level t1) 0) (= (cap t1) 3) (= (cap t2) 2)",
  actions: [
    {
      name: "fill",
      params: ["?t - Tank"],
      // (level t2) has no value at first: the `or` must not reach it while t2 is not full.
      pre: ["(or (not (full ?t)) (< (level ?t) (cap ?t)))"],
      eff: ["(and (increase (level ?t) 1) (when (>= (+ (level ?t) 1) (cap ?t)) (full ?t)))"],
    },
    { name: "reset", params: ["?t - Tank"], eff: ["(and (assign (level ?t) 0) (not (full ?t)))"] },
    {
      name: "drain",
      params: ["?a - Tank", "?b - Tank"],
      pre: ["(not (= ?a ?b))", "(> (level ?a) 0)"],
      eff: ["(and (decrease (level ?a) 1) (increase (level ?b) 1) (not (full ?a)))"],
    },
  ],
  constraints: ["(imply (full t2) (<= (level t2) 2))", "(<= (level t1) 3)"],
  goals: ["(and (full t1) (>= (level t2) 1))"],
};

/** Rooms: exists/forall preconditions, forall and `when` effects, `=`, division (Real numbers). */
export const ROOMS: ModelSpec = {
  objects: ["r1: Room", "r2: Room", "r3: Room", "bot: Robot"],
  init: "(at bot r1) (door r1 r2) (door r2 r1) (door r2 r3) (door r3 r2) (dirty r2) (dirty r3) (= (energy) 3)",
  actions: [
    {
      name: "move",
      params: ["?from - Room", "?to - Room"],
      pre: ["(and (at bot ?from) (door ?from ?to) (not (= ?from ?to)) (> (energy) 0))"],
      eff: ["(and (not (at bot ?from)) (at bot ?to) (decrease (energy) 1))"],
    },
    {
      name: "clean",
      params: ["?r - Room"],
      pre: ["(and (at bot ?r) (dirty ?r))"],
      eff: ["(and (not (dirty ?r)) (assign (score) (/ (energy) 2)))"],
    },
    {
      name: "recharge",
      pre: ["(exists (?r - Room) (and (at bot ?r) (not (dirty ?r))))"],
      eff: ["(assign (energy) (* 2 2))"],
    },
    {
      name: "seal",
      pre: ["(forall (?r - Room) (not (dirty ?r)))"],
      eff: ["(forall (?r - Room) (when (at bot ?r) (safe ?r)))"],
    },
  ],
  constraints: ["(>= (energy) 0)"],
  goals: ["(forall (?r - Room) (not (dirty ?r)))", "(exists (?r - Room) (safe ?r))", "(> (score) 0.5)"],
};

/** Lamps: atoms changed only under `when`, a forall effect, a two-predicate encoding of one switch. */
export const LAMPS: ModelSpec = {
  objects: ["l1: Lamp", "l2: Lamp", "l3: Lamp"],
  init: "(off l1) (off l2) (on l3)",
  actions: [
    { name: "toggle", params: ["?l - Lamp"], eff: ["(and (when (on ?l) (and (not (on ?l)) (off ?l))) (when (off ?l) (and (not (off ?l)) (on ?l))))"] },
    { name: "all-off", eff: ["(forall (?l - Lamp) (and (not (on ?l)) (off ?l)))"] },
    { name: "chain", params: ["?a - Lamp", "?b - Lamp"], pre: ["(and (on ?a) (not (= ?a ?b)))"], eff: ["(when (off ?b) (and (on ?b) (not (off ?b))))"] },
  ],
  constraints: ["(not (and (on l1) (on l2) (on l3)))"],
  goals: ["(and (on l1) (on l2) (off l3))"],
};

/**
 * Scales: `scale-up` and `scale-down` (Real numbers), a fluent with no initial value that only
 * an assign gives one, and a divisor that starts at zero, so scaling down too early fails.
 */
export const SCALES: ModelSpec = {
  objects: ["x: Thing"],
  init: "(= (n) 6) (= (d) 0)",
  actions: [
    { name: "bump", eff: ["(increase (d) 1)"] },
    { name: "split", eff: ["(scale-down (n) (d))"] },
    { name: "grow", pre: ["(< (n) 100)"], eff: ["(scale-up (n) (+ (d) 1))"] },
    { name: "start", eff: ["(assign (m) 1)"] },
    { name: "triple", eff: ["(scale-up (m) 3)"] },
  ],
  constraints: ["(>= (n) 0)"],
  goals: ["(and (< (n) 4) (>= (m) 3))"],
};
