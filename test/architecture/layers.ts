/**
 * The layers of src/: which top-level folder may import which. The order is read from the one
 * fenced block of docs/architecture.md whose info string is `layers`, top layer first, one layer
 * per line; folders named on the same line are siblings and may not import each other. An
 * import may only point to a strictly lower layer (or stay inside its own folder).
 */
import type { ImportGraph } from "./import-graph.js";

/** A layer order: each folder (or root file, such as `cli.ts`) and its height, 0 at the bottom. */
export type LayerOrder = ReadonlyMap<string, number>;

/** One import that points sideways or up. */
export interface UpwardImport {
  readonly from: string;
  readonly to: string;
}

/** The layer order in the `layers` block of a Markdown text; throws when there is none or a name repeats. */
export function layerOrderIn(markdown: string): LayerOrder {
  const block = /^```layers\n([\s\S]*?)^```/m.exec(markdown);
  if (block === null) throw new Error("no ```layers block");
  const lines = block[1]!.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  const order = new Map<string, number>();
  lines.forEach((line, index) => {
    for (const name of line.split(/\s+/)) {
      if (order.has(name)) throw new Error(`${name} is named twice in the layers block`);
      order.set(name, lines.length - 1 - index);
    }
  });
  return order;
}

/** The layer a source file belongs to: its top-level folder under src/, or its own name at the root. */
export function layerOf(file: string): string {
  const parts = file.replace(/^src\//, "").split("/");
  return parts[0]!;
}

/** Every file whose layer the order does not name. */
export function unplacedFiles(graph: ImportGraph, order: LayerOrder): string[] {
  return [...graph.keys()].filter((file) => !order.has(layerOf(file)));
}

/** Every import between layers that does not point strictly down. */
export function upwardImports(graph: ImportGraph, order: LayerOrder): UpwardImport[] {
  const found: UpwardImport[] = [];
  for (const [from, targets] of graph) {
    const fromLayer = layerOf(from);
    for (const to of targets) {
      const toLayer = layerOf(to);
      if (toLayer === fromLayer) continue;
      const height = order.get(fromLayer);
      const targetHeight = order.get(toLayer);
      if (height === undefined || targetHeight === undefined || targetHeight >= height) found.push({ from, to });
    }
  }
  return found;
}
