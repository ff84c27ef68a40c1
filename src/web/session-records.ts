/**
 * What the web view knows about sessions, read from the host (live ones, and its stream of
 * steps) and the store (archived ones). It keeps the timelines of sessions it saw start, so
 * a live page costs nothing to draw; any other session's timeline is rebuilt from its logged
 * inputs. It changes nothing.
 *
 * An archive whose reads cross a network (the fleet's database view, src/fleet/) answers
 * from what it loaded last: `prepare` lets it load what one session's page needs before the
 * page is drawn, and its timelines are always rebuilt from its events (`rememberTimelines`
 * false), since the steps it passes on are not every step of a session.
 */
import type { Session, SessionId } from "../session/types.js";
import type { ArchivedSummary, SessionStep } from "../host/session-host.js";
import type { ListArchivedOptions, StoredEvent } from "../host/journal-records.js";
import { Recent } from "./recent.js";
import { stepsFromEvents } from "./session-steps.js";
import { timelineOf, type TimelineEntry } from "./timeline.js";

/** The host as the view reads it. */
export interface LiveSessions {
  onStep(listener: (step: SessionStep) => void): () => void;
  session(id: SessionId): Session | undefined;
  readonly sessions: { byId: Record<SessionId, Session> };
}

/** An archived session as listed; `agents`, when given, spares reading the whole session for its row. */
export type ListedArchived = ArchivedSummary & { readonly agents?: readonly string[] };

/** The store as the view reads it (SessionStore implements it). */
export interface SessionArchive {
  listArchived(options: ListArchivedOptions): ListedArchived[];
  archivedSession(id: SessionId): Session | undefined;
  eventsOf(id: SessionId): StoredEvent[];
  /**
   * Loads what answering for this session needs (an archive that reads across a network);
   * awaited before a session's page is drawn. Never rejects: what cannot be loaded is
   * answered from what the archive has.
   */
  prepare?(id: SessionId): Promise<void>;
}

/** How the records keep timelines. */
export interface SessionRecordsOptions {
  /**
   * Keep the timelines of sessions seen starting, from the stream of steps (default true).
   * False: every timeline is rebuilt from the archive's events, for an archive that has the
   * events of live sessions too and a stream that does not carry every step.
   */
  rememberTimelines?: boolean;
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
  private readonly rememberTimelines: boolean;

  constructor(
    private readonly live: LiveSessions,
    private readonly archive: SessionArchive | undefined,
    options: SessionRecordsOptions = {},
  ) {
    this.rememberTimelines = options.rememberTimelines ?? true;
    this.stop = live.onStep((step) => this.take(step));
  }

  /** Lets the archive load what one session's page needs (see SessionArchive.prepare). */
  async prepare(id: SessionId): Promise<void> {
    await this.archive?.prepare?.(id);
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
    const kept = !this.rememberTimelines ? undefined : step.input.kind === "start" ? [] : this.remembered.get(sessionId);
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

  private archivedRow(summary: ListedArchived): SessionListItem {
    const cached = this.archivedRows.get(summary.id);
    if (cached) return cached;
    const session = summary.agents === undefined ? this.archive?.archivedSession(summary.id) : undefined;
    const row: SessionListItem = session
      ? listItemOf(session)
      : { id: summary.id, problem: summary.problem, status: summary.status, live: false, agents: [...(summary.agents ?? [])], startedAt: summary.startedAt, completedAt: summary.completedAt };
    // A row without its agents (the archive has not loaded the session yet) is asked again next time.
    if (session !== undefined || summary.agents !== undefined) this.archivedRows.set(summary.id, row);
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
    // No entry at all: the archive does not have the events (yet); not kept, so asked again.
    if (!live && rebuilt.length > 0) this.archivedTimelines.set(id, rebuilt);
    return rebuilt;
  }
}
