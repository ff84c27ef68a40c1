/**
 * Second opinions: each benchmark problem's domain written out directly in TypeScript, with
 * nothing from the coordinator's simulator but the plan-step reader. A direct check judges
 * any plan (the first failing step, plan length + 1 for the goal, or undefined when valid),
 * so the benchmark can compare the simulator's verdicts on unlabelled mutated plans too.
 * Each mirrors its bench/problems/<name>.ttl by hand: a change there must be made here.
 */
import { parsePlanStep } from "../../src/formal/plan-step.js";
import { BLOCKSWORLD_SIZES, blocksworldCheck } from "./generate-blocksworld.js";

export type DirectCheck = (plan: readonly string[]) => { step: number; why: string } | undefined;

interface Domain<S> {
  /** Object → type. */
  types: Record<string, string>;
  /** Action → parameter types. */
  signatures: Record<string, string[]>;
  start: () => S;
  /** Applies a well-typed step to `s` in place, or says why it is not applicable (leaving `s` alone). */
  apply: (s: S, action: string, args: string[]) => string | undefined;
  /** Why an invariant fails in `s`, if one does. */
  broken: (s: S) => string | undefined;
  /** Why the goal is not reached in `s`, if it is not. */
  missing: (s: S) => string | undefined;
}

function checker<S>(d: Domain<S>): DirectCheck {
  return (plan) => {
    const s = d.start();
    for (const [i, text] of plan.entries()) {
      const at = i + 1;
      const step = parsePlanStep(text);
      const signature = step === undefined ? undefined : d.signatures[step.action];
      if (step === undefined || signature === undefined) return { step: at, why: `${text} is no step of the domain` };
      if (step.args.length !== signature.length) return { step: at, why: `${step.action} takes ${signature.length} arguments` };
      const wrong = step.args.findIndex((a, k) => d.types[a] !== signature[k]);
      if (wrong >= 0) return { step: at, why: `${step.args[wrong]} is not a ${signature[wrong]}` };
      const refused = d.apply(s, step.action, step.args);
      if (refused !== undefined) return { step: at, why: `${text} is not applicable: ${refused}` };
      const broken = d.broken(s);
      if (broken !== undefined) return { step: at, why: `after ${text}, ${broken}` };
    }
    const missing = d.missing(s);
    return missing === undefined ? undefined : { step: plan.length + 1, why: missing };
  };
}

const typed = (type: string, names: string[]): Record<string, string> => Object.fromEntries(names.map((n) => [n, type]));

// --- clinic.ttl ---------------------------------------------------------------------------
const PATIENTS = ["ann", "bob", "cara", "dan"];
const CLINICIANS = ["lee", "kim"];
const ROOMS: Record<string, number> = { s0900: 1, s1000: 2, s1100: 1 };
const QUALIFIED = new Set(["lee ann", "lee bob", "lee cara", "kim ann", "kim bob", "kim cara", "kim dan"]);
const INTERACT = new Set(["ann bob", "bob ann", "cara dan", "dan cara"]);

interface Clinic {
  /** Patient → slot. */
  booked: Map<string, string>;
  /** "clinician patient slot". */
  sees: Set<string>;
  /** "clinician slot". */
  free: Set<string>;
  bookings: Record<string, number>;
}

const clinic: Domain<Clinic> = {
  types: { ...typed("Patient", PATIENTS), ...typed("Slot", Object.keys(ROOMS)), ...typed("Clinician", CLINICIANS) },
  signatures: { book: ["Patient", "Slot", "Clinician"], cancel: ["Patient", "Slot"] },
  start: () => ({
    booked: new Map(),
    sees: new Set(),
    free: new Set(["lee s0900", "lee s1000", "lee s1100", "kim s1000", "kim s1100"]),
    bookings: { s0900: 0, s1000: 0, s1100: 0 },
  }),
  apply: (s, action, [p, slot, c]) => {
    const [patient, at] = [p as string, slot as string];
    if (action === "book") {
      if (s.booked.has(patient)) return `${patient} is booked already`;
      if (!s.free.has(`${c} ${at}`)) return `${c} is not free at ${at}`;
      if (!QUALIFIED.has(`${c} ${patient}`)) return `${c} is not qualified for ${patient}`;
      s.booked.set(patient, at);
      s.sees.add(`${c} ${patient} ${at}`);
      s.free.delete(`${c} ${at}`);
      s.bookings[at] = (s.bookings[at] ?? 0) + 1;
      return undefined;
    }
    if (s.booked.get(patient) !== at) return `${patient} is not booked at ${at}`;
    s.booked.delete(patient);
    s.bookings[at] = (s.bookings[at] ?? 0) - 1;
    for (const clinician of CLINICIANS) {
      if (s.sees.delete(`${clinician} ${patient} ${at}`)) s.free.add(`${clinician} ${at}`);
    }
    return undefined;
  },
  broken: (s) => {
    for (const [a, sa] of s.booked) for (const [b, sb] of s.booked) if (sa === sb && INTERACT.has(`${a} ${b}`)) return `${a} and ${b} interact and are both at ${sa}`;
    const full = Object.keys(ROOMS).find((slot) => (s.bookings[slot] ?? 0) > (ROOMS[slot] ?? 0));
    return full === undefined ? undefined : `${full} has ${s.bookings[full]} bookings for ${ROOMS[full]} rooms`;
  },
  missing: (s) => {
    const unbooked = PATIENTS.find((p) => !s.booked.has(p));
    return unbooked === undefined ? undefined : `${unbooked} is not booked`;
  },
};

// --- river-crossing.ttl ---------------------------------------------------------------------
const ITEMS = ["wolf", "goat", "cabbage"];
const EATS: [string, string][] = [
  ["wolf", "goat"],
  ["goat", "cabbage"],
];

interface River {
  farmer: string;
  at: Record<string, string>;
  boat: Set<string>;
}

const river: Domain<River> = {
  types: { farmer: "Farmer", ...typed("Item", ITEMS), ...typed("Bank", ["left", "right"]) },
  signatures: { board: ["Item", "Bank"], land: ["Item"], cross: ["Bank", "Bank"] },
  start: () => ({ farmer: "left", at: { wolf: "left", goat: "left", cabbage: "left" }, boat: new Set() }),
  apply: (s, action, [x, y]) => {
    const a = x as string;
    if (action === "board") {
      if (s.farmer !== y) return `the farmer is not on the ${y} bank`;
      if (s.at[a] !== y) return `the ${a} is not on the ${y} bank`;
      if (s.boat.has(a)) return `the ${a} is in the boat already`;
      s.boat.add(a);
      return undefined;
    }
    if (action === "land") return s.boat.delete(a) ? undefined : `the ${a} is not in the boat`;
    if (s.farmer !== a) return `the farmer is not on the ${a} bank`;
    if (a === y) return "a bank is not opposite itself";
    s.farmer = y as string;
    for (const item of s.boat) s.at[item] = y as string;
    return undefined;
  },
  broken: (s) => {
    const eaten = EATS.find(([x, y]) => s.at[x] === s.at[y] && s.farmer !== s.at[x]);
    if (eaten !== undefined) return `the ${eaten[0]} is alone with the ${eaten[1]}`;
    return s.boat.size > 1 ? `${s.boat.size} items are in the one-seat boat` : undefined;
  },
  missing: (s) => {
    if (s.farmer !== "right") return "the farmer is not on the right bank";
    const left = ITEMS.find((i) => s.at[i] !== "right" || s.boat.has(i));
    return left === undefined ? undefined : `the ${left} is not landed on the right bank`;
  },
};

// --- logistics.ttl ---------------------------------------------------------------------------
const ROADS: Record<string, number> = { "depot north": 2, "north depot": 2, "depot east": 3, "east depot": 3, "north east": 2, "east north": 2, "east south": 2, "south east": 2 };
const STATIONS = new Set(["depot", "east"]);
const DESTINATION: Record<string, string> = { p1: "south", p2: "north", p3: "east", p4: "depot" };
const CAPACITY: Record<string, number> = { t1: 2, t2: 1 };
const TANK: Record<string, number> = { t1: 6, t2: 4 };

interface Logistics {
  truckAt: Record<string, string>;
  load: Record<string, number>;
  fuel: Record<string, number>;
  /** Package → a location, or "in <truck>". */
  where: Record<string, string>;
  delivered: Set<string>;
}

const logistics: Domain<Logistics> = {
  types: { ...typed("Truck", ["t1", "t2"]), ...typed("Package", ["p1", "p2", "p3", "p4"]), ...typed("Location", ["depot", "north", "east", "south"]) },
  signatures: { drive: ["Truck", "Location", "Location"], refuel: ["Truck", "Location"], load: ["Package", "Truck", "Location"], unload: ["Package", "Truck", "Location"] },
  start: () => ({
    truckAt: { t1: "depot", t2: "east" },
    load: { t1: 0, t2: 0 },
    fuel: { t1: 5, t2: 4 },
    where: { p1: "depot", p2: "depot", p3: "north", p4: "south" },
    delivered: new Set(),
  }),
  apply: (s, action, args) => {
    if (action === "drive") {
      const [t, from, to] = args as [string, string, string];
      const length = ROADS[`${from} ${to}`];
      if (s.truckAt[t] !== from) return `${t} is not at ${from}`;
      if (length === undefined) return `no road from ${from} to ${to}`;
      s.truckAt[t] = to;
      s.fuel[t] = (s.fuel[t] ?? 0) - length;
      return undefined;
    }
    if (action === "refuel") {
      const [t, l] = args as [string, string];
      if (s.truckAt[t] !== l) return `${t} is not at ${l}`;
      if (!STATIONS.has(l)) return `${l} has no station`;
      s.fuel[t] = TANK[t] ?? 0;
      return undefined;
    }
    const [p, t, l] = args as [string, string, string];
    if (action === "load") {
      if (s.where[p] !== l) return `${p} is not at ${l}`;
      if (s.truckAt[t] !== l) return `${t} is not at ${l}`;
      if (!((s.load[t] ?? 0) < (CAPACITY[t] ?? 0))) return `${t} is full`;
      s.where[p] = `in ${t}`;
      s.delivered.delete(p);
      s.load[t] = (s.load[t] ?? 0) + 1;
      return undefined;
    }
    if (s.where[p] !== `in ${t}`) return `${p} is not in ${t}`;
    if (s.truckAt[t] !== l) return `${t} is not at ${l}`;
    s.where[p] = l;
    s.load[t] = (s.load[t] ?? 0) - 1;
    if (DESTINATION[p] === l) s.delivered.add(p);
    return undefined;
  },
  broken: (s) => {
    const dry = Object.keys(CAPACITY).find((t) => (s.fuel[t] ?? 0) < 0);
    if (dry !== undefined) return `${dry} has fuel ${s.fuel[dry]}`;
    const over = Object.keys(CAPACITY).find((t) => (s.load[t] ?? 0) < 0 || (s.load[t] ?? 0) > (CAPACITY[t] ?? 0));
    return over === undefined ? undefined : `${over} carries ${s.load[over]}`;
  },
  missing: (s) => {
    const undelivered = Object.keys(DESTINATION).find((p) => !s.delivered.has(p));
    return undefined === undelivered ? undefined : `${undelivered} is not delivered`;
  },
};

const CHECKS: Record<string, () => DirectCheck> = {
  clinic: () => checker(clinic),
  "river-crossing": () => checker(river),
  logistics: () => checker(logistics),
  ...Object.fromEntries(BLOCKSWORLD_SIZES.map((n) => [`blocksworld-${n}`, () => blocksworldCheck(n)])),
};

/** The direct check of a benchmark problem, when there is one. */
export function directCheck(name: string): DirectCheck | undefined {
  return CHECKS[name]?.();
}
