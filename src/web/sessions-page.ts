/** The sessions page: live and archived sessions, newest first, filtered by status. */
import { html, type Html } from "./html.js";
import { duration, page, utc } from "./layout.js";
import type { SessionListItem } from "./session-records.js";

/** The statuses the filter offers: every live one together, then each way a session ends. */
export const STATUS_FILTERS = ["live", "solved", "failed", "timed-out", "cancelled"] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export function isStatusFilter(value: string | null): value is StatusFilter {
  return value !== null && (STATUS_FILTERS as readonly string[]).includes(value);
}

export function sessionHref(id: string): string {
  return `/sessions/${encodeURIComponent(id)}`;
}

function row(s: SessionListItem, now: number): Html {
  const ended = s.completedAt ?? now;
  return html`<tr data-session="${s.id}" data-status="${s.status}">
<td><a href="${sessionHref(s.id)}">${s.id}</a></td>
<td><span class="status status-${s.status}">${s.status}</span></td>
<td class="problem">${s.problem}</td>
<td>${s.agents.length > 0 ? s.agents.join(", ") : "—"}</td>
<td>${utc(s.startedAt)}</td>
<td>${duration(ended - s.startedAt)}${s.live ? " so far" : ""}</td>
</tr>
`;
}

/** One room's keeping of agents' protocol messages, as shown under the list. */
export interface RoomKeepingLine {
  readonly room: string;
  readonly keeping: "kept" | "not kept" | "unknown";
  readonly note: string;
}

function keepingSection(rooms: readonly RoomKeepingLine[]): Html | string {
  if (rooms.length === 0) return "";
  return html`<section id="rooms">
<h2>Rooms</h2>
<ul class="rooms">${rooms.map((r) => html`<li class="keeping keeping-${r.keeping.replace(" ", "-")}" data-room="${r.room}" data-keeping="${r.keeping}">${r.note}</li>`)}</ul>
</section>
`;
}

export function sessionsPage(sessions: readonly SessionListItem[], filter: StatusFilter | undefined, now: number, rooms: readonly RoomKeepingLine[] = []): Html {
  const options = [html`<option value="">all</option>`, ...STATUS_FILTERS.map((f) => html`<option value="${f}"${f === filter ? html` selected` : ""}>${f}</option>`)];
  const body = html`<h1>Sessions</h1>
<form method="get" action="/sessions" class="filter">
<label>Status <select name="status">${options}</select></label> <button type="submit">Show</button>
</form>
<section id="sessions" data-live>
<table class="sessions">
<thead><tr><th>Session</th><th>Status</th><th>Problem</th><th>Agents</th><th>Started</th><th>Duration</th></tr></thead>
<tbody>
${sessions.length > 0 ? sessions.map((s) => row(s, now)) : html`<tr><td colspan="6">No sessions${filter ? html` with status ${filter}` : ""} yet.</td></tr>`}
</tbody>
</table>
</section>
${keepingSection(rooms)}`;
  return page({ title: "Sessions", events: "/events", scripts: ["view.js"] }, body);
}
