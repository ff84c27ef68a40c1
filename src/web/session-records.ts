/**
 * What the web view knows about sessions, read from the host (live ones, and its stream of
 * steps) and the store (archived ones). It keeps the timelines of sessions it saw start, so
 * a live page costs nothing to draw; any other session's timeline is rebuilt from its logged
 * inputs. It changes nothing.
 */
import type { Session, SessionId } from "../session/types.js";
import type { ArchivedSummary, SessionStep } from "../shell/session-host.js";
import type { ListArchivedOptions, StoredEvent } from "../store/records.js";
import { Recent } from "./recent.js";
import { stepsFromEvents } from "./session-steps.js";
import { timelineOf, type TimelineEntry } from "./timeline.js";

/** The host as the view reads it. */
export interface LiveSessions {
  onStep(listener: (step: SessionStep) => void): () => void;
  session(id: SessionId): Session | undefined;
  readonly sessions: { byId: Record<SessionId, Session> };
}

/** The store as the view reads it (SessionStore implements it). */
export interface SessionArchive {
  listArchived(options: ListArchivedOptions): ArchivedSummary[];
  archivedSession(id: SessionId): Session | undefined;
  eventsOf(id: SessionId): StoredEvent[];
}

/** One row of the sessions page. */
export interface SessionListItem {
  id: SessionId;
  problem: string;
  /** The phase of a live session, the completion status of a finished one. */
  status: string;
  live: boolean;
  /** Contributors, then proposers that did not contribute. */
  agents: string[];
  startedAt: number;
  /** When it completed; undefined while live. */
  completedAt: number | undefined;
}

/** What one step changed, for live pages. */
export interface SessionChange {
  sessionId: SessionId;
  status: string;
  entries: TimelineEntry[];
}

export interface SessionPageData {
  session: Session;
  timeline: TimelineEntry[];
  live: boolean;
}

/** Sessions whose timelines are kept from the stream; older ones are rebuilt from the log when asked. */
const REMEMBERED_SESSIONS = 100;
/** Timeline entries kept per session; a session that runs longer is cut (the export has all). */
const MAX_ENTRIES = 5_000;
/** Archived sessions' rebuilt timelines and list rows kept (they never change). */
const ARCHIVE_CACHE = 50;
const LIST_LIMIT = 200;

export function statusOf(session: Session): string {
  return session.completion?.status ?? session.phase;
}

export function agentsOf(session: Session): string[] {
  const contributors = Object.values(session.contributions).sort((a, b) => a.receivedAt - b.receivedAt).map((c) => c.agent);
  const proposers = session.proposals.map((p) => p.agent).filter((a) => !contributors.includes(a));
  return [...new Set([...contributors, ...proposers])];
}

function listItemOf(session: Session): SessionListItem {
  return {
    id: session.id,
    problem: session.problem,
    status: statusOf(session),
    live: session.phase !== "complete",
    agents: agentsOf(session),
    startedAt: session.startedAt,
    completedAt: session.completion?.at,
  };
}

export class SessionRecords {
  private readonly remembered = new Recent<TimelineEntry[]>(REMEMBERED_SESSIONS);
  private readonly archivedTimelines = new Recent<TimelineEntry[]>(ARCHIVE_CACHE);
  private readonly archivedRows = new Recent<SessionListItem>(LIST_LIMIT);
  private readonly listeners = new Set<(change: SessionChange) => void>();
  private readonly stop: () => void;

  constructor(
    private readonly live: LiveSessions,
    private readonly archive: SessionArchive | undefined,
  ) {
    this.stop = live.onStep((step) => this.take(step));
  }

  /** Stops listening to the host. */
  close(): void {
    this.stop();
    this.listeners.clear();
  }

  /** Hears what each step changed; returns the function that stops it. */
  onChange(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private take(step: SessionStep): void {
    const sessionId = step.input.sessionId;
    const entries = timelineOf(step);
    const kept = step.input.kind === "start" ? [] : this.remembered.get(sessionId);
    if (kept) {
      if (kept.length < MAX_ENTRIES) kept.push(...entries.slice(0, MAX_ENTRIES - kept.length));
      this.remembered.set(sessionId, kept);
    }
    if (!step.after) return;
    const change: SessionChange = { sessionId, status: statusOf(step.after), entries };
    for (const listener of this.listeners) listener(change);
  }

  /** Live and archived sessions, newest first, optionally only those with one status (`live` for every live one). */
  list(status?: string): SessionListItem[] {
    const inMemory = Object.values(this.live.sessions.byId).map(listItemOf);
    const seen = new Set(inMemory.map((s) => s.id));
    const archived = (this.archive?.listArchived({ limit: LIST_LIMIT }) ?? []).filter((a) => !seen.has(a.id)).map((a) => this.archivedRow(a));
    return [...inMemory, ...archived]
      .filter((s) => status === undefined || (status === "live" ? s.live : s.status === status))
      .sort((a, b) => b.startedAt - a.startedAt)
      .slice(0, LIST_LIMIT);
  }

  private archivedRow(summary: ArchivedSummary): SessionListItem {
    const cached = this.archivedRows.get(summary.id);
    if (cached) return cached;
    const session = this.archive?.archivedSession(summary.id);
    const row: SessionListItem = session
      ? listItemOf(session)
      : { id: summary.id, problem: summary.problem, status: summary.status, live: false, agents: [], startedAt: summary.startedAt, completedAt: summary.completedAt };
    this.archivedRows.set(summary.id, row);
    return row;
  }

  /** One session with its timeline; undefined when neither the host nor the store knows it. */
  page(id: SessionId): SessionPageData | undefined {
    const inMemory = this.live.session(id);
    const session = inMemory ?? this.archive?.archivedSession(id);
    if (!session) return undefined;
    const live = session.phase !== "complete";
    return { session, timeline: this.timeline(id, live), live };
  }

  private timeline(id: SessionId, live: boolean): TimelineEntry[] {
    const remembered = this.remembered.get(id);
    if (remembered) return remembered;
    if (!this.archive) return [];
    if (!live) {
      const cached = this.archivedTimelines.get(id);
      if (cached) return cached;
    }
    const rebuilt = stepsFromEvents(this.archive.eventsOf(id)).flatMap(timelineOf).slice(0, MAX_ENTRIES);
    if (!live) this.archivedTimelines.set(id, rebuilt);
    return rebuilt;
  }
}
