/**
 * The view's static files: its own script and style (in the package's `web/` directory, no
 * build step) and the graph library, served from the installed packages, never from a CDN.
 * Read once, when the routes are made, so a request never touches the disk.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Asset {
  body: Buffer;
  contentType: string;
}

const require = createRequire(import.meta.url);

/** The package's `web/` directory, found upwards from here (the source and the compiled file sit at different depths). */
function viewDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "web");
    if (existsSync(join(candidate, "view.js"))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("the web view's assets (web/view.js) are missing from the package");
    dir = parent;
  }
}

const JS = "text/javascript; charset=utf-8";

/** Asset path (under /assets/) → file, by where each comes from. */
function assetFiles(): Record<string, { path: string; contentType: string }> {
  const web = viewDirectory();
  return {
    "view.js": { path: join(web, "view.js"), contentType: JS },
    "style.css": { path: join(web, "style.css"), contentType: "text/css; charset=utf-8" },
    "lib/cytoscape.min.js": { path: require.resolve("cytoscape/dist/cytoscape.min.js"), contentType: JS },
  };
}

export function loadAssets(): ReadonlyMap<string, Asset> {
  return new Map(Object.entries(assetFiles()).map(([name, f]) => [name, { body: readFileSync(f.path), contentType: f.contentType }]));
}
