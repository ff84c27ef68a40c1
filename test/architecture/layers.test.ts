/**
 * The folders of src/ depend one way: the layer order docs/architecture.md shows is the one
 * this test holds every import to, type-only imports included.
 */
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importGraph } from "./import-graph.js";
import { layerOrderIn, unplacedFiles, upwardImports } from "./layers.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const order = layerOrderIn(readFileSync(`${repo}/docs/architecture.md`, "utf8"));

describe("the layers of src/", () => {
  const graph = importGraph(`${repo}/src`, repo);

  it("place every source file in a named layer", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(unplacedFiles(graph, order)).toEqual([]);
  });

  it("have every import between folders point to a lower layer", () => {
    expect(upwardImports(graph, order).map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });
});

describe("upwardImports", () => {
  const tiny = layerOrderIn("```layers\ntop\nleft right\nbottom\n```\n");

  it("reads the order top first, siblings on one line", () => {
    expect([...tiny]).toEqual([["top", 2], ["left", 1], ["right", 1], ["bottom", 0]]);
  });

  it("finds an import exactly when it does not point strictly down", () => {
    const names = ["top", "left", "right", "bottom"];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...names)), { maxLength: 10 }), (edges) => {
        const graph = new Map<string, string[]>(names.map((name) => [`src/${name}/a.ts`, []]));
        for (const [from, to] of edges) if (from !== to) graph.get(`src/${from}/a.ts`)!.push(`src/${to}/a.ts`);
        const found = upwardImports(graph, tiny).length;
        const expected = edges.filter(([from, to]) => from !== to && tiny.get(to)! >= tiny.get(from)!).length;
        expect(found).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("ignores imports inside one folder and names files outside every layer", () => {
    const graph = new Map([["src/left/a.ts", ["src/left/b.ts"]], ["src/left/b.ts", []], ["src/stray.ts", []]]);
    expect(upwardImports(graph, tiny)).toEqual([]);
    expect(unplacedFiles(graph, tiny)).toEqual(["src/stray.ts"]);
  });
});
