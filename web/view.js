/*
 * The web view's one script (served as it is; no build step). It draws the model graph with
 * cytoscape and keeps a live page current: each server-sent `step` event makes it fetch the
 * page again and swap in the sections marked `data-live`, which the server drew (and escaped).
 * Nothing here builds HTML from data: text goes in as text, or through cytoscape's canvas.
 * Without this script the page is the same tables, reloaded by hand.
 */
/* global document, window, fetch, EventSource, DOMParser, cytoscape */
"use strict";

(function () {
  /** Read by the browser tests: the graph instance and how often the page was refreshed (and `morph`, below). */
  const view = { cy: null, refreshes: 0, graphVersion: null, morph: null };
  window.mfrView = view;

  const SHAPES = { types: "tag", entities: "round-rectangle", stateVariables: "ellipse", predicates: "ellipse", actions: "hexagon", constraints: "diamond", goals: "star" };

  /**
   * Columns of the drawing, left to right: the types, the objects of those types, the state
   * variables, the actions that read and change them, and the goals and constraints on them.
   * Every link runs from a column to one on its left, so a model reads as layers.
   */
  const COLUMNS = { types: 0, entities: 1, stateVariables: 2, predicates: 2, actions: 3, goals: 4, constraints: 4 };
  /** Vertical distance between two nodes of a column: a node, its label and a gap. */
  const ROW = 68;
  /** Horizontal gap between columns, stretched to fill the box's width within these bounds. */
  const COLUMN_GAP = { min: 70, max: 240 };
  const ORDERING_SWEEPS = 8;
  /** How far (px) a link bows per column it skips. */
  const BOW = 22;

  /** Labels are drawn at 13 px: the drawing is never zoomed out below this, so they stay legible (≥ 12 px). */
  const MIN_FIT_ZOOM = 0.93;
  const PADDING = 24;
  const MIN_HEIGHT = 220;
  const MAX_HEIGHT = 1100;

  /** Colours come from the server as data; styles are set from script, since the policy forbids inline style attributes. */
  function paintLegend() {
    for (const el of document.querySelectorAll("[data-colour]")) {
      el.style.setProperty("--swatch", el.dataset.colour);
    }
  }

  function edgeStyle(e) {
    return {
      selector: `edge[kind = "${e.kind}"]`,
      style: { "line-color": e.colour, "target-arrow-color": e.colour, "line-style": e.line, width: e.width },
    };
  }

  /**
   * Places each node in its kind's column, and orders each column by the mean height of the
   * node's neighbours (the barycentre heuristic of layered drawing), sweeping left and right a few
   * times: linked nodes come level and fewer links cross. A general layout (dagre) ranked by
   * links alone, and the links that skip a column (an action to its parameter's type) stretched
   * the columns far apart vertically.
   */
  function columnLayout(cy, box) {
    const columns = [];
    cy.nodes().forEach((n) => {
      const c = n.data("column");
      (columns[c] = columns[c] || []).push(n);
    });
    const used = columns.filter(Boolean);
    const tallest = Math.max(...used.map((c) => c.length));
    const row = new Map();
    // Every other column sits half a row lower, so a link between two far columns at one height
    // does not pass through the nodes at that height in between.
    const place = (column, index) => column.forEach((n, i) => row.set(n.id(), i + (tallest - column.length) / 2 + (index % 2) / 2));
    used.forEach((column, index) => place(column, index));
    for (let sweep = 0; sweep < ORDERING_SWEEPS; sweep++) {
      for (const index of used.map((_, i) => (sweep % 2 === 0 ? i : used.length - 1 - i))) {
        const column = used[index];
        const key = new Map();
        for (const n of column) {
          const around = n.neighborhood("node").map((m) => row.get(m.id()));
          key.set(n.id(), around.length > 0 ? around.reduce((a, b) => a + b, 0) / around.length : row.get(n.id()));
        }
        column.sort((a, b) => key.get(a.id()) - key.get(b.id()));
        place(column, index);
      }
    }
    const widths = used.map((column) => Math.max(...column.map((n) => n.boundingBox({ includeLabels: true }).w)));
    const spare = box.clientWidth - 2 * PADDING - widths.reduce((a, b) => a + b, 0);
    const gap = used.length > 1 ? Math.min(COLUMN_GAP.max, Math.max(COLUMN_GAP.min, spare / (used.length - 1))) : 0;
    const positions = new Map();
    let x = 0;
    used.forEach((column, i) => {
      for (const n of column) positions.set(n.id(), { x: x + widths[i] / 2, y: row.get(n.id()) * ROW });
      x += widths[i] + gap;
    });
    cy.layout({ name: "preset", positions: (n) => positions.get(n.id()), fit: false }).run();
  }

  /**
   * Sizes the box to the drawing at a zoom of 1 (or a little less for a wide graph), rather than
   * fitting the drawing into a fixed box: fitting shrank a tall model's labels to a few pixels.
   * A drawing wider than the box at that zoom scrolls sideways by dragging.
   */
  function sizeToDrawing(cy, box) {
    const bb = cy.elements().boundingBox();
    const zoom = Math.min(1, Math.max(MIN_FIT_ZOOM, (box.clientWidth - 2 * PADDING) / Math.max(bb.w, 1)));
    const height = Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(bb.h * zoom + 2 * PADDING)));
    box.style.height = `${height}px`;
    cy.resize();
    cy.zoom(zoom);
    const left = Math.max(PADDING, (box.clientWidth - bb.w * zoom) / 2);
    const top = Math.max(PADDING, (height - bb.h * zoom) / 2);
    cy.pan({ x: left - bb.x1 * zoom, y: top - bb.y1 * zoom });
  }

  function worstSeverity(findings) {
    if (findings.some((f) => f.severity === "Violation")) return "violation";
    if (findings.some((f) => f.severity === "Warning")) return "warning";
    return findings.length > 0 ? "info" : "";
  }

  /** Draws started; a draw that finishes after a later one started is stale and dropped. */
  let drawsStarted = 0;

  async function drawGraph() {
    const box = document.getElementById("model-graph");
    if (!box || typeof cytoscape !== "function") return;
    const draw = ++drawsStarted;
    const fetched = await fetch(box.dataset.src, { credentials: "same-origin" })
      .then(async (answer) => {
        if (!answer.ok) throw new Error(`the server answered ${answer.status}`);
        return { graph: await answer.json() };
      })
      .catch((error) => ({ error }));
    // Only the latest draw speaks for the graph: an overtaken one, fetched or failed, changes nothing.
    if (draw !== drawsStarted) return;
    if (fetched.error) throw fetched.error;
    const { graph } = fetched;
    if (view.cy) {
      view.cy.destroy();
      view.cy = null;
    }
    const legend = document.getElementById("graph-legend");
    if (graph.nodes.length === 0) {
      box.hidden = true;
      if (legend) legend.hidden = true;
      box.dataset.state = "empty";
      return;
    }
    box.hidden = false;
    if (legend) legend.hidden = false;
    const colours = new Map(graph.agents.map((a) => [a.name, a.colour]));
    const nodes = graph.nodes.map((n) => {
      const severity = worstSeverity(n.findings);
      return {
        data: {
          id: n.id,
          label: (severity === "violation" ? "\u26a0 " : "") + n.label,
          kind: n.kind,
          agents: n.agents.join(", "),
          colour: colours.get(n.agents[0]) || "#777777",
          shape: SHAPES[n.kind] || "ellipse",
          column: COLUMNS[n.kind] ?? 2,
          details: n.details.join("; "),
          findings: n.findings.map((f) => `${f.severity}: ${f.message}`).join("\n"),
        },
        classes: [n.kind, severity, n.agents.length > 1 ? "shared" : ""].filter(Boolean).join(" "),
      };
    });
    const columnOf = new Map(nodes.map((n) => [n.data.id, n.data.column]));
    const edges = graph.edges.map((e, i) => {
      const span = Math.abs((columnOf.get(e.source) ?? 0) - (columnOf.get(e.target) ?? 0));
      // A link that skips a column bows, so it does not run straight through the nodes between.
      return { data: { id: `edge-${i}`, source: e.source, target: e.target, kind: e.kind, label: e.label, bow: BOW * (span - 1) }, classes: span > 1 ? "skips" : "" };
    });
    view.cy = cytoscape({
      container: box,
      elements: [...nodes, ...edges],
      wheelSensitivity: 0.3,
      minZoom: 0.2,
      maxZoom: 3,
      style: [
        { selector: "node", style: { label: "data(label)", shape: "data(shape)", "background-color": "data(colour)", color: "#1a1a1a", "font-size": 13, "text-valign": "bottom", "text-margin-y": 3, width: 26, height: 26, "border-width": 1, "border-color": "#333333", "text-wrap": "ellipsis", "text-max-width": 150, "text-background-color": "#ffffff", "text-background-opacity": 0.85, "text-background-padding": 1 } },
        { selector: "node.types", style: { "background-color": "#e6e6e6", "border-color": "#666666", width: 34, height: 22 } },
        { selector: "node.predicates", style: { "background-color": "#ffffff", "border-color": "#666666", "border-width": 2, "border-style": "dashed" } },
        { selector: "node.shared", style: { "border-width": 3, "border-style": "dashed" } },
        { selector: "node.warning", style: { "border-width": 4, "border-color": "#d08700" } },
        { selector: "node.violation", style: { "border-width": 5, "border-color": "#c00000", "border-style": "double", color: "#c00000", "font-weight": "bold" } },
        { selector: "edge", style: { width: 1.5, "line-color": "#999999", "target-arrow-color": "#999999", "target-arrow-shape": "triangle", "arrow-scale": 0.9, "curve-style": "bezier", opacity: 0.85 } },
        { selector: "edge.skips", style: { "curve-style": "unbundled-bezier", "control-point-distances": "data(bow)", "control-point-weights": 0.5 } },
        ...(graph.edgeStyles || []).map(edgeStyle),
        { selector: 'edge[kind = "link"]', style: { label: "data(label)", "font-size": 11, color: "#4d4d4d", "text-rotation": "autorotate", "text-background-color": "#ffffff", "text-background-opacity": 0.85 } },
        { selector: "edge:selected", style: { width: 4, opacity: 1 } },
      ],
      layout: { name: "preset" },
    });
    columnLayout(view.cy, box);
    sizeToDrawing(view.cy, box);
    const note = document.getElementById("graph-selection");
    view.cy.on("tap", "node", (event) => {
      const node = event.target;
      const details = node.data("details") ? ` \u2014 ${node.data("details")}` : "";
      const findings = node.data("findings") ? ` \u2014 ${node.data("findings")}` : "";
      if (note) note.textContent = `${node.data("label")} (${node.data("kind")}, by ${node.data("agents")})${details}${findings}`;
    });
    view.cy.on("tap", "edge", (event) => {
      const edge = event.target;
      if (note) note.textContent = `${edge.source().data("label")} ${edge.data("label")} ${edge.target().data("label")}`;
    });
    box.dataset.state = "drawn";
  }

  /** A graph that could not be fetched or drawn says so, and the next step of the session tries again. */
  async function redrawGraph() {
    try {
      await drawGraph();
    } catch (err) {
      view.graphVersion = null;
      const box = document.getElementById("model-graph");
      if (box) box.dataset.state = "failed";
      showState(`graph failed: ${err.message}`);
    }
  }

  function graphVersion() {
    const tables = document.getElementById("model-tables");
    return tables ? tables.dataset.graphVersion : null;
  }

  function showState(text) {
    const el = document.getElementById("live-state");
    if (el) el.textContent = text;
  }

  /** What identifies a row across refreshes: a session, a model item, a timeline entry. */
  function keyOf(node) {
    if (node.nodeType !== 1) return null;
    return node.id || node.dataset.session || node.dataset.item || node.dataset.index || null;
  }

  /**
   * Brings `old` to what `fresh` shows, keeping every node that did not change. Swapping whole
   * sections lost a click whose press and release fell either side of a refresh (on a busy
   * coordinator the sessions list refreshes several times a second), and a text selection.
   */
  function morph(old, fresh) {
    if (old.isEqualNode(fresh)) return;
    if (old.nodeType !== 1 || old.nodeName !== fresh.nodeName || keyOf(old) !== keyOf(fresh)) {
      if (old.nodeType === 3 && fresh.nodeType === 3) old.nodeValue = fresh.nodeValue;
      else old.replaceWith(document.adoptNode(fresh));
      return;
    }
    for (const { name } of [...old.attributes]) if (!fresh.hasAttribute(name)) old.removeAttribute(name);
    for (const { name, value } of [...fresh.attributes]) if (old.getAttribute(name) !== value) old.setAttribute(name, value);
    const keyed = new Map();
    for (const child of old.childNodes) if (keyOf(child) !== null) keyed.set(keyOf(child), child);
    const kept = new Set();
    let cursor = old.firstChild;
    for (const next of [...fresh.childNodes]) {
      const key = keyOf(next);
      // A keyed row is matched by its key wherever it was; anything else by its place.
      let match = key !== null ? keyed.get(key) : cursor && keyOf(cursor) === null ? cursor : null;
      if (match && kept.has(match)) match = null;
      if (match) {
        if (match !== cursor) old.insertBefore(match, cursor);
        else cursor = cursor.nextSibling;
        kept.add(match);
        morph(match, next);
      } else {
        old.insertBefore(document.adoptNode(next), cursor);
      }
    }
    while (cursor) {
      const after = cursor.nextSibling;
      if (!kept.has(cursor)) cursor.remove();
      cursor = after;
    }
  }

  view.morph = morph;

  let pending = false;
  function scheduleRefresh(source) {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      refresh(source).catch((err) => showState(`update failed: ${err.message}`));
    }, 150);
  }

  async function refresh(source) {
    const answer = await fetch(window.location.href, { credentials: "same-origin" });
    if (!answer.ok) return;
    const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
    for (const section of fresh.querySelectorAll("[data-live]")) {
      const old = section.id ? document.getElementById(section.id) : null;
      if (old) morph(old, section);
    }
    paintLegend();
    view.refreshes += 1;
    document.body.dataset.refreshes = String(view.refreshes);
    if (graphVersion() !== view.graphVersion) {
      view.graphVersion = graphVersion();
      await redrawGraph();
    }
    if (!fresh.body.dataset.events) {
      source.close();
      showState("finished");
    }
  }

  function followLive() {
    const url = document.body.dataset.events;
    if (!url || typeof EventSource !== "function") return;
    const source = new EventSource(url);
    source.addEventListener("open", () => showState("live"));
    source.addEventListener("error", () => showState("reconnecting\u2026"));
    source.addEventListener("step", () => scheduleRefresh(source));
  }

  function start() {
    paintLegend();
    view.graphVersion = graphVersion();
    redrawGraph().finally(() => {
      document.body.dataset.ready = "true";
    });
    followLive();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
