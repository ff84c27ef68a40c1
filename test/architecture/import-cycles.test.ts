/**
 * No import cycles anywhere in src/, type-only imports included: a cycle means two modules
 * that cannot be read, tested or replaced one without the other.
 */
import fc from "fast-check";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCycles, importGraph, type ImportGraph } from "./import-graph.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

describe("the import graph of src/", () => {
  it("has no cycles", () => {
    const graph = importGraph(`${repo}/src`, repo);
    expect(graph.size).toBeGreaterThan(100);
    expect(importCycles(graph)).toEqual([]);
  });
});

describe("importCycles", () => {
  it("finds a cycle exactly when a file can reach itself", () => {
    const names = ["a", "b", "c", "d", "e", "f"];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...names)), { maxLength: 12 }), (edges) => {
        const graph = new Map<string, string[]>(names.map((n) => [n, []]));
        for (const [from, to] of edges) graph.get(from)!.push(to);
        const inCycle = new Set(importCycles(graph as ImportGraph).flat());
        for (const name of names) expect(inCycle.has(name)).toBe(reaches(graph, name, name));
      }),
      { numRuns: 300 },
    );
  });
});

function reaches(graph: ReadonlyMap<string, readonly string[]>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const queue = [...(graph.get(from) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (next === to) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...(graph.get(next) ?? []));
  }
  return false;
}
