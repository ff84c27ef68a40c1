import { it } from "vitest";
import { fileURLToPath } from "node:url";
import { importGraph } from "./architecture/import-graph.js";
const repo = fileURLToPath(new URL("..", import.meta.url));
it("folders", () => {
  const graph = importGraph(`${repo}/src`, repo);
  const folder = (f: string) => { const p = f.replace(/^src\//, "").split("/"); return p.length === 1 ? "(root)" : p[0]!; };
  const edges = new Map<string, Map<string, string[]>>();
  for (const [from, tos] of graph) for (const to of tos) {
    const a = folder(from), b = folder(to);
    if (a === b) continue;
    const m = edges.get(a) ?? new Map(); edges.set(a, m);
    const l = m.get(b) ?? []; m.set(b, l); l.push(`${from} -> ${to}`);
  }
  const out: string[] = [];
  for (const [a, m] of [...edges].sort()) out.push(`${a}: ${[...m.keys()].sort().join(", ")}`);
  out.push("--- two-way:");
  for (const [a, m] of edges) for (const b of m.keys()) if (a < b && edges.get(b)?.has(a)) out.push(`${a} <-> ${b}: ${m.get(b)!.slice(0,3).join("; ")} || ${edges.get(b)!.get(a)!.slice(0,3).join("; ")}`);
  console.log(out.join("\n"));
  console.log([...graph.keys()].length, "files");
});
