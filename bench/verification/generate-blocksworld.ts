/**
 * Writes bench/problems/blocksworld-4.ttl … blocksworld-8.ttl and their .plans.json.
 *
 * Each problem: n blocks in random initial towers, random goal towers (fixed seed), and one
 * fragile block that is the top of a tower both at the start and in the goal; an invariant
 * says nothing may ever sit on it. The known valid plans are a shortest plan (breadth-first
 * search), the plain "everything to the table, then build" plans (where they differ from
 * it) and the shortest plan after a move undone at once. The invalid plans are
 * mutations of the shortest plan chosen by rule (drop the first lift, swap a lift with its
 * placement, …), each with the step where it must fail by that rule.
 *
 * Nothing here uses the coordinator's simulator: the search and the labels come from a
 * separate, direct implementation of Blocksworld (below), and every label is also checked
 * against the step its rule predicts, so a label is the model's semantics reached twice.
 *
 * Run: node scripts/prepare.mjs && node dist/bench/verification/generate-blocksworld.js
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { pick, seededRandom, shuffled } from "./prng.js";
import type { Random } from "./prng.js";
import { problemsDirectory } from "./problems.js";
import type { LabelledInvalidPlan, PlanSet } from "./problems.js";

const SEED = 20_260_611;
export const BLOCKSWORLD_SIZES = [4, 5, 6, 7, 8];
const TABLE = "table";

/** Towers, each listed bottom to top. */
type Towers = string[][];

/** Where each block is: on a block, on the table, or in the hand. */
interface World {
  on: Map<string, string>;
  holding: string | undefined;
}

interface Problem {
  n: number;
  blocks: string[];
  initial: Towers;
  goal: Towers;
  fragile: string;
}

function worldOf(towers: Towers): World {
  const on = new Map<string, string>();
  for (const tower of towers) tower.forEach((b, i) => on.set(b, i === 0 ? TABLE : (tower[i - 1] as string)));
  return { on, holding: undefined };
}

function isClear(w: World, b: string): boolean {
  if (w.holding === b) return false;
  for (const below of w.on.values()) if (below === b) return false;
  return true;
}

function what(w: World, b: string): string {
  if (w.holding === b) return `${b} is in the hand`;
  const above = [...w.on].find(([, below]) => below === b)?.[0];
  const where = w.on.get(b) === TABLE ? "on the table" : `on ${w.on.get(b)}`;
  return above === undefined ? `${b} is clear, ${where}` : `${above} is on ${b}`;
}

/** A step applied to a copy of the world, or the reason the model says it is not applicable. */
function apply(problem: Problem, w: World, text: string): World | string {
  const m = /^([a-z-]+)\(([^()]*)\)$/.exec(text);
  if (m === null) return `"${text}" is not a step`;
  const name = m[1] as string;
  const args = (m[2] as string).split(",").map((a) => a.trim()).filter((a) => a !== "");
  const arity: Record<string, number> = { "pick-up": 1, "put-down": 1, stack: 2, unstack: 2 };
  if (arity[name] === undefined) return `${name} is no action`;
  if (args.length !== arity[name]) return `${name} takes ${arity[name]} arguments`;
  for (const a of args) if (!problem.blocks.includes(a)) return `${a} is not a Block (${name} takes blocks)`;
  const [x, y] = args as [string, string | undefined];
  const next: World = { on: new Map(w.on), holding: w.holding };
  switch (name) {
    case "pick-up":
      if (!isClear(w, x)) return `${x} is not clear (${what(w, x)})`;
      if (w.on.get(x) !== TABLE) return `${x} is not on the table (${what(w, x)})`;
      if (w.holding !== undefined) return `the hand is not empty (it holds ${w.holding})`;
      next.on.delete(x);
      next.holding = x;
      return next;
    case "put-down":
      if (w.holding !== x) return `the hand does not hold ${x} (${w.holding === undefined ? "it is empty" : `it holds ${w.holding}`})`;
      next.on.set(x, TABLE);
      next.holding = undefined;
      return next;
    case "stack":
      if (w.holding !== x) return `the hand does not hold ${x} (${w.holding === undefined ? "it is empty" : `it holds ${w.holding}`})`;
      if (!isClear(w, y as string)) return `${y} is not clear (${what(w, y as string)})`;
      next.on.set(x, y as string);
      next.holding = undefined;
      return next;
    default:
      // unstack
      if (w.on.get(x) !== y) return `${x} is not on ${y} (${w.holding === x ? `${x} is in the hand` : `${x} is ${w.on.get(x) === TABLE ? "on the table" : `on ${w.on.get(x)}`}`})`;
      if (!isClear(w, x)) return `${x} is not clear (${what(w, x)})`;
      if (w.holding !== undefined) return `the hand is not empty (it holds ${w.holding})`;
      next.on.delete(x);
      next.holding = x;
      return next;
  }
}

function invariantBroken(problem: Problem, w: World): string | undefined {
  const above = [...w.on].find(([, below]) => below === problem.fragile)?.[0];
  return above === undefined ? undefined : `${above} sits on the fragile block ${problem.fragile}`;
}

function goalMissing(problem: Problem, w: World): string | undefined {
  const goal = worldOf(problem.goal);
  for (const b of problem.blocks) {
    if (w.on.get(b) !== goal.on.get(b)) {
      const want = goal.on.get(b) === TABLE ? `${b} on the table` : `${b} on ${goal.on.get(b)}`;
      return `${want} is not reached (${w.holding === b ? `${b} is in the hand` : `${b} is ${w.on.get(b) === TABLE ? "on the table" : `on ${w.on.get(b)}`}`})`;
    }
  }
  return undefined;
}

/** The verdict of the direct implementation: undefined when valid, else the failing step and why. */
function judge(problem: Problem, plan: readonly string[], checkInvariant = true): { step: number; why: string } | undefined {
  let w = worldOf(problem.initial);
  for (const [i, text] of plan.entries()) {
    const next = apply(problem, w, text);
    if (typeof next === "string") return { step: i + 1, why: `step ${i + 1} ${text} is not applicable: ${next}` };
    w = next;
    const broken = checkInvariant ? invariantBroken(problem, w) : undefined;
    if (broken !== undefined) return { step: i + 1, why: `after step ${i + 1} ${text}, ${broken}` };
  }
  const missing = goalMissing(problem, w);
  return missing === undefined ? undefined : { step: plan.length + 1, why: `at the end ${missing}` };
}

function stateKey(blocks: readonly string[], w: World): string {
  return blocks.map((b) => (w.holding === b ? "^" : (w.on.get(b) as string))).join(",");
}

/** A shortest plan, by breadth-first search, never putting a block on the fragile one. */
function shortestPlan(problem: Problem): string[] {
  const { blocks } = problem;
  const start = worldOf(problem.initial);
  const parent = new Map<string, { from: string; step: string } | null>([[stateKey(blocks, start), null]]);
  let frontier: World[] = [start];
  while (frontier.length > 0) {
    const next: World[] = [];
    for (const w of frontier) {
      const key = stateKey(blocks, w);
      const candidates: string[] = [];
      if (w.holding === undefined) {
        for (const b of blocks) {
          if (!isClear(w, b)) continue;
          const below = w.on.get(b) as string;
          candidates.push(below === TABLE ? `pick-up(${b})` : `unstack(${b}, ${below})`);
        }
      } else {
        candidates.push(`put-down(${w.holding})`);
        for (const b of blocks) if (b !== w.holding && b !== problem.fragile && isClear(w, b)) candidates.push(`stack(${w.holding}, ${b})`);
      }
      for (const step of candidates) {
        const after = apply(problem, w, step);
        if (typeof after === "string") throw new Error(`generated an inapplicable step ${step}: ${after}`);
        const afterKey = stateKey(blocks, after);
        if (parent.has(afterKey)) continue;
        parent.set(afterKey, { from: key, step });
        if (goalMissing(problem, after) === undefined) {
          const plan: string[] = [];
          for (let link = parent.get(afterKey); link; link = parent.get(link.from)) plan.unshift(link.step);
          return plan;
        }
        next.push(after);
      }
    }
    frontier = next;
  }
  throw new Error("no plan");
}

/** Every block to the table (tops first), then the goal towers built bottom up; towers taken in the given order or in reverse. */
function tablePlan(problem: Problem, reverse = false): string[] {
  const plan: string[] = [];
  const order = (towers: Towers): Towers => (reverse ? [...towers].reverse() : towers);
  for (const tower of order(problem.initial)) {
    for (let i = tower.length - 1; i >= 1; i -= 1) plan.push(`unstack(${tower[i]}, ${tower[i - 1]})`, `put-down(${tower[i]})`);
  }
  for (const tower of order(problem.goal)) {
    for (let i = 1; i < tower.length; i += 1) plan.push(`pick-up(${tower[i]})`, `stack(${tower[i]}, ${tower[i - 1]})`);
  }
  return plan;
}

/** The shortest plan after a first move that is undone at once (lift a top block, put it back): valid, not shortest. */
function detourPlan(problem: Problem, shortest: readonly string[]): string[] {
  const tower = problem.initial.find((t) => t.length === 1) ?? (problem.initial.find((t) => t.length >= 2) as string[]);
  const top = tower[tower.length - 1] as string;
  const undone = tower.length === 1 ? [`pick-up(${top})`, `put-down(${top})`] : [`unstack(${top}, ${tower[tower.length - 2]})`, `stack(${top}, ${tower[tower.length - 2]})`];
  return [...undone, ...shortest];
}

function randomTowers(random: Random, blocks: readonly string[]): Towers {
  const towers: Towers = [];
  for (const b of shuffled(random, blocks)) {
    if (towers.length === 0 || random() < 0.3) towers.push([b]);
    else pick(random, towers).push(b);
  }
  return towers;
}

const tops = (towers: Towers): string[] => towers.map((t) => t[t.length - 1] as string);
const tallest = (towers: Towers): number => Math.max(...towers.map((t) => t.length));

const made = new Map<number, { problem: Problem; shortest: string[] }>();

/** A problem with n blocks: both configurations with a tower of three or more, a fragile top in both, and a plan of at least 2n steps. */
function makeProblem(n: number): { problem: Problem; shortest: string[] } {
  const known = made.get(n);
  if (known !== undefined) return known;
  const random = seededRandom(SEED + n);
  const blocks = Array.from({ length: n }, (_, i) => `b${i + 1}`);
  for (;;) {
    const initial = randomTowers(random, blocks);
    const goal = randomTowers(random, blocks);
    const fragileCandidates = tops(initial).filter((b) => tops(goal).includes(b));
    if (tallest(initial) < 3 || tallest(goal) < 3 || fragileCandidates.length === 0) continue;
    const problem: Problem = { n, blocks, initial, goal, fragile: pick(random, fragileCandidates.sort()) };
    const shortest = shortestPlan(problem);
    if (shortest.length >= 2 * n) {
      made.set(n, { problem, shortest });
      return { problem, shortest };
    }
  }
}

const stepName = (s: string): string => s.slice(0, s.indexOf("("));
const stepArgs = (s: string): string[] => s.slice(s.indexOf("(") + 1, -1).split(",").map((a) => a.trim());
const isLift = (s: string): boolean => stepName(s) === "pick-up" || stepName(s) === "unstack";

/** The invalid plans of one problem, each from a rule that predicts where it fails. */
function invalidPlans(problem: Problem, plan: readonly string[]): LabelledInvalidPlan[] {
  const L = plan.length;
  const at = (i: number): string => plan[i - 1] as string;
  const without = (i: number): string[] => plan.filter((_, k) => k !== i - 1);
  const swap = (i: number, j: number): string[] => plan.map((s, k) => (k === i - 1 ? at(j) : k === j - 1 ? at(i) : s));
  const duplicate = (i: number): string[] => [...plan.slice(0, i), at(i), ...plan.slice(i)];
  const replace = (i: number, step: string): string[] => plan.map((s, k) => (k === i - 1 ? step : s));
  const out: (LabelledInvalidPlan & { expected: number })[] = [];
  const add = (kind: LabelledInvalidPlan["kind"], rule: string, mutated: string[], expected: number): void => {
    out.push({ plan: mutated, step: 0, kind, why: rule, expected });
  };
  // The shortest plan alternates a lift (odd steps) and a placement (even steps).
  plan.forEach((s, i) => {
    if (isLift(s) !== (i % 2 === 0)) throw new Error(`step ${i + 1} ${s} breaks the lift/place alternation`);
  });
  const middleLift = L / 2 % 2 === 1 ? L / 2 : L / 2 + 1;

  add("dropped", `the first lift, ${at(1)}, is dropped: step 1 must place a block the hand does not hold`, without(1), 1);
  add("dropped", `the first placement, ${at(2)}, is dropped: step 2 must lift with the hand still full`, without(2), 2);
  add("swapped", `the lift ${at(middleLift)} and its placement ${at(middleLift + 1)} are swapped: step ${middleLift} places a block not yet lifted`, swap(middleLift, middleLift + 1), middleLift);
  add("swapped", `the last lift ${at(L - 1)} and the last placement are swapped: step ${L - 1} places a block not yet lifted`, swap(L - 1, L), L - 1);
  add("duplicated", `the placement ${at(2)} is done twice: the second time (step 3) the hand is empty`, duplicate(2), 3);
  add("duplicated", `the last lift ${at(L - 1)} is done twice: the second time (step ${L}) the hand is full`, duplicate(L - 1), L);

  // A block that is not clear at the start, in place of the first lifted block.
  const first = stepArgs(at(1));
  const buried = problem.blocks.find((b) => !isClear(worldOf(problem.initial), b) && !first.includes(b));
  if (buried === undefined) throw new Error("no buried block for the wrong-argument plan");
  add("wrong-argument", `${at(1)} lifts ${buried} instead, which is not clear or not where the step says: step 1 fails`, replace(1, `${stepName(at(1))}(${[buried, ...first.slice(1)].join(", ")})`), 1);
  // The table (a Furniture) where step 2 names a block.
  const second = stepArgs(at(2));
  add("wrong-argument", `step 2 names the table, which is no Block, in ${at(2)}`, replace(2, `${stepName(at(2))}(${[...second.slice(0, -1), TABLE].join(", ")})`), 2);

  // A detour over the fragile block: stack on it, lift it off again, then the original placement.
  let w = worldOf(problem.initial);
  let detour: number | undefined;
  for (let i = 1; i <= L; i += 1) {
    const held = w.holding;
    if (!isLift(at(i)) && held !== undefined && held !== problem.fragile && isClear(w, problem.fragile) && i > 2) {
      detour = i;
      break;
    }
    w = apply(problem, w, at(i)) as World;
  }
  if (detour === undefined) throw new Error("no place for the fragile-block detour");
  const held = stepArgs(at(detour))[0] as string;
  const withDetour = [...plan.slice(0, detour - 1), `stack(${held}, ${problem.fragile})`, `unstack(${held}, ${problem.fragile})`, ...plan.slice(detour - 1)];
  add("invariant", `instead of ${at(detour)}, ${held} is first stacked on the fragile block ${problem.fragile} and lifted off again: the plan still reaches the goal, but the invariant breaks at step ${detour}`, withDetour, detour);

  add("goal", `the last step ${at(L)} is left out: every step applies, the goal is not reached`, plan.slice(0, -1), L);
  const last = stepArgs(at(L));
  const undo = stepName(at(L)) === "stack" ? `unstack(${last[0]}, ${last[1]})` : `pick-up(${last[0]})`;
  add("goal", `after the last step, ${undo} takes the last block back: every step applies, the goal is not reached`, [...plan, undo], L + 2);

  return out.map(({ expected, ...labelled }) => {
    const verdict = judge(problem, labelled.plan);
    if (verdict === undefined) throw new Error(`blocksworld-${problem.n}: the ${labelled.kind} plan is valid: ${JSON.stringify(labelled.plan)}`);
    if (verdict.step !== expected) throw new Error(`blocksworld-${problem.n}: the ${labelled.kind} rule says step ${expected}, the direct check says ${verdict.step} (${verdict.why})`);
    if (labelled.kind === "invariant" && judge(problem, labelled.plan, false) !== undefined) throw new Error("the invariant plan does not reach the goal");
    return { ...labelled, step: verdict.step, why: `${labelled.why}. ${verdict.why[0]?.toUpperCase()}${verdict.why.slice(1)}.` };
  });
}

function facts(towers: Towers): string[] {
  return towers.flatMap((tower) => tower.map((b, i) => (i === 0 ? `(ontable ${b})` : `(on ${b} ${tower[i - 1]})`)));
}

const towerText = (towers: Towers): string => towers.map((t) => `[${t.join(" ")}]`).join(" ");

function turtle(problem: Problem): string {
  const { n, blocks, initial, goal, fragile } = problem;
  const initialFacts = [...facts(initial), ...tops(initial).map((b) => `(clear ${b})`), "(handempty)"];
  return `# Blocksworld with ${n} blocks, every part formal: a benchmark problem for plan verification.
# Generated by bench/verification/generate-blocksworld.ts (seed ${SEED + n}); do not edit by hand.
# Towers, bottom to top: at the start ${towerText(initial)}, in the goal ${towerText(goal)}.
# Block ${fragile} is fragile: nothing may ever sit on it (an invariant checked in every state).
@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

${blocks.map((b) => `<#${b}> a mfr:Entity ; mfr:entityType "Block" ; rdfs:label "block ${b.slice(1)}" .`).join("\n")}
<#table> a mfr:Entity ; mfr:entityType "Furniture" ; rdfs:label "the table" .

<#problem> mfr:initialState "${initialFacts.join(" ")}" ,
    "(fragile ${fragile})" .

<#pickUp> a mfr:Action ; mfr:actionName "pick-up" ;
    mfr:hasParameter ( "?x - Block" ) ;
    mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(and (clear ?x) (ontable ?x) (handempty))" ] ;
    mfr:hasEffect [ a mfr:Effect ; mfr:expression "(and (holding ?x) (not (ontable ?x)) (not (clear ?x)) (not (handempty)))" ] .

<#putDown> a mfr:Action ; mfr:actionName "put-down" ;
    mfr:hasParameter ( "?x - Block" ) ;
    mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(holding ?x)" ] ;
    mfr:hasEffect [ a mfr:Effect ; mfr:expression "(and (ontable ?x) (clear ?x) (handempty) (not (holding ?x)))" ] .

<#stack> a mfr:Action ; mfr:actionName "stack" ;
    mfr:hasParameter "?x - Block" , "?y - Block" ;
    mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(and (holding ?x) (clear ?y))" ] ;
    mfr:hasEffect [ a mfr:Effect ; mfr:expression "(and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y)))" ] .

<#unstack> a mfr:Action ; mfr:actionName "unstack" ;
    mfr:hasParameter ( "?x - Block" "?y - Block" ) ;
    mfr:hasPrecondition [ a mfr:Precondition ; mfr:expression "(and (on ?x ?y) (clear ?x) (handempty))" ] ;
    mfr:hasEffect [ a mfr:Effect ; mfr:expression "(and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty)))" ] .

<#nothingOnFragile> a mfr:Constraint ; mfr:constraintType "invariant" ; mfr:appliesTo <#${fragile}> ;
    rdfs:comment "Nothing may ever sit on a fragile block." ;
    mfr:constraintExpression "(forall (?x - Block) (imply (fragile ?x) (not (exists (?y - Block) (on ?y ?x)))))" .

<#goalTowers> a mfr:Goal ; rdfs:label "the goal towers ${towerText(goal)}" ;
    mfr:expression "(and ${facts(goal).join(" ")})" .
`;
}

/** One generated problem: its Turtle, its plans, and a line saying what it is. */
export function generateBlocksworld(n: number): { turtle: string; plans: PlanSet; summary: string } {
  const { problem, shortest } = makeProblem(n);
  const valid = [shortest, tablePlan(problem), tablePlan(problem, true), detourPlan(problem, shortest)].filter(
    (plan, i, all) => all.findIndex((other) => other.join("|") === plan.join("|")) === i,
  );
  for (const plan of valid) {
    const verdict = judge(problem, plan);
    if (verdict !== undefined) throw new Error(`blocksworld-${n}: a known valid plan fails: ${verdict.why}`);
  }
  const plans: PlanSet = { valid, invalid: invalidPlans(problem, shortest) };
  const summary = `blocksworld-${n}: ${towerText(problem.initial)} -> ${towerText(problem.goal)}, fragile ${problem.fragile}; shortest plan ${shortest.length} steps; ${valid.length} valid and ${plans.invalid.length} invalid plans`;
  return { turtle: turtle(problem), plans, summary };
}

/**
 * The direct Blocksworld check of problem blocksworld-n: undefined for a valid plan, else the
 * first failing step (plan length + 1 for the goal) and why. A second opinion on any plan.
 */
export function blocksworldCheck(n: number): (plan: readonly string[]) => { step: number; why: string } | undefined {
  const { problem } = makeProblem(n);
  return (plan) => judge(problem, plan);
}

/** The plans file's text, as written. */
export function plansText(plans: PlanSet): string {
  return `${JSON.stringify(plans, null, 2)}\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const directory = problemsDirectory();
  for (const n of BLOCKSWORLD_SIZES) {
    const { turtle: text, plans, summary } = generateBlocksworld(n);
    writeFileSync(`${directory}blocksworld-${n}.ttl`, text);
    writeFileSync(`${directory}blocksworld-${n}.plans.json`, plansText(plans));
    console.log(summary);
  }
}
