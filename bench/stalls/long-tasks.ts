/**
 * The long tasks of a main-thread V8 .cpuprofile (from `node --cpu-prof`): every stretch of
 * samples with no `(idle)` or `(program)` between them that lasts longer than the threshold,
 * with the functions that stretch spent most of its time in (inclusive, by name and place),
 * so each stall can be traced to the code that makes it.
 *
 * Run: node dist/bench/stalls/long-tasks.js <file.cpuprofile> [thresholdMs=50]
 */
import { readCpuProfile, type CallFrame } from "../profile/cpu-profile.js";

const IDLE = new Set(["(idle)", "(program)", "(garbage collector)"]);

function where(frame: CallFrame): string {
  const file = frame.url.replace(/^.*\/(node_modules\/|dist\/)/, "$1");
  return `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
}

function main(file: string, thresholdMs: number): void {
  const profile = readCpuProfile(file);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const isIdle = (id: number) => IDLE.has(byId.get(id)?.callFrame.functionName ?? "");

  let t = 0;
  let start = -1;
  let busy: Array<{ id: number; us: number }> = [];
  const tasks: Array<{ at: number; us: number; samples: Array<{ id: number; us: number }> }> = [];
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    // GC is counted as busy: it stalls the loop as much as code does.
    const idle = isIdle(id) && byId.get(id)?.callFrame.functionName !== "(garbage collector)";
    if (!idle) {
      if (start < 0) start = t;
      busy.push({ id, us: profile.timeDeltas[i + 1] ?? dt });
    } else if (start >= 0) {
      const us = busy.reduce((s, b) => s + b.us, 0);
      if (us / 1000 > thresholdMs) tasks.push({ at: start, us, samples: busy });
      start = -1;
      busy = [];
    }
  });
  console.log(`${tasks.length} tasks over ${thresholdMs} ms`);
  for (const task of tasks.sort((a, b) => b.us - a.us).slice(0, 20)) {
    const inclusive = new Map<string, number>();
    for (const { id, us } of task.samples) {
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const node = byId.get(at);
        if (!node || !node.callFrame.url.includes("/dist/")) continue;
        const key = where(node.callFrame);
        if (seen.has(key)) continue;
        seen.add(key);
        inclusive.set(key, (inclusive.get(key) ?? 0) + us);
      }
    }
    const self = new Map<string, number>();
    for (const { id, us } of task.samples) {
      const node = byId.get(id);
      if (node) self.set(where(node.callFrame), (self.get(where(node.callFrame)) ?? 0) + us);
    }
    console.log(`\n${(task.us / 1000).toFixed(0)} ms at ${(task.at / 1e6).toFixed(1)} s; project code on the stack (inclusive):`);
    for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
    console.log("  self time:");
    for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 4)) console.log(`  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
  }
}

main(process.argv[2] ?? "", Number(process.argv[3] ?? 50));
