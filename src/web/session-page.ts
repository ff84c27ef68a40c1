/**
 * The session page: its timeline, its model (a graph drawn by the script, over a table of the
 * same items that stands alone without scripts), the latest findings, the proposals with
 * their verdicts and plan traces, and the export files to download.
 */
import type { Proposal, Session, ValidationFinding } from "../session/types.js";
import { rankedProposals } from "../session/ranking.js";
import { uncheckedBecause } from "../session/report.js";
import { graphLegend, NODE_WORDS } from "./graph-legend.js";
import { html, type Html } from "./html.js";
import { duration, page, utc } from "./layout.js";
import type { ModelGraph } from "./model-graph.js";
import { latestFindings } from "./model-graph.js";
import { agentsOf, statusOf } from "./session-records.js";
import { sessionHref } from "./sessions-page.js";
import type { TimelineEntry } from "./timeline.js";

export interface SessionPageInput {
  session: Session;
  timeline: readonly TimelineEntry[];
  graph: ModelGraph;
  live: boolean;
  /** File names offered for download (see ./downloads.ts); none: the page shows no export line. */
  downloads: readonly string[];
  now: number;
}


function timelineRow(e: TimelineEntry, index: number, startedAt: number): Html {
  const findings = e.findings && e.findings.length > 0 ? html`<ul class="findings">${e.findings.map((f) => html`<li class="sev-${f.severity}">${f.severity}: ${f.focusNode}${f.path ? html` (${f.path})` : ""}: ${f.message}</li>`)}</ul>` : "";
  const details = e.details.length > 0 ? html`<ul class="details">${e.details.map((d) => html`<li>${d}</li>`)}</ul>` : "";
  return html`<tr class="event event-${e.kind}" data-kind="${e.kind}" data-input="${e.input}" data-at="${e.at}" data-index="${index}">
<td title="${utc(e.at)}">+${duration(e.at - startedAt)}</td>
<td>${e.kind}</td>
<td>${e.agent ?? ""}</td>
<td>${e.round ?? ""}</td>
<td>${e.text}${details}${findings}</td>
</tr>
`;
}

function findingRows(findings: readonly ValidationFinding[]): Html {
  if (findings.length === 0) return html`<tr><td colspan="5">No findings.</td></tr>`;
  return html`${findings.map(
    (f) => html`<tr class="sev-${f.severity}" data-focus="${f.focusNode}"><td>${f.severity}</td><td class="iri">${f.focusNode}</td><td>${f.path ?? ""}</td><td>${f.message}</td><td>${f.agents.join(", ")}</td></tr>\n`,
  )}`;
}

function proposalRow(p: Proposal): Html {
  const plan = Array.isArray(p.solution.plan) ? p.solution.plan.map(String) : [];
  const v = p.verification;
  const trace = v?.trace && v.trace.length > 0 ? html`<details><summary>plan trace (${v.trace.length} states)</summary><ol class="trace">${v.trace.map((t) => html`<li>${t}</li>`)}</ol></details>` : "";
  return html`<tr data-agent="${p.agent}" data-verdict="${v?.verdict ?? "none"}">
<td>${p.agent}</td>
<td>${p.round ?? 1}</td>
<td>${p.solution.success ? "success" : "failure"}: ${String(p.solution.message ?? "")}</td>
<td><span class="verdict verdict-${v?.verdict ?? "none"}">${v?.verdict ?? "not checked"}</span>${v ? html` ${v.reason}` : ""}${v?.refutedClaim ? html`<br>refuted claim: ${v.refutedClaim}` : ""}</td>
<td>${plan.length > 0 ? html`<ol class="plan">${plan.map((s) => html`<li>${s}</li>`)}</ol>` : "no plan"}${trace}</td>
</tr>
`;
}

function itemRows(graph: ModelGraph): Html {
  if (graph.nodes.length === 0) return html`<tr><td colspan="5">${graph.note ?? "No model items yet."}</td></tr>`;
  return html`${graph.nodes.map(
    (n) => html`<tr data-item="${n.id}" class="${n.findings.some((f) => f.severity === "Violation") ? "has-violation" : ""}">
<td>${n.label}</td><td>${NODE_WORDS[n.kind].word}</td><td>${n.agents.join(", ")}</td>
<td>${n.details.length > 0 ? html`<ul class="details">${n.details.map((d) => html`<li>${d}</li>`)}</ul>` : ""}</td>
<td>${n.findings.map((f) => html`<div class="sev-${f.severity}">${f.severity}: ${f.message}</div>`)}</td>
</tr>
`,
  )}`;
}

export function sessionPage(input: SessionPageInput): Html {
  const { session: s, timeline, graph, live, downloads, now } = input;
  const status = statusOf(s);
  const ended = s.completion?.at ?? now;
  const href = sessionHref(s.id);
  // A session solved without a valid plan was solved on a claim: say so beside its status.
  const best = rankedProposals(s)[0];
  const claimOnly = s.completion?.status === "solved" && best?.verification?.verdict !== "valid" ? uncheckedBecause(s) : undefined;
  const body = html`<section id="overview" data-live>
<h1>Session <span class="session-id">${s.id}</span> <span class="status status-${status}" id="session-status">${status}</span></h1>
<p class="problem">${s.problem}</p>
<dl class="facts">
<dt>Started</dt><dd>${utc(s.startedAt)} by ${s.startedBy.nick}</dd>
<dt>Duration</dt><dd>${duration(ended - s.startedAt)}${live ? " so far" : ""}</dd>
<dt>Agents</dt><dd>${agentsOf(s).join(", ") || "none yet"}</dd>
${s.completion?.reason ? html`<dt>Reason</dt><dd>${s.completion.reason}</dd>` : ""}
${claimOnly ? html`<dt>Checked</dt><dd class="unchecked">no: solved on the agent's own claim; the plan was not checked (${claimOnly})</dd>` : ""}
</dl>
${downloads.length > 0 ? html`<p class="downloads">Export: ${downloads.map((f) => html`<a href="${href}/export/${encodeURIComponent(f)}" download>${f}</a> `)}</p>` : ""}
</section>
<section id="timeline" data-live>
<h2>Timeline</h2>
<table class="timeline">
<thead><tr><th>When</th><th>Event</th><th>Agent</th><th>Round</th><th>What</th></tr></thead>
<tbody>
${timeline.map((e, i) => timelineRow(e, i, s.startedAt))}
</tbody>
</table>
</section>
<section id="model">
<h2>Model</h2>
${graphLegend()}
<div id="model-graph" class="graph" data-src="${href}/graph.json" hidden></div>
<p id="graph-selection" class="graph-note"></p>
<div id="model-tables" data-live data-graph-version="${s.contributionsVersion}-${s.validations.length}">
<p class="legend">${graph.agents.map((a) => html`<span class="agent-colour" data-colour="${a.colour}">${a.name}</span> `)}</p>
<p class="graph-note">${graph.note ?? ""}</p>
<table class="items">
<thead><tr><th>Item</th><th>Kind</th><th>Contributed by</th><th>Details</th><th>Findings</th></tr></thead>
<tbody>
${itemRows(graph)}
</tbody>
</table>
</div>
</section>
<section id="findings" data-live>
<h2>Validation findings (latest round)</h2>
<table class="findings">
<thead><tr><th>Severity</th><th>Focus node</th><th>Path</th><th>Message</th><th>Agents</th></tr></thead>
<tbody>
${findingRows(latestFindings(s))}
</tbody>
</table>
</section>
<section id="proposals" data-live>
<h2>Proposals</h2>
<table class="proposals">
<thead><tr><th>Agent</th><th>Round</th><th>Claim</th><th>Verification</th><th>Plan</th></tr></thead>
<tbody>
${s.proposals.length > 0 ? s.proposals.map(proposalRow) : html`<tr><td colspan="5">No proposals yet.</td></tr>`}
</tbody>
</table>
</section>
`;
  return page({ title: `Session ${s.id}`, events: live ? `${href}/events` : undefined, scripts: ["lib/cytoscape.min.js", "view.js"] }, body);
}
