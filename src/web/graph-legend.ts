/**
 * How the model graph draws each kind of node and edge, in one table the page's legend and the
 * script's drawing both read (the drawing gets it with the graph, as `edgeStyles`), so the two
 * cannot disagree. Edge kinds differ by line style as well as colour, for readers who do not
 * tell the colours apart.
 */
import { html, type Html } from "./html.js";
import type { EdgeKind, NodeKind } from "./model-links.js";

export interface EdgeStyle {
  kind: EdgeKind;
  /** What the edge says, read from its source to its target. */
  word: string;
  /** From what to what, for the legend. */
  meaning: string;
  colour: string;
  line: "solid" | "dashed" | "dotted";
  width: number;
}

export const EDGE_STYLES: readonly EdgeStyle[] = [
  { kind: "parameter", word: "takes", meaning: "action → a type or object it takes as a parameter", colour: "#0072B2", line: "dotted", width: 2 },
  { kind: "reads", word: "reads", meaning: "action → a state variable its preconditions read", colour: "#009E73", line: "dashed", width: 2 },
  { kind: "changes", word: "changes", meaning: "action → a state variable its effects change", colour: "#D55E00", line: "solid", width: 2.5 },
  { kind: "requires", word: "requires", meaning: "goal → a state variable or object its condition names", colour: "#CC79A7", line: "solid", width: 2 },
  { kind: "appliesTo", word: "applies to", meaning: "constraint → what it applies to or its expression names", colour: "#E69F00", line: "dashed", width: 2 },
  { kind: "typedAs", word: "is a", meaning: "entity → its type", colour: "#8c8c8c", line: "solid", width: 1.5 },
  { kind: "link", word: "other", meaning: "any other statement from one item to another, labelled with its property", colour: "#4d4d4d", line: "solid", width: 1 },
];

/** The node kinds as the legend and the items table name them; the glyph hints at the shape drawn. */
export const NODE_WORDS: Readonly<Record<NodeKind, { word: string; glyph: string }>> = {
  types: { word: "type", glyph: "\u25ad" },
  entities: { word: "entity", glyph: "\u25a2" },
  stateVariables: { word: "state variable", glyph: "\u25cf" },
  predicates: { word: "predicate (used, not declared)", glyph: "\u25cc" },
  actions: { word: "action", glyph: "\u2b22" },
  goals: { word: "goal", glyph: "\u2605" },
  constraints: { word: "constraint", glyph: "\u25c6" },
};

/** The legend above the drawing: hidden until the script has drawn a graph (without it there is none). */
export function graphLegend(): Html {
  return html`<div id="graph-legend" class="graph-legend" hidden>
<p class="legend node-legend">Nodes: ${Object.entries(NODE_WORDS).map(([kind, n]) => html`<span class="node-kind node-${kind}">${n.glyph} ${n.word}</span> `)}<span class="node-kind">(filled in the colour of the first agent to contribute the item)</span></p>
<ul class="legend edge-legend">
${EDGE_STYLES.map((e) => html`<li data-edge-kind="${e.kind}"><span class="edge-swatch line-${e.line}" data-colour="${e.colour}"></span><b>${e.word}</b>: ${e.meaning}</li>\n`)}</ul>
</div>`;
}
