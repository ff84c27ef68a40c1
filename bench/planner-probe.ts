/**
 * How long the reference planner takes on generated Blocksworld problems: n blocks in random
 * towers to other random towers (fixed seed), plain four-operator domain, every part formal.
 * Prints time and plan length per size; not a test.
 * Run: npm run build && node dist/bench/planner-probe.js [--counted] [sizes…]   (default 4 6 8)
 */
import { Parser } from "n3";
import { readFormalModel } from "../src/formal/model.js";
import type { FormalModel } from "../src/formal/model.js";
import { groundModel } from "../src/planning/solver/grounding.js";
import { createPlanner } from "../src/planning/solver/index.js";
import { seededRandom } from "./verification/prng.js";

const SEED = 20_240_601;
const TIMEOUT_MS = 120_000;
const MAX_STEPS = 60;

/** Random towers: each block, in random order, starts a tower or goes on top of one. */
function towers(blocks: readonly string[], next: () => number): string[][] {
  const order = [...blocks];
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j] as string, order[i] as string];
  }
  const result: string[][] = [];
  for (const b of order) {
    const k = Math.floor(next() * (result.length + 1));
    if (k === result.length) result.push([b]);
    else (result[k] as string[]).push(b);
  }
  return result;
}

function facts(stacks: readonly string[][]): string[] {
  return stacks.flatMap((tower) => tower.map((b, i) => (i === 0 ? `(ontable ${b})` : `(on ${b} ${tower[i - 1] as string})`)));
}

/**
 * With `counted`, lifting increases a numeric fluent (moves) and a constraint bounds it: the
 * problem then has numbers, so the planner uses Z3's general SMT core rather than SAT.
 */
function blocksworld(n: number, seed: number, counted: boolean): { model: FormalModel; start: string[][]; goal: string[][] } {
  const next = seededRandom(seed + n);
  const blocks = Array.from({ length: n }, (_, i) => `b${i + 1}`);
  const start = towers(blocks, next);
  const goal = towers(blocks, next);
  const clear = start.map((t) => `(clear ${t[t.length - 1] as string})`);
  const lift = counted ? " (increase (moves) 1)" : "";
  const ttl = `
@prefix mfr: <http://purl.org/stuff/mfr/> .
${blocks.map((b) => `<#${b}> a mfr:Entity ; mfr:entityType "Block" .`).join("\n")}
<#problem> mfr:initialState "${[...facts(start), ...clear, "(handempty)", ...(counted ? ["(= (moves) 0)"] : [])].join(" ")}" .
${counted ? `<#bound> a mfr:Constraint ; mfr:constraintExpression "(<= (moves) ${2 * n})" .` : ""}
<#pickUp> a mfr:Action ; mfr:actionName "pick-up" ; mfr:hasParameter "?x - Block" ;
  mfr:hasPrecondition [ mfr:expression "(and (clear ?x) (ontable ?x) (handempty))" ] ;
  mfr:hasEffect [ mfr:expression "(and (holding ?x) (not (ontable ?x)) (not (clear ?x)) (not (handempty))${lift})" ] .
<#putDown> a mfr:Action ; mfr:actionName "put-down" ; mfr:hasParameter "?x - Block" ;
  mfr:hasPrecondition [ mfr:expression "(holding ?x)" ] ;
  mfr:hasEffect [ mfr:expression "(and (ontable ?x) (clear ?x) (handempty) (not (holding ?x)))" ] .
<#stack> a mfr:Action ; mfr:actionName "stack" ; mfr:hasParameter ( "?x - Block" "?y - Block" ) ;
  mfr:hasPrecondition [ mfr:expression "(and (holding ?x) (clear ?y) (not (= ?x ?y)))" ] ;
  mfr:hasEffect [ mfr:expression "(and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y)))" ] .
<#unstack> a mfr:Action ; mfr:actionName "unstack" ; mfr:hasParameter ( "?x - Block" "?y - Block" ) ;
  mfr:hasPrecondition [ mfr:expression "(and (on ?x ?y) (clear ?x) (handempty))" ] ;
  mfr:hasEffect [ mfr:expression "(and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty))${lift})" ] .
<#goal> a mfr:Goal ; mfr:expression "(and ${facts(goal).join(" ")})" .
`;
  const quads = new Parser({ baseIRI: "https://mfr.example/bench/", format: "text/turtle" }).parse(ttl);
  return { model: readFormalModel(quads), start, goal };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const counted = args.includes("--counted");
  const sizes = args.map(Number).filter((n) => Number.isInteger(n) && n > 0);
  const planner = await createPlanner();
  try {
    for (const n of sizes.length > 0 ? sizes : [4, 6, 8]) {
      const { model, start, goal } = blocksworld(n, SEED, counted);
      const grounded = groundModel(model);
      const stats = grounded.ok ? `${grounded.stats.reachableActions} ground actions, ${grounded.stats.stateAtoms} state atoms, ${grounded.stats.invariants} invariants` : grounded.reason;
      const started = Date.now();
      const outcome = await planner.solve(model, { maxSteps: MAX_STEPS, timeoutMs: TIMEOUT_MS });
      const ms = Date.now() - started;
      const towersText = (t: string[][]): string => t.map((s) => s.join("<")).join(" | ");
      const result = outcome.kind === "plan" ? `plan of ${outcome.plan.length} steps (${outcome.verification.verdict})` : `${outcome.kind}: ${outcome.reason}`;
      console.log(`${n} blocks: ${result} in ${ms} ms [${stats}; ${towersText(start)} -> ${towersText(goal)}]`);
    }
  } finally {
    await planner.close();
  }
}

await main();
