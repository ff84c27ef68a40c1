/**
 * The frame every page of the web view shares. Scripts come from the coordinator's own
 * assets only (the Content-Security-Policy forbids inline ones); a page works without them,
 * as plain tables, and the scripts add the graph and live updates.
 */
import { html, type Html } from "./html.js";

export interface PageOptions {
  title: string;
  /** Where live updates of this page come from (server-sent events); none: a static page. */
  events?: string;
  /** The view's scripts: the graph library is loaded only where a graph is drawn. */
  scripts: readonly string[];
}

export const ASSET_PREFIX = "/assets/";

/**
 * Cytoscape inserts an inline <style> for its container unless an element with this id is
 * in the page; the policy would block that (a console error), so the view's own stylesheet
 * carries the rule (style.css) and this id.
 */
const GRAPH_LIBRARY_STYLESHEET_ID = "__________cytoscape_stylesheet";

export function page(options: PageOptions, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · MFR Coordinator</title>
<link rel="stylesheet" href="${ASSET_PREFIX}style.css" id="${GRAPH_LIBRARY_STYLESHEET_ID}">
${options.scripts.map((s) => html`<script src="${ASSET_PREFIX}${s}" defer></script>\n`)}</head>
<body${options.events ? html` data-events="${options.events}"` : ""}>
<header class="top"><a href="/sessions">MFR Coordinator</a> <span class="live-state" id="live-state"></span></header>
<main>
${body}
</main>
</body>
</html>
`;
}

/** An instant as people in different places read it: UTC, to the second. */
export function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** A duration, short: `850 ms`, `12.3 s`, `4 min 5 s`, `2 h 3 min`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.floor((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.floor((ms % 3_600_000) / 60_000)} min`;
}
