/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): the top functions by self time with
 * their file:line, self time by package or source directory, and the inclusive time of the
 * product's pipeline phases (by function name; recursion counted once).
 *
 * Run: node dist/bench/pipeline/profile-summary.js <file.cpuprofile> [top]
 */
import { readCpuProfile, type CallFrame, type CpuProfile, type ProfileNode } from "../profile/cpu-profile.js";

/** The functions analyseModel calls, one per phase (see src/analysis/analysis.ts). */
const PHASES = [
  "analyseModel",
  "parseContribution",
  "mergeContributions",
  "readFormalModel",
  "validateModel",
  "validateAll",
  "toFinding",
  "modelToTurtle",
  "modelToTrig",
  "distinctTriples",
  "countItemsByAgent",
];

/** Where a function lives, short: `n3/src/N3Store.js:123`, `dist/src/rdf/parse.js:40`, `(native)`. */
function where(frame: CallFrame): string {
  if (frame.url === "") return "(native)";
  const path = frame.url.replace(/^file:\/\//, "");
  const modules = path.lastIndexOf("/node_modules/");
  const short = modules >= 0 ? path.slice(modules + "/node_modules/".length) : path.replace(/^.*?\/(dist\/)/, "$1");
  return `${short}:${frame.lineNumber + 1}`;
}

/** A package name, or the source directory for our own code, or the V8/Node category. */
function area(frame: CallFrame): string {
  if (frame.url === "") return frame.functionName.startsWith("(") ? frame.functionName : "(native)";
  if (frame.url.startsWith("node:")) return "node internals";
  const path = frame.url.replace(/^file:\/\//, "");
  const modules = path.lastIndexOf("/node_modules/");
  if (modules >= 0) {
    const parts = path.slice(modules + "/node_modules/".length).split("/");
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? path);
  }
  const dist = path.match(/\/dist\/(.*)\/[^/]+$/);
  return dist ? `dist/${dist[1]}` : path;
}

function summarise(profile: CpuProfile, top: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const msOf = (us: number): string => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%`;

  // Self time per function (name + location), over all its call sites.
  const perFunction = new Map<string, { name: string; at: string; us: number }>();
  const perArea = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    const name = frame.functionName || "(anonymous)";
    const at = where(frame);
    const key = `${name} ${at}`;
    const entry = perFunction.get(key) ?? { name, at, us: 0 };
    entry.us += us;
    perFunction.set(key, entry);
    perArea.set(area(frame), (perArea.get(area(frame)) ?? 0) + us);
  }
  console.log(`Profile: ${(total / 1000).toFixed(0)} ms sampled (${profile.samples.length} samples)\n`);
  console.log(`Top ${top} functions by self time:`);
  for (const f of [...perFunction.values()].sort((a, b) => b.us - a.us).slice(0, top)) {
    console.log(`${msOf(f.us)}  ${f.name}  ${f.at}`);
  }
  console.log("\nSelf time by package / directory:");
  for (const [name, us] of [...perArea].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${msOf(us)}  ${name}`);

  // For the busiest packages: which code outside the package the time is spent for.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const busiest = [...perArea].filter(([name]) => !name.startsWith("(")).sort((a, b) => b[1] - a[1]).slice(0, 4);
  for (const [name] of busiest) {
    const callers = new Map<string, number>();
    for (const [id, us] of self) {
      if (area((byId.get(id) as ProfileNode).callFrame) !== name) continue;
      let at: number | undefined = id;
      while (at !== undefined && area((byId.get(at) as ProfileNode).callFrame) === name) at = parent.get(at);
      const frame = at === undefined ? undefined : (byId.get(at) as ProfileNode).callFrame;
      const key = frame ? `${frame.functionName || "(anonymous)"}  ${where(frame)}` : "(root)";
      callers.set(key, (callers.get(key) ?? 0) + us);
    }
    console.log(`\nSelf time in ${name}, by the first caller outside it:`);
    for (const [key, us] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 4)) console.log(`${msOf(us)}  ${key}`);
  }

  // Inclusive time of the phase functions: a node's self time counts for every phase
  // function on its stack, once each (recursion does not count twice).
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = (byId.get(at) as ProfileNode).callFrame.functionName;
      if (PHASES.includes(name) && !seen.has(name)) {
        seen.add(name);
        inclusive.set(name, (inclusive.get(name) ?? 0) + us);
      }
    }
  }
  // Async functions lose their callers after an `await` (the rest runs from a microtask),
  // so an async function's figure covers only what ran before its first await.
  console.log("\nInclusive time of the pipeline's functions (all calls, warm-up included; async ones only up to their first await):");
  for (const name of PHASES) {
    const us = inclusive.get(name);
    if (us !== undefined) console.log(`${msOf(us)}  ${name}`);
  }
}

const file = process.argv[2];
if (file === undefined) {
  console.error("usage: node dist/bench/pipeline/profile-summary.js <file.cpuprofile> [top]");
  process.exit(2);
}
summarise(readCpuProfile(file), Number(process.argv[3] ?? 15));
